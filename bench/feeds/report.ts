/**
 * The feed benchmark's results against performance.md's feed targets, as a Markdown table
 * (pasted as is into docs/benchmarks.md): what, the target, what was measured, met.
 */
import { percentile } from '../load.ts';
import { markdownTable, median } from '../report.ts';
import type { FullFeedResult } from './full-feed.ts';
import type { FeedBenchResults, FeedBenchSizes } from './run-bench.ts';

const verdict = (met: boolean) => (met ? 'yes' : '**no**');
const count = (value: number) => Math.round(value).toLocaleString('en-US');
const s = (seconds: number) => `${seconds.toFixed(2)} s`;
const list = (values: number[]) => values.map((v) => v.toFixed(2)).join(', ');

export const FEED_TARGETS = {
  fullFeedSeconds: 10,
  versusBaseline: 0.5,
  manyShopsSeconds: 60,
  residentMb: 400,
  pushVisibleMs: 1000,
  readsP99Ratio: 2,
};

const ms = (value: number) => `${value.toFixed(0)} ms`;

function fullFeedRows(full: FullFeedResult | undefined, sizes: FeedBenchSizes): string[][] {
  if (!full) return [];
  const rounds = full.rounds;
  const runs = rounds.map((r) => r.run.seconds);
  const uploads = rounds.flatMap((r) =>
    r.run.uploadSeconds === undefined ? [] : [r.run.uploadSeconds],
  );
  const upload = uploads.length > 0 ? `; upload ${s(median(uploads))} median before it` : '';
  const rows = median(rounds.map((r) => r.run.rows));
  const changed = median(rounds.map((r) => r.run.counts.updated));
  const baselines = rounds.map((r) => r.baseline.seconds);
  const ratio = median(rounds.map((r) => r.baseline.seconds / r.run.seconds));
  const median_ = median(runs);
  const share = `${Math.round(sizes.changedShare * 100)} %`;
  return [
    [
      `full feed of one shop, ${count(rows)} rows (TSV), ~${share} of prices changed: applied after the upload ends (${full.submitter})`,
      `≤ ${FEED_TARGETS.fullFeedSeconds} s`,
      `${s(median_)} median (${list(runs)}); ${count(rows / median_)} rows/s, ${count(changed)} updated${upload}`,
      verdict(median_ <= FEED_TARGETS.fullFeedSeconds),
    ],
    [
      'first run of that feed (gives the shop its offers)',
      '–',
      full.first
        ? `${s(full.first.seconds)}: ${count(full.first.counts.created)} created, ${count(full.first.counts.updated)} updated, ${count(full.first.counts.withdrawn)} withdrawn`
        : 'none: the shop lists that many offers since an earlier run',
      '',
    ],
    [
      'reading alone (readFeed over the same file, nothing applied)',
      '–',
      `${s(median(rounds.map((r) => r.readSeconds)))} median; ${count(rows / median(rounds.map((r) => r.readSeconds)))} rows/s`,
      '',
    ],
    [
      'baseline: COPY into a temporary table + ANALYZE + one UPDATE … FROM (rolled back)',
      '–',
      `${s(median(baselines))} median (${list(baselines)}): COPY ${s(median(rounds.map((r) => r.baseline.copySeconds)))}, ` +
        `ANALYZE ${s(median(rounds.map((r) => r.baseline.analyzeSeconds)))}, UPDATE ${s(median(rounds.map((r) => r.baseline.updateSeconds)))}; ` +
        `${count(median(rounds.map((r) => r.baseline.updated)))} updated`,
      '',
    ],
    [
      'feed rate ÷ baseline rate (same rows, same round)',
      `≥ ${FEED_TARGETS.versusBaseline} ×`,
      `${ratio.toFixed(2)} × (median of per-round ratios)`,
      verdict(ratio >= FEED_TARGETS.versusBaseline),
    ],
  ];
}

