/**
 * The feed benchmark's results against performance.md's feed targets, as a Markdown table
 * (pasted as is into docs/benchmarks.md): what, the target, what was measured, met.
 */
import { markdownTable, median } from '../report.ts';
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
};

function fullFeedRows(results: FeedBenchResults, sizes: FeedBenchSizes): string[][] {
  const full = results.full;
  if (!full) return [];
  const rounds = full.rounds;
  const runs = rounds.map((r) => r.run.seconds);
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
      `${s(median_)} median (${list(runs)}); ${count(rows / median_)} rows/s, ${count(changed)} updated`,
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

export function feedTargetRows(results: FeedBenchResults, sizes: FeedBenchSizes): string[][] {
  const rows = fullFeedRows(results, sizes);
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
