/**
 * One measurement: autocannon drives a system with a workload's requests for a while and we
 * keep every response time (autocannon's own summary has no p95).
 */
import autocannon from 'autocannon';
import type { BenchRequest } from './workloads.ts';

export interface LoadOptions {
  baseUrl: string;
  requests: BenchRequest[];
  token: string;
  connections: number;
  durationSeconds: number;
  /** Requests per second for all connections together; unset: as fast as answered. */
  overallRate?: number;
}

export interface LoadResult {
  requests: number;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  /** Responses other than 2xx/304, connection errors and timeouts. */
  failures: number;
}

/** The value at `fraction` (0.99: p99) of ascending `sorted` (nearest rank). */
export function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1);
  return sorted[Math.max(0, index)]!;
}

function toAutocannonRequest(request: BenchRequest, token: string) {
  const headers = { ...request.headers };
  if (request.partner) headers.authorization = `Bearer ${token}`;
  return { method: request.method, path: request.path, headers, body: request.body };
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const times: number[] = [];
  let failures = 0;
  let instance: autocannon.Instance | undefined;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    instance = autocannon(
      {
        url: options.baseUrl,
        connections: options.connections,
        duration: options.durationSeconds,
        overallRate: options.overallRate,
        requests: options.requests.map((request) => toAutocannonRequest(request, options.token)),
        timeout: 10,
      },
      (error, result) => (error ? reject(error) : resolve(result)),
    );
  });
  instance!.on('response', (_client, statusCode, _bytes, responseTime) => {
    if (statusCode >= 200 && statusCode < 400) times.push(responseTime);
    else failures += 1;
  });
  const result = await finished;
  const sorted = Float64Array.from(times).sort();
  return {
    requests: times.length,
    requestsPerSecond: times.length / options.durationSeconds,
    p50: percentile(sorted, 0.5),
    p95: percentile(sorted, 0.95),
    p99: percentile(sorted, 0.99),
    failures: failures + result.errors + result.timeouts,
  };
}
