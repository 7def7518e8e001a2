/**
 * Before anything is measured: the raw-SQL baseline, the naive variant and the cached gateway
 * must answer every request of every workload they are measured on with the same status,
 * content type and body bytes as the gateway, and PostGraphile (another schema, so not the
 * same bytes) its own twin of every request with the same rows (bench/rows.ts), or the
 * comparison would be between two different answers.
 *
 * Both are sent the gateway's Host header: the raw baseline writes its links (`self`, `next`)
 * from the Host the client used, every variant of the gateway on the gateway's address (its
 * PUBLIC_BASE_URL in bench/run.ts), so the same Host gives the same links.
 */
import http from 'node:http';
import { describeRowDifference } from './rows.ts';
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

/**
 * A readable account of where two bodies part: the first differing byte and its context.
 * `theirs` names the other system.
 */
export function describeDifference(
  expected: Buffer,
  actual: Buffer,
  theirs = 'raw',
  context = 120,
): string {
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
    `bodies differ at byte ${offset} (gateway ${expected.length} bytes, ${theirs} ${actual.length})`,
    `  gateway: ${excerpt(expected)}`,
    `  ${`${theirs}:`.padEnd(8)} ${excerpt(actual)}`,
  ].join('\n');
}

/** What differs between the gateway's answer and another system's, or undefined. */
export function compareAnswers(
  gateway: HttpAnswer,
  other: HttpAnswer,
  theirs = 'raw',
): string | undefined {
  const problems: string[] = [];
  if (gateway.status !== other.status) {
    problems.push(`status: gateway ${gateway.status}, ${theirs} ${other.status}`);
  }
  if (gateway.contentType !== other.contentType) {
    problems.push(`content-type: gateway ${gateway.contentType}, ${theirs} ${other.contentType}`);
  }
  if (!gateway.body.equals(other.body)) {
    problems.push(describeDifference(gateway.body, other.body, theirs));
  }
  return problems.length === 0 ? undefined : problems.join('\n');
}

/**
 * Runs `check` on every request of `workloads` and throws, naming each request it finds a
 * problem with, unless it finds none. `what` says what differs, for the message.
 */
async function checkEveryRequest(
  workloads: readonly Workload[],
  what: string,
  check: (workload: Workload, index: number, request: BenchRequest) => Promise<string | undefined>,
): Promise<void> {
  const failures: string[] = [];
  let compared = 0;
  for (const workload of workloads) {
    for (const [index, request] of workload.requests.entries()) {
      const problem = await check(workload, index, request);
      compared += 1;
      if (problem !== undefined) {
        failures.push(`${workload.id} #${index} ${request.method} ${request.path}\n${problem}`);
      }
    }
  }
  if (failures.length > 0) {
    throw new Error(
      `${what} on ${failures.length} of ${compared} requests:\n\n${failures.join('\n\n')}`,
    );
  }
}

/**
 * Fetches every request of `workloads` from the gateway and from the system `theirs` and
 * throws, naming each request that differs, unless all answers are identical. `token` is the
 * partner's Bearer token (the raw baseline accepts any).
 */
export function verifySameResponses(
  gatewayBaseUrl: string,
  otherBaseUrl: string,
  theirs: string,
  workloads: readonly Workload[],
  token: string,
): Promise<void> {
  const host = new URL(gatewayBaseUrl).host;
  return checkEveryRequest(
    workloads,
    `${theirs} differs from the gateway`,
    async (_, _index, request) => {
      const gateway = await send(gatewayBaseUrl, request, host, token);
      const other = await send(otherBaseUrl, request, host, token);
      if (gateway.status !== 200) {
        return `the gateway answered ${gateway.status}: ${gateway.body.toString('utf8').slice(0, 300)}`;
      }
      return compareAnswers(gateway, other, theirs);
    },
  );
}

/** The `data` of a GraphQL answer, or why there is none to compare (a status, errors). */
function graphqlData(answer: HttpAnswer): { data: unknown } | { problem: string } {
  const text = answer.body.toString('utf8');
  if (answer.status !== 200) return { problem: `answered ${answer.status}: ${text.slice(0, 300)}` };
  const body = JSON.parse(text) as { data?: unknown; errors?: unknown };
  if (body.errors !== undefined || body.data == null) {
    return { problem: `answered with errors: ${text.slice(0, 300)}` };
  }
  return { data: body.data };
}

/**
 * For one workload with a PostGraphile twin, what differs between the rows of the gateway's
 * answer to one of its requests and those of PostGraphile's answer to that request's twin,
 * or undefined. An
 * answer without rows is a difference too: it would compare nothing.
 */
export function compareRows(
  workload: Workload,
  gatewayAnswer: HttpAnswer,
  peerAnswer: HttpAnswer,
): string | undefined {
  const twin = workload.peer;
  if (twin === undefined) throw new Error(`${workload.id} has no PostGraphile twin`);
  const gateway = graphqlData(gatewayAnswer);
  const peer = graphqlData(peerAnswer);
  if ('problem' in gateway) return `the gateway ${gateway.problem}`;
  if ('problem' in peer) return `postgraphile ${peer.problem}`;
  const gatewayRows = twin.gatewayRows(gateway.data);
  if (gatewayRows.length === 0) return 'the gateway answered no rows: nothing to compare';
  return describeRowDifference(gatewayRows, twin.peerRows(peer.data), 'postgraphile');
}

/**
 * Fetches every request of every workload with a PostGraphile twin from the gateway, and its
 * twin from PostGraphile, and throws, naming each pair whose rows differ, unless all agree.
 */
export function verifySameRows(
  gatewayBaseUrl: string,
  peerBaseUrl: string,
  workloads: readonly Workload[],
): Promise<void> {
  const host = new URL(gatewayBaseUrl).host;
  const peerHost = new URL(peerBaseUrl).host;
  return checkEveryRequest(
    workloads,
    "postgraphile's rows differ from the gateway's",
    async (workload, index, request) =>
      compareRows(
        workload,
        await send(gatewayBaseUrl, request, host),
        await send(peerBaseUrl, workload.peer!.requests[index]!, peerHost),
      ),
  );
}
