/**
 * Turns the rounds of measurements into medians, ratios and a Markdown table (pasted as is
 * into docs/benchmarks.md).
 */
import type { LoadResult } from './load.ts';
import type { SystemId } from './systems.ts';
import type { WorkloadId } from './workloads.ts';

export interface Measurement extends LoadResult {
  round: number;
  workload: WorkloadId;
  system: SystemId;
  connections: number;
  statementsPerRequest: number;
  /** CPU time of the system's Postgres backends per request (NaN when not measured). */
  postgresMsPerRequest: number;
  peakResidentBytes: number;
}

export function median(values: readonly number[]): number {
  const sorted = values.filter((value) => !Number.isNaN(value)).sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export interface Summary {
  workload: WorkloadId;
  system: SystemId;
  connections: number;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  statementsPerRequest: number;
  postgresMsPerRequest: number;
  peakResidentMb: number;
  failures: number;
  /** Median over rounds of this system's throughput divided by the other's in the same round. */
  versusRaw?: number;
  versusNaive?: number;
  versusPostgraphile?: number;
}

function ratioPerRound(
  measurements: readonly Measurement[],
  workload: WorkloadId,
  system: SystemId,
  baseline: SystemId,
): number | undefined {
  const ratios: number[] = [];
  for (const mine of measurements) {
    if (mine.workload !== workload || mine.system !== system) continue;
    const theirs = measurements.find(
      (m) => m.workload === workload && m.system === baseline && m.round === mine.round,
    );
    if (theirs && theirs.requestsPerSecond > 0) {
      ratios.push(mine.requestsPerSecond / theirs.requestsPerSecond);
    }
  }
  return ratios.length > 0 ? median(ratios) : undefined;
}

export function summarise(measurements: readonly Measurement[]): Summary[] {
  const groups = new Map<string, Measurement[]>();
  for (const m of measurements) {
    const key = `${m.workload}|${m.system}`;
    groups.set(key, [...(groups.get(key) ?? []), m]);
  }
  return [...groups.values()].map((group) => {
    const { workload, system, connections } = group[0]!;
    const of = (pick: (m: Measurement) => number) => median(group.map(pick));
    const versusRaw =
      system === 'raw' ? undefined : ratioPerRound(measurements, workload, system, 'raw');
    const versusNaive =
      system === 'naive' ? undefined : ratioPerRound(measurements, workload, system, 'naive');
    const versusPostgraphile =
      system === 'postgraphile'
        ? undefined
        : ratioPerRound(measurements, workload, system, 'postgraphile');
    return {
      workload,
      system,
      connections,
      requestsPerSecond: of((m) => m.requestsPerSecond),
      p50: of((m) => m.p50),
      p95: of((m) => m.p95),
      p99: of((m) => m.p99),
      statementsPerRequest: of((m) => m.statementsPerRequest),
      postgresMsPerRequest: of((m) => m.postgresMsPerRequest),
      peakResidentMb: Math.max(...group.map((m) => m.peakResidentBytes)) / 2 ** 20,
      failures: group.reduce((sum, m) => sum + m.failures, 0),
      versusRaw,
      versusNaive,
      versusPostgraphile,
    };
  });
}

const fixed = (value: number | undefined, digits: number) =>
  value === undefined || Number.isNaN(value) ? '–' : value.toFixed(digits);

export function markdownTable(headers: string[], rows: string[][]): string {
  const widths = headers.map((header, column) =>
    Math.max(header.length, ...rows.map((row) => row[column]!.length)),
  );
  const line = (cells: string[]) =>
    `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [
    line(headers),
    line(widths.map((width) => '-'.repeat(width))),
    ...rows.map((row) => line(row)),
  ].join('\n');
}

export function summaryTable(summaries: readonly Summary[]): string {
  return markdownTable(
    [
      'workload',
      'system',
      'conn',
      'req/s',
      'p50 ms',
      'p95 ms',
      'p99 ms',
      'SQL/req',
      'Postgres ms/req',
      'RSS MB',
      '× raw',
      '× naive',
      'failed',
    ],
    summaries.map((s) => [
      s.workload,
      s.system,
      String(s.connections),
      fixed(s.requestsPerSecond, 0),
      fixed(s.p50, 1),
      fixed(s.p95, 1),
      fixed(s.p99, 1),
      fixed(s.statementsPerRequest, 1),
      fixed(s.postgresMsPerRequest, 2),
      fixed(s.peakResidentMb, 0),
      fixed(s.versusRaw, 2),
      fixed(s.versusNaive, 1),
      String(s.failures),
    ]),
  );
}

/**
 * The P workloads side by side: throughput and p99 of the gateway, PostGraphile and the
 * naive floor, the gateway's throughput over PostGraphile's (median of per-round ratios), and
 * Postgres time per request of each.
 */
export function peerTable(summaries: readonly Summary[]): string {
  const of = (workload: WorkloadId, system: SystemId) =>
    summaries.find((s) => s.workload === workload && s.system === system);
  const workloads = [
    ...new Set(summaries.filter((s) => s.system === 'postgraphile').map((s) => s.workload)),
  ];
  return markdownTable(
    [
      'workload',
      'gateway req/s',
      'p99 ms',
      'PostGraphile req/s',
      'p99 ms',
      'naive req/s',
      'p99 ms',
      'gateway ÷ PostGraphile',
      'Postgres ms/req (gw / pgl / naive)',
    ],
    workloads.map((workload) => {
      const [gateway, postgraphile, naive] = (['gateway', 'postgraphile', 'naive'] as const).map(
        (system) => of(workload, system),
      );
      return [
        workload,
        fixed(gateway?.requestsPerSecond, 0),
        fixed(gateway?.p99, 1),
        fixed(postgraphile?.requestsPerSecond, 0),
        fixed(postgraphile?.p99, 1),
        fixed(naive?.requestsPerSecond, 0),
        fixed(naive?.p99, 1),
        fixed(gateway?.versusPostgraphile, 2),
        [gateway, postgraphile, naive].map((s) => fixed(s?.postgresMsPerRequest, 2)).join(' / '),
      ];
    }),
  );
}
