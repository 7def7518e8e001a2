/**
 * Before anything is measured: the raw-SQL baseline must answer every request of every
 * workload it has a twin for (`raw: true`) with the same status, content type and body bytes
 * as the gateway, or the comparison would be between two different answers.
 *
 * Both are sent the gateway's Host header: the gateway writes its links (`self`, `next`) from
 * the Host the client used, and so does the baseline, so the same Host gives the same links.
 */
import http from 'node:http';
import type { BenchRequest, Workload } from './workloads.ts';

export interface HttpAnswer {
  status: number;
  contentType: string | undefined;
  body: Buffer;
}

/** Sends one bench request to `baseUrl`, with the Host header given. */
export function send(
  baseUrl: string,
  request: BenchRequest,
  host: string,
  token?: string,
): Promise<HttpAnswer> {
  const url = new URL(request.path, baseUrl);
  const headers: Record<string, string> = { ...request.headers, host };
  if (request.partner) {
    if (token === undefined) throw new Error(`${request.path} needs the partner's token`);
    headers.authorization = `Bearer ${token}`;
  }
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method: request.method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({
          status: response.statusCode ?? 0,
          contentType: response.headers['content-type'],
          body: Buffer.concat(chunks),
        }),
      );
      response.on('error', reject);
    });
    outgoing.on('error', reject);
    outgoing.end(request.body);
  });
}

/** A readable account of where two bodies part: the first differing byte and its context. */
export function describeDifference(expected: Buffer, actual: Buffer, context = 120): string {
  const length = Math.min(expected.length, actual.length);
  let offset = 0;
  while (offset < length && expected[offset] === actual[offset]) offset += 1;
  const excerpt = (body: Buffer) => {
    const start = Math.max(0, offset - context);
    const before = body.subarray(start, offset).toString('utf8');
    const after = body.subarray(offset, offset + context).toString('utf8');
    return `${start > 0 ? '…' : ''}${before}⟦${after}${offset + context < body.length ? '…' : ''}`;
  };
  return [
    `bodies differ at byte ${offset} (gateway ${expected.length} bytes, raw ${actual.length})`,
    `  gateway: ${excerpt(expected)}`,
    `  raw:     ${excerpt(actual)}`,
  ].join('\n');
}

/** What differs between the gateway's answer and the baseline's, or undefined. */
export function compareAnswers(gateway: HttpAnswer, raw: HttpAnswer): string | undefined {
  const problems: string[] = [];
  if (gateway.status !== raw.status) {
    problems.push(`status: gateway ${gateway.status}, raw ${raw.status}`);
  }
  if (gateway.contentType !== raw.contentType) {
    problems.push(`content-type: gateway ${gateway.contentType}, raw ${raw.contentType}`);
  }
  if (!gateway.body.equals(raw.body)) problems.push(describeDifference(gateway.body, raw.body));
  return problems.length === 0 ? undefined : problems.join('\n');
}

/**
 * Fetches every request of every `raw: true` workload from both servers and throws, naming
 * each request that differs, unless all answers are identical. `token` is the partner's
 * Bearer token (the baseline accepts any).
 */
export async function verifySameResponses(
  gatewayBaseUrl: string,
  rawBaseUrl: string,
  workloads: readonly Workload[],
  token: string,
): Promise<void> {
  const host = new URL(gatewayBaseUrl).host;
  const failures: string[] = [];
  let compared = 0;
  for (const workload of workloads) {
    if (!workload.raw) continue;
    for (const [index, request] of workload.requests.entries()) {
      const gateway = await send(gatewayBaseUrl, request, host, token);
      const raw = await send(rawBaseUrl, request, host, token);
      compared += 1;
      if (gateway.status !== 200) {
        failures.push(
          `${workload.id} #${index} ${request.method} ${request.path}: the gateway answered ` +
            `${gateway.status}: ${gateway.body.toString('utf8').slice(0, 300)}`,
        );
        continue;
      }
      const difference = compareAnswers(gateway, raw);
      if (difference !== undefined) {
        failures.push(`${workload.id} #${index} ${request.method} ${request.path}\n${difference}`);
      }
    }
  }
  if (failures.length > 0) {
    throw new Error(
      `the raw baseline differs from the gateway on ${failures.length} of ${compared} requests:\n\n` +
        failures.join('\n\n'),
    );
  }
}
