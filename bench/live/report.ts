/**
 * The live benchmark's results against the targets, as a Markdown table (pasted as is
 * into docs/benchmarks.md): what, the target, what was measured, met.
 */
import { percentile } from '../load.ts';
import { markdownTable } from '../report.ts';
import type { LatencyResult } from './latency.ts';
import type { LossResult } from './restarts.ts';
import type { LiveBenchResults } from './run-bench.ts';

export const LIVE_TARGETS = {
  p50Ms: 200,
  p99Ms: 1_000,
  fanOutMs: 1_000,
  fanOutResidentMb: 500,
  /** "Others' p99 unchanged": beside a stalled subscriber at most this much of it alone. */
  stalledP99Ratio: 1.25,
};

const verdict = (met: boolean) => (met ? 'yes' : '**no**');
const ms = (value: number) => `${Math.round(value)} ms`;
const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MB`;
const sorted = (values: readonly number[]) => Float64Array.from(values).sort();
const p = (values: readonly number[], fraction: number) => percentile(sorted(values), fraction);

function latencyRow(result: LatencyResult): string[] {
  const where =
    result.processes === 1
      ? 'one gateway process (the subscribers on it, the pushes sent to it)'
      : 'two gateway processes (the subscribers on one, the pushes sent to and applied by the other)';
  const met = [result.sse, result.ws].every(
    (values) => p(values, 0.5) <= LIVE_TARGETS.p50Ms && p(values, 0.99) <= LIVE_TARGETS.p99Ms,
  );
  return [
    `feed commit → event at the subscriber, ${where}`,
    `≤ ${LIVE_TARGETS.p50Ms} ms p50, ≤ ${LIVE_TARGETS.p99Ms / 1000} s p99`,
    `SSE p50 ${ms(p(result.sse, 0.5))}, p99 ${ms(p(result.sse, 0.99))}; graphql-ws p50 ` +
      `${ms(p(result.ws, 0.5))}, p99 ${ms(p(result.ws, 0.99))} (${result.sse.length} pushes of ` +
      `one item); from the push's 202: p50 ${ms(p(result.afterAnswer, 0.5))}, p99 ` +
      `${ms(p(result.afterAnswer, 0.99))}`,
    verdict(met),
  ];
}

const FAULT_NAMES: Record<LossResult['fault'], string> = {
  postgres: 'Postgres stopped and started again',
  listener: 'the subscribers’ gateway alone cut off from Postgres while the other commits runs',
  redis: 'Redis stopped and started again (response cache and limits in it)',
};

function lossRow(result: LossResult): string[] {
  const committed = result.runs.filter((run) => run.committed).length;
  const perSubscriber = result.subscribers.map(
    (s) =>
      `${s.transport === 'sse' ? 'SSE' : 'graphql-ws'} ${s.lost} lost, ${s.duplicated} twice, ` +
      `${s.strange} unexpected${s.connected ? '' : ', disconnected'}`,
  );
  const met =
    result.misapplied === 0 &&
    committed === result.runs.length &&
    result.subscribers.every(
      (s) => s.lost + s.duplicated + s.strange === 0 && s.connected && s.received === committed,
    );
  return [
    `events lost for connected subscribers: ${FAULT_NAMES[result.fault]}, ${(result.faultMs / 1000).toFixed(1)} s`,
    '0',
    `${perSubscriber.join('; ')} of ${committed} committed runs (${result.committedDuringFault} ` +
      `committed during the fault; ${result.refused} pushes refused during it)`,
    verdict(met),
  ];
}

export function liveTargetRows(results: LiveBenchResults): string[][] {
  const rows = (results.latency ?? []).map(latencyRow);
  const fanOut = results.fanOut;
  if (fanOut) {
    rows.push([
      `${fanOut.subscribers.toLocaleString('en-US')} concurrent SSE subscribers on one process, each receiving one event fanned out`,
      `≤ ${LIVE_TARGETS.fanOutMs / 1000} s, resident set ≤ ${LIVE_TARGETS.fanOutResidentMb} MB`,
      `all delivered ${ms(fanOut.allDeliveredMs)} after the commit (median subscriber ` +
        `${ms(fanOut.medianMs)}); resident set ${mb(fanOut.residentPeakBytes)} at most ` +
        `(${mb(fanOut.residentBeforeBytes)} before they connected, ` +
        `${mb(fanOut.residentSubscribedBytes)} with them open); gateway CPU ${ms(fanOut.cpuMs)} ` +
        `(${((fanOut.cpuMs / fanOut.subscribers) * 1000).toFixed(0)} µs a subscriber); ` +
        `connected in ${fanOut.connectSeconds.toFixed(1)} s`,
      verdict(
        fanOut.allDeliveredMs <= LIVE_TARGETS.fanOutMs &&
          fanOut.residentPeakBytes <= LIVE_TARGETS.fanOutResidentMb * 2 ** 20,
      ),
    ]);
  }
  rows.push(...(results.loss ?? []).map(lossRow));
  const stalled = results.stalled;
  if (stalled) {
    const alone = p(stalled.alone, 0.99);
    const beside = p(stalled.stalled, 0.99);
    const closed = stalled.endedWith.startsWith('SERVICE_UNAVAILABLE (slow_consumer), complete');
    rows.push([
      `a stalled subscriber (reads nothing) beside ${stalled.others} others, all watching ${stalled.items} products that every run moves`,
      `closed after its buffer bound; others' p99 unchanged (≤ ${LIVE_TARGETS.stalledP99Ratio} ×)`,
      `it was owed ${mb(stalled.owedBytes)} over ${stalled.stallRuns} runs (events of ` +
        `${(stalled.eventBytes / 1024).toFixed(1)} KB; the network holds ${mb(stalled.networkBytes)}), ` +
        `then, reading again, got ${stalled.eventsRead} events and ${stalled.endedWith}; the others' ` +
        `commit → last event p99 ${ms(alone)} alone, ${ms(beside)} beside it ` +
        `(${(beside / alone).toFixed(2)} ×, ${stalled.rounds} runs each); resident set ` +
        `${mb(stalled.residentBeforeBytes)} → ${mb(stalled.residentAfterBytes)}`,
      verdict(closed && beside <= LIVE_TARGETS.stalledP99Ratio * alone),
    ]);
  }
  return rows;
}

export function liveTargetTable(results: LiveBenchResults): string {
  return markdownTable(['what', 'target', 'measured', 'met'], liveTargetRows(results));
}
