/**
 * performance.md's targets and issue 12's against PostGraphile v5, checked against one run's
 * medians. Each row: what, the measured value, and whether it is met. (Embedded first start
 * and seeding are measured by their own commands: docs/benchmarks.md.)
 */
import type { Summary } from './report.ts';
import type { UnderLoad } from './run.ts';
import type { WorkloadId } from './workloads.ts';

export interface TargetInputs {
  summaries: readonly Summary[];
  /** [workload, system, statements at page 1, statements at the largest page]. */
  constancy: readonly string[][];
  underLoad: readonly UnderLoad[];
  /** From spawn to ready, for every process running the gateway's code. */
  startMs: readonly number[];
}

const verdict = (met: boolean) => (met ? 'yes' : '**no**');

/**
 * The gateway's throughput at least this many times PostGraphile's: well above it where
 * batching and listings on their index should win (category pages, 20 ids: PostGraphile
 * runs a statement per aliased root field), near it on a point lookup, where both are a
 * single small statement and the rest is each server's fixed cost per request.
 */
export const VERSUS_POSTGRAPHILE: Partial<Record<WorkloadId, number>> = {
  P1: 1.2,
  P2: 1.2,
  P3: 3,
  P4: 0.8,
};

/** Postgres time per category page at most this many times PostGraphile's single statement. */
export const CATEGORY_PAGE_POSTGRES_TIME = 1.5;

export function checkTargets({
  summaries,
  constancy,
  underLoad,
  startMs,
}: TargetInputs): string[][] {
  const gateway = (workload: WorkloadId) =>
    summaries.find((s) => s.workload === workload && s.system === 'gateway');
  const rows: string[][] = [];

  for (const [workload, system, small, large] of constancy) {
    if (system !== 'gateway') continue;
    rows.push([
      `${workload}: SQL statements constant in page size`,
      `${small} and ${large}`,
      verdict(small === large),
    ]);
  }
  for (const workload of ['W1', 'W2', 'W6'] as const) {
    const s = gateway(workload);
    if (!s) continue;
    if (s.versusRaw !== undefined) {
      rows.push([
        `${workload}: ≥ 0.75 × raw`,
        `${s.versusRaw.toFixed(2)} ×`,
        verdict(s.versusRaw >= 0.75),
      ]);
    }
    if (s.versusNaive !== undefined) {
      rows.push([
        `${workload}: ≥ 10 × naive`,
        `${s.versusNaive.toFixed(1)} ×`,
        verdict(s.versusNaive >= 10),
      ]);
    }
  }
  const w3 = gateway('W3');
  if (w3) {
    rows.push(['W3: p95 ≤ 20 ms, single client', `${w3.p95.toFixed(1)} ms`, verdict(w3.p95 <= 20)]);
    if (w3.versusRaw !== undefined) {
      rows.push([
        'W3: ≥ 0.85 × raw',
        `${w3.versusRaw.toFixed(2)} ×`,
        verdict(w3.versusRaw >= 0.85),
      ]);
    }
  }
  const rest = gateway('W5-rest');
  const graphql = gateway('W5-graphql');
  if (rest && graphql) {
    const ratio = rest.requestsPerSecond / graphql.requestsPerSecond;
    rows.push(['W5: REST ≥ 0.95 × GraphQL', `${ratio.toFixed(2)} ×`, verdict(ratio >= 0.95)]);
  }
  for (const u of underLoad) {
    rows.push([
      `${u.workload}: p99 ≤ 50 ms at 80 % of maximum (${u.rate} req/s)`,
      `${u.p99.toFixed(1)} ms`,
      verdict(u.p99 <= 50),
    ]);
  }
  for (const [workload, target] of Object.entries(VERSUS_POSTGRAPHILE) as [WorkloadId, number][]) {
    const ratio = gateway(workload)?.versusPostgraphile;
    if (ratio === undefined) continue;
    rows.push([
      `${workload}: ≥ ${target} × PostGraphile`,
      `${ratio.toFixed(2)} ×`,
      verdict(ratio >= target),
    ]);
  }
  const page = gateway('P1')?.postgresMsPerRequest;
  const peerPage = summaries.find(
    (s) => s.workload === 'P1' && s.system === 'postgraphile',
  )?.postgresMsPerRequest;
  if (page !== undefined && peerPage !== undefined && !Number.isNaN(page + peerPage)) {
    rows.push([
      `P1: Postgres time per page ≤ ${CATEGORY_PAGE_POSTGRES_TIME} × PostGraphile's`,
      `${page.toFixed(2)} / ${peerPage.toFixed(2)} ms = ${(page / peerPage).toFixed(2)} ×`,
      verdict(page <= CATEGORY_PAGE_POSTGRES_TIME * peerPage),
    ]);
  }
  const peak = Math.max(
    ...summaries.filter((s) => s.system === 'gateway').map((s) => s.peakResidentMb),
  );
  rows.push(['resident set ≤ 300 MB under load', `${peak.toFixed(0)} MB`, verdict(peak <= 300)]);
  const slowest = Math.max(...startMs);
  rows.push([
    'ready ≤ 1.5 s on a Postgres server',
    `${(slowest / 1000).toFixed(2)} s (slowest of ${startMs.length})`,
    verdict(slowest <= 1500),
  ]);
  return rows;
}
