/**
 * Reads during heavy ingestion (performance.md: p99 of W1 and W4 ≤ 2 × their idle p99): the
 * workloads of `npm run bench` (bench/workloads.ts, driven by bench/load.ts's autocannon) on
 * a gateway with the response cache off, first idle, then for as long again while `shops`
 * shops' full feeds are applied one after another through `PUT /feeds/shops/{id}?wait=true`
 * (one upload at a time per shop, the shops side by side; each feed moves a share of the
 * shop's prices, the next moves them back), on the same process's feed workers.
 */
import path from 'node:path';
import type pg from 'pg';
import { productsRoute } from '../../src/rest/routes/products.ts';
import { runLoad, type LoadResult } from '../load.ts';
import { restOperation } from '../rest-document.ts';
import type { RunningSystem } from '../systems.ts';
import { MARKET, readWorkloadInputs, workloads, type Workload } from '../workloads.ts';
import { writeShopFeed } from './feed-files.ts';
import { appliedCounts, type Submitter } from './submit.ts';

export const READ_WORKLOADS = ['W1', 'W4-rest', 'W4-graphql'] as const;

export interface ReadsSpec {
  /** Shops whose feeds are applied side by side. */
  shops: number[];
  changedShare: number;
  durationSeconds: number;
  connections: number;
}

export interface ReadMeasurement {
  workload: string;
  idle: LoadResult;
  loaded: LoadResult;
}

export interface ReadsResult {
  shops: number;
  /** Listed offers of those shops together (rows of one feed each). */
  feedRows: number;
  durationSeconds: number;
  connections: number;
  measurements: ReadMeasurement[];
  /** Runs that finished while the loaded measurements ran, and their changes. */
  runs: number;
  changes: number;
  loadedSeconds: number;
}

/** The shops for the ingestion: the largest listing at most `maxOffers`, less `exclude`. */
export async function ingestionShops(
  client: pg.ClientBase,
  count: number,
  maxOffers: number,
  exclude: number[],
): Promise<number[]> {
  const { rows } = await client.query<{ shop_id: number }>(
    `select shop_id from offers
      where withdrawn_at is null and not (shop_id = any($1::integer[]))
      group by shop_id having count(*) <= $2 order by count(*) desc, shop_id limit $3`,
    [exclude, maxOffers, count],
  );
  return rows.map((row) => row.shop_id);
}

interface Ingestion {
  /** Runs finished from `from` to `to` (performance.now()), and their changes. */
  between(from: number, to: number): { runs: number; changes: number };
  /** Resolves once a first run has finished. */
  started: Promise<void>;
  stop(): Promise<void>;
}

/** Applies each shop's two feeds in turn, the shops side by side, until stopped. */
function ingest(submitter: Submitter, feeds: { shopId: number; files: string[] }[]): Ingestion {
  const finished: { at: number; changes: number }[] = [];
  let stopped = false;
  let markStarted!: () => void;
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  // A failure stops every loop after its run; stop() throws it once all have stopped.
  const failures: unknown[] = [];
  const loops = feeds.map(async ({ shopId, files }) => {
    for (let turn = 0; !stopped; turn++) {
      try {
        const { report } = await submitter.submit({ shopId, file: files[turn % files.length]! });
        const counts = appliedCounts(report, `shop ${shopId}`);
        finished.push({
          at: performance.now(),
          changes: counts.created + counts.updated + counts.withdrawn,
        });
      } catch (error) {
        failures.push(error);
        stopped = true;
      }
      markStarted();
    }
  });
  const all = Promise.all(loops);
  return {
    between: (from, to) => {
      const runs = finished.filter((run) => run.at >= from && run.at <= to);
      return { runs: runs.length, changes: runs.reduce((sum, run) => sum + run.changes, 0) };
    },
    started,
    async stop() {
      stopped = true;
      await all;
      if (failures.length > 0) throw failures[0];
    },
  };
}

async function measureAll(
  gateway: RunningSystem,
  chosen: Workload[],
  spec: ReadsSpec,
): Promise<LoadResult[]> {
  const results: LoadResult[] = [];
  for (const workload of chosen) {
    results.push(
      await runLoad({
        baseUrl: gateway.baseUrl,
        requests: workload.requests,
        token: '',
        connections: spec.connections,
        durationSeconds: spec.durationSeconds,
      }),
    );
  }
  return results;
}

export async function measureReadsDuringIngestion(
  client: pg.ClientBase,
  gateway: RunningSystem,
  submitter: Submitter,
  directory: string,
  spec: ReadsSpec,
  log: (line: string) => void,
): Promise<ReadsResult> {
  const all = workloads(
    await readWorkloadInputs(client),
    restOperation(productsRoute, `/products?market=${MARKET}&limit=15`),
  );
  const chosen = READ_WORKLOADS.map((id) => all.find((w) => w.id === id)!);
  const feeds = [];
  let feedRows = 0;
  for (const shopId of spec.shops) {
    const files = [];
    for (const [index, changedShare] of [spec.changedShare, 0].entries()) {
      const file = path.join(directory, `reads-${shopId}-${index}.tsv`);
      const feed = await writeShopFeed(client, { shopId, changedShare, salt: 'reads' }, file);
      if (index === 0) feedRows += feed.rows;
      files.push(file);
    }
    feeds.push({ shopId, files });
  }
  // Warm up (a JIT's first requests, the pool's connections), as `npm run bench` does.
  await measureAll(gateway, chosen, {
    ...spec,
    durationSeconds: Math.min(2, spec.durationSeconds),
  });
  const idle = await measureAll(gateway, chosen, spec);
  log(
    `reads: idle p99 ${idle.map((r, i) => `${chosen[i]!.id} ${r.p99.toFixed(1)} ms`).join(', ')}; ` +
      `now applying ${spec.shops.length} shops' feeds (${feedRows} rows) side by side`,
  );
  const ingestion = ingest(submitter, feeds);
  let loaded: LoadResult[];
  let from: number;
  let to: number;
  try {
    await ingestion.started;
    from = performance.now();
    loaded = await measureAll(gateway, chosen, spec);
    to = performance.now();
  } finally {
    await ingestion.stop();
  }
  const { runs, changes } = ingestion.between(from, to);
  const loadedSeconds = (to - from) / 1000;
  log(
    `reads: loaded p99 ${loaded.map((r, i) => `${chosen[i]!.id} ${r.p99.toFixed(1)} ms`).join(', ')}; ` +
      `${runs} runs, ${changes} changes meanwhile`,
  );
  return {
    shops: spec.shops.length,
    feedRows,
    durationSeconds: spec.durationSeconds,
    connections: spec.connections,
    measurements: chosen.map((w, i) => ({ workload: w.id, idle: idle[i]!, loaded: loaded[i]! })),
    runs,
    changes,
    loadedSeconds,
  };
}
