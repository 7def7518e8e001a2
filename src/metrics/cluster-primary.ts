/**
 * /metrics across the cluster, in the primary (WORKERS above 1): a worker's scrape is answered
 * with the figures of every serving worker and of the primary, aggregated (./aggregation.ts).
 * The primary also counts what only it sees: workers serving, workers restarted.
 *
 * A worker that does not answer within COLLECT_TIMEOUT_MS (an event loop held up) is counted
 * by the counters and histograms it last answered with; one that has died, by those for good.
 */
import cluster, { type Worker } from 'node:cluster';
import { Counter, Gauge, Registry } from 'prom-client';
import {
  cumulative,
  exposition,
  summed,
  type Figures,
  type ProcessFigures,
} from './aggregation.ts';
import { COLLECT, EXPOSITION, FIGURES, metricsMessage, SCRAPE } from './cluster-messages.ts';
import { processMetrics } from './process.ts';

export const COLLECT_TIMEOUT_MS = 5_000;

/** A worker that serves requests, and the `worker` label of its figures (its slot: 1, 2, …). */
export interface ServingWorker {
  worker: Worker;
  label: string;
}

export interface PrimaryMetrics {
  /** A worker died and another is started in its place. */
  workerRestarted(): void;
  /** A worker's process has exited: its counters stay in the sums as it last reported them. */
  workerExited(worker: Worker): void;
}

interface Collection {
  answered(worker: Worker, figures: Figures): void;
  gone(worker: Worker): void;
}

export function clusterPrimaryMetrics(serving: () => ServingWorker[]): PrimaryMetrics {
  // The primary's own process figures from its start (its event loop's lag sampled since).
  processMetrics();
  const own = new Registry();
  const restarts = new Counter({
    name: 'catalogue_worker_restarts_total',
    help: 'Workers that died and were started again by the primary.',
    registers: [own],
  });
  new Gauge({
    name: 'catalogue_workers',
    help: 'Workers serving requests now.',
    registers: [own],
    collect() {
      this.set(serving().length);
    },
  });

  /** Each live worker's counters and histograms as it last reported them. */
  const lastSeen = new Map<Worker, Figures>();
  /** The counters and histograms of the workers gone, summed. */
  let retired: Figures = [];
  const gone = new WeakSet<Worker>();
  const collections = new Map<number, Collection>();
  let nextId = 0;

  function collect(workers: Worker[]): Promise<Map<Worker, Figures>> {
    const id = nextId++;
    const received = new Map<Worker, Figures>();
    const pending = new Set(workers.filter((worker) => worker.isConnected()));
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        collections.delete(id);
        resolve(received);
      };
      const settled = (worker: Worker) => {
        pending.delete(worker);
        if (pending.size === 0) done();
      };
      const timer = setTimeout(done, COLLECT_TIMEOUT_MS);
      collections.set(id, {
        answered(worker, figures) {
          received.set(worker, figures);
          settled(worker);
        },
        gone: settled,
      });
      if (pending.size === 0) done();
      for (const worker of pending) {
        worker.send({ type: COLLECT, id }, (error: Error | null) => error && settled(worker));
      }
    });
  }

  async function aggregate(): Promise<string> {
    const workers = serving();
    const primary = (
      await Promise.all([own, processMetrics()].map((r) => r.getMetricsAsJSON()))
    ).flat();
    const received = await collect(workers.map(({ worker }) => worker));
    // From here on at once: a worker that exits meanwhile is either here or in `retired`.
    const processes: ProcessFigures[] = [{ label: 'primary', figures: primary }];
    for (const { worker, label } of workers) {
      const figures = gone.has(worker) ? undefined : (received.get(worker) ?? lastSeen.get(worker));
      if (figures) processes.push({ label, figures });
    }
    return exposition(processes, retired);
  }

  cluster.on('message', (worker, message) => {
    const received = metricsMessage(message);
    if (received?.type === SCRAPE) {
      const answer = (outcome: { text: string } | { error: string }) => {
        if (worker.isConnected()) worker.send({ type: EXPOSITION, id: received.id, ...outcome });
      };
      aggregate().then(
        (text) => answer({ text }),
        (error: Error) => answer({ error: error.message }),
      );
    } else if (received?.type === FIGURES && !gone.has(worker)) {
      lastSeen.set(worker, cumulative(received.figures));
      collections.get(received.id)?.answered(worker, received.figures);
    }
  });

  return {
    workerRestarted: () => restarts.inc(),
    workerExited(worker) {
      gone.add(worker);
      retired = summed([retired, lastSeen.get(worker) ?? []]);
      lastSeen.delete(worker);
      for (const collection of collections.values()) collection.gone(worker);
    },
  };
}