function pushRows(results: FeedBenchResults): string[][] {
  const push = results.push;
  if (!push) return [];
  const visible = Float64Array.from(push.rounds.map((r) => r.visibleMs)).sort();
  const answered = median(push.rounds.map((r) => r.answeredMs));
  const p99 = percentile(visible, 0.99);
  return [
    [
      `a push of ${count(push.items)} items (\`POST …/items\`, no wait) visible in GraphQL and REST answers after its 202, response cache on (both answers cached before the push)`,
      `≤ ${FEED_TARGETS.pushVisibleMs / 1000} s p99`,
      `p50 ${ms(percentile(visible, 0.5))}, p99 ${ms(p99)}, max ${ms(visible[visible.length - 1]!)} over ${push.rounds.length} pushes ` +
        `(shop ${push.shopId}, polled every ${push.pollMs} ms); the 202 itself ${ms(answered)} median; ` +
        `medians of the run's own times: queued ${ms(median(push.rounds.map((r) => r.queuedMs)))}, ` +
        `applying ${ms(median(push.rounds.map((r) => r.applyingMs)))}, answers showing it ` +
        `${ms(median(push.rounds.map((r) => r.afterFinishMs)))} after its finish`,
      verdict(p99 <= FEED_TARGETS.pushVisibleMs),
    ],
  ];
}

function readsRows(results: FeedBenchResults): string[][] {
  const reads = results.reads;
  if (!reads) return [];
  const rows = reads.measurements.map(({ workload, idle, loaded }) => {
    const ratio = loaded.p99 / idle.p99;
    return [
      `${workload} p99 while feeds are applied ÷ idle p99 (${reads.connections} connections, ${reads.durationSeconds} s each)`,
      `≤ ${FEED_TARGETS.readsP99Ratio} ×`,
      `${ratio.toFixed(2)} ×: idle ${idle.p99.toFixed(1)} ms (${count(idle.requestsPerSecond)} req/s), ` +
        `loaded ${loaded.p99.toFixed(1)} ms (${count(loaded.requestsPerSecond)} req/s)` +
        (idle.failures + loaded.failures > 0 ? `; ${idle.failures + loaded.failures} failed` : ''),
      verdict(ratio <= FEED_TARGETS.readsP99Ratio),
    ];
  });
  rows.push([
    'ingestion meanwhile (full feeds through `PUT /feeds/shops/{id}?wait=true`, shops side by side)',
    '–',
    `${reads.shops} shops (${count(reads.feedRows)} rows a feed each time round), ${reads.runs} runs finished in ` +
      `${s(reads.loadedSeconds)}: ${count(reads.changes)} changes, ${count(reads.changes / reads.loadedSeconds)} changes/s`,
    '',
  ]);
  return rows;
}

export function feedTargetRows(results: FeedBenchResults, sizes: FeedBenchSizes): string[][] {
  const rows = [
    ...fullFeedRows(results.full, sizes),
    ...fullFeedRows(results.httpFull, sizes),
    ...pushRows(results),
    ...readsRows(results),
  ];
  const many = results.many;
  if (many) {
    rows.push([
      `${count(sizes.manyChanges)} offer changes across many shops (full feeds side by side)`,
      `≤ ${FEED_TARGETS.manyShopsSeconds} s`,
      `${s(many.seconds)}: ${count(many.changes)} changes (${count(many.rows)} rows) in ${many.shops} shops, ` +
        `${many.concurrency} at a time; ${count(many.changes / many.seconds)} changes/s; slowest run ${s(many.slowestRunSeconds)}`,
      verdict(many.seconds <= FEED_TARGETS.manyShopsSeconds && many.changes >= sizes.manyChanges),
    ]);
  }
  const memory = results.memory;
  if (memory) {
    const mb = memory.peakResidentBytes / 2 ** 20;
    rows.push([
      `resident set of \`npm run feed\` applying a ${count(memory.bytes / 2 ** 20)} MB feed`,
      `≤ ${FEED_TARGETS.residentMb} MB`,
      `${count(mb)} MB peak; ${count(memory.rows)} rows over ${count(memory.products)} products in ` +
        `${s(memory.seconds)} (${count(memory.counts.created)} created, ${count(memory.counts.updated)} updated, ` +
        `${count(memory.counts.unchanged)} unchanged, ${count(memory.counts.withdrawn)} withdrawn)`,
      verdict(mb <= FEED_TARGETS.residentMb),
    ]);
  }
  return rows;
}

export function feedTargetTable(results: FeedBenchResults, sizes: FeedBenchSizes): string {
  return markdownTable(['what', 'target', 'measured', 'met'], feedTargetRows(results, sizes));
}
