/**
 * `serve` with WORKERS=N: this process (the cluster primary) forks N workers, each an ordinary
 * `serve` (src/cli/serve.ts) sharing the port through Node's cluster module, and watches them.
 * Every worker prepares the database as a single process does: migrations take the migrator's
 * lock, seeding its own (src/db/bootstrap.ts), so one does the work and the others find it
 * done. The primary holds no state and opens no database.
 *
 * A worker that fails before the first start is complete (a taken port, a database that does
 * not answer) stops the service with exit 1, as a single process would; one that dies later is
 * restarted, after a pause that doubles while workers keep dying. SIGTERM or SIGINT reaches
 * every worker, each drains as a single process does, and the primary leaves once they are all
 * gone: 0 when every worker left cleanly, else 1.
 *
 * Each worker has a slot (1 to N) that a replacement takes over: its `worker` label in the
 * metrics the primary sums across the workers (src/metrics/cluster-primary.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { clusterPrimaryMetrics } from '../metrics/cluster-primary.ts';

/** What a worker tells the primary once it serves requests. */
const READY_MESSAGE = 'catalogue:worker-ready';

/** The first restart's pause; each death within RESTART_MEMORY_MS doubles it, up to the most. */
export const RESTART_DELAY_MS = 500;
const RESTART_DELAY_MAX_MS = 30_000;
/** How long a death counts towards the pause: a worker up this long has proved the fix. */
const RESTART_MEMORY_MS = 60_000;

/** Called by a worker once it serves requests; nothing in a process of its own. */
export function announceReady(): void {
  if (cluster.isWorker) process.send?.(READY_MESSAGE);
}

/** In a worker: calls `stop` when the primary has gone (killed outright), so none is orphaned. */
export function onPrimaryGone(stop: () => void): void {
  if (cluster.isWorker) process.on('disconnect', stop);
}

export function superviseWorkers(config: Config, logger: Logger): Promise<number> {
  /** Each worker's slot, and whether it serves requests yet. */
  const slots = new Map<Worker, { slot: number; ready: boolean }>();
  const ready = () => [...slots].filter(([, { ready }]) => ready);
  const metrics = clusterPrimaryMetrics(() =>
    ready().map(([worker, { slot }]) => ({ worker, label: String(slot) })),
  );
  // Metrics cross as structured clones: a figure may be NaN or infinite, which JSON loses.
  cluster.setupPrimary({ serialization: 'advanced' });
  let started = false;
  let stopping = false;
  let exitCode = 0;
  let recentDeaths: number[] = [];
  const pendingRestarts = new Set<NodeJS.Timeout>();

  const fork = (slot: number) => {
    const worker = cluster.fork();
    slots.set(worker, { slot, ready: false });
    worker.on('message', (message) => {
      if (message !== READY_MESSAGE) return;
      slots.set(worker, { slot, ready: true });
      if (!started && ready().length === config.workers) {
        started = true;
        logger.info({ workers: config.workers }, 'all workers listening');
      }
    });
  };

  const restartDelay = () => {
    const now = Date.now();
    recentDeaths = [...recentDeaths.filter((at) => now - at < RESTART_MEMORY_MS), now];
    return Math.min(RESTART_DELAY_MAX_MS, RESTART_DELAY_MS * 2 ** (recentDeaths.length - 1));
  };

  return new Promise((resolve) => {
    const workersLeft = () => Object.keys(cluster.workers ?? {}).length;
    const stopAll = (signal: NodeJS.Signals) => {
      stopping = true;
      for (const timer of pendingRestarts) clearTimeout(timer);
      for (const worker of Object.values(cluster.workers ?? {})) worker?.process.kill(signal);
      if (workersLeft() === 0) resolve(exitCode);
    };

    cluster.on('exit', (worker, code, signal) => {
      const { slot, ready: wasReady } = slots.get(worker)!;
      slots.delete(worker);
      metrics.workerExited(worker);
      const pid = worker.process.pid;
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (workersLeft() === 0) resolve(exitCode);
        return;
      }
      if (!started && !wasReady) {
        logger.error({ pid, code, signal }, 'a worker failed to start; stopping the others');
        exitCode = 1;
        stopAll('SIGTERM');
        return;
      }
      const delayMs = restartDelay();
      logger.error({ pid, code, signal, restartInMs: delayMs }, 'a worker died; restarting it');
      const timer = setTimeout(() => {
        pendingRestarts.delete(timer);
        metrics.workerRestarted();
        fork(slot);
      }, delayMs);
      pendingRestarts.add(timer);
    });

    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.on(signal, () => {
        if (stopping) return;
        logger.info({ signal, workers: workersLeft() }, 'shutting down the workers');
        stopAll(signal);
      });
    }

    logger.info({ workers: config.workers }, 'starting workers');
    for (let slot = 1; slot <= config.workers; slot++) fork(slot);
  });
}
