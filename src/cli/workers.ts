/**
 * `serve` with WORKERS=N: this process (the cluster primary) forks N workers, each an ordinary
 * `serve` (src/cli/serve.ts) sharing the port through Node's cluster module, and watches them.
 * Every worker prepares the database as a single process does: migrations take the migrator's
 * lock, seeding its own (src/db/bootstrap.ts), so one does the work and the others find it
 * done. The primary holds no state and opens no database.
 *
 * A worker that fails before the first start is complete (a taken port, a database that does
 * not answer) stops the service with exit 1, as a single process would; one that dies later is
 * restarted, after a pause that doubles while workers keep dying. A replacement that fails to
 * start (a schema it cannot run on, say) is not hidden behind the workers still serving: the
 * primary tells them, and their /readyz answers 503 with the reason the failing worker logged,
 * until a replacement in its place serves. SIGTERM or SIGINT reaches every worker, each drains
 * as a single process does, and the primary leaves once they are all gone: 0 when every
 * worker left cleanly, else 1.
 *
 * Each worker has a place (1 to N) that a replacement takes over: its `worker` label in the
 * metrics the primary sums across the workers (src/metrics/cluster-primary.ts).
 */
import cluster, { type Worker } from 'node:cluster';
import type { Config } from '../config.ts';
import type { WorkerFault } from '../http/readiness.ts';
import { afterLastLine, type Logger } from '../logger.ts';
import { clusterPrimaryMetrics } from '../metrics/cluster-primary.ts';

/** What a worker tells the primary once it serves requests. */
const READY_MESSAGE = 'catalogue:worker-ready';
/** What a worker tells the primary as it ends on a failure: the reason it logged. */
const ENDING_MESSAGE = 'catalogue:worker-ending';
/** What the primary tells serving workers whenever a worker's start fails or succeeds again. */
const FAULT_MESSAGE = 'catalogue:worker-fault';

/** The first restart's pause; each death within RESTART_MEMORY_MS doubles it, up to the most. */
export const RESTART_DELAY_MS = 500;
const RESTART_DELAY_MAX_MS = 30_000;
/** How long a death counts towards the pause: a worker up this long has proved the fix. */
const RESTART_MEMORY_MS = 60_000;

/** Called by a worker once it serves requests; nothing in a process of its own. */
export function announceReady(): void {
  if (cluster.isWorker) process.send?.(READY_MESSAGE);
}

/**
 * Whether this process says what is said once for the whole service at its start: a process
 * of its own does, and of the workers the first one forked (a replacement has a new id).
 */
export function speaksForTheService(): boolean {
  return !cluster.isWorker || cluster.worker?.id === 1;
}

/** In a worker: calls `stop` when the primary has gone (killed outright), so none is orphaned. */
export function onPrimaryGone(stop: () => void): void {
  if (cluster.isWorker) process.on('disconnect', stop);
}

/** In a worker: tells the primary why it ends; settles at once in a process of its own. */
export function tellPrimaryWhyThisWorkerEnds(reason: string): Promise<void> {
  if (!cluster.isWorker || !process.connected) return Promise.resolve();
  return new Promise((resolve) =>
    process.send!({ kind: ENDING_MESSAGE, reason }, undefined, undefined, () => resolve()),
  );
}

/**
 * In a worker: what the primary last told about other workers failing to start (undefined
 * while none fails, and always in a process of its own).
 */
export function followWorkerFaults(): () => WorkerFault | undefined {
  let fault: WorkerFault | undefined;
  if (cluster.isWorker) {
    process.on('message', (message: { kind?: string; fault?: WorkerFault | null }) => {
      if (message?.kind === FAULT_MESSAGE) fault = message.fault ?? undefined;
    });
  }
  return () => fault;
}

/**
 * The primary's record of failed starts, by worker place (a replacement takes its dead
 * predecessor's place): a place whose last start failed counts until a worker there serves.
 */
function createStartFailures(logger: Logger, serving: () => Iterable<Worker>) {
  const failing = new Set<number>();
  let fault: WorkerFault | undefined;
  const tell = (worker: Worker) => {
    if (worker.isConnected()) worker.send({ kind: FAULT_MESSAGE, fault: fault ?? null });
  };
  return {
    failed(place: number, last: WorkerFault['last']) {
      failing.add(place);
      fault = {
        workersNotStarting: failing.size,
        failedStarts: (fault?.failedStarts ?? 0) + 1,
        since: fault?.since ?? new Date().toISOString(),
        last,
      };
      for (const worker of serving()) tell(worker);
    },
    /** A worker serves in `place`; tells it (and, when a place recovered, every worker). */
    serves(place: number, worker: Worker) {
      if (!failing.delete(place)) return tell(worker);
      fault = failing.size === 0 ? undefined : { ...fault!, workersNotStarting: failing.size };
      if (fault === undefined) logger.info('a worker started again: every worker serves');
      for (const each of serving()) tell(each);
    },
  };
}

/** The primary's whole life: the workers supervised until they have all stopped, then exit. */
export async function superviseWorkersToTheEnd(config: Config, logger: Logger): Promise<void> {
  const code = await superviseWorkers(config, logger);
  logger.info({ code }, 'every worker has stopped');
  afterLastLine(logger, () => process.exit(code));
}

function superviseWorkers(config: Config, logger: Logger): Promise<number> {
  const ready = new Set<Worker>();
  const places = new Map<Worker, number>();
  const endings = new Map<Worker, string>();
  const startFailures = createStartFailures(logger, () => ready);
  const metrics = clusterPrimaryMetrics(() =>
    [...ready].map((worker) => ({ worker, label: String(places.get(worker)) })),
  );
  // Metrics cross as structured clones: a figure may be NaN or infinite, which JSON loses.
  cluster.setupPrimary({ serialization: 'advanced' });
  let started = false;
  let stopping = false;
  let exitCode = 0;
  let recentDeaths: number[] = [];
  const pendingRestarts = new Set<NodeJS.Timeout>();

  const fork = (place: number) => {
    const worker = cluster.fork();
    places.set(worker, place);
    worker.on('message', (message: unknown) => {
      const ending = message as { kind?: string; reason?: string };
      if (ending?.kind === ENDING_MESSAGE) endings.set(worker, String(ending.reason));
      if (message !== READY_MESSAGE) return;
      ready.add(worker);
      startFailures.serves(place, worker);
      if (!started && ready.size === config.workers) {
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
      const wasReady = ready.delete(worker);
      const place = places.get(worker)!;
      const reason = endings.get(worker);
      places.delete(worker);
      endings.delete(worker);
      metrics.workerExited(worker);
      const exit = { workerPid: worker.process.pid, code, signal, reason };
      if (stopping) {
        if (code !== 0) exitCode = 1;
        if (workersLeft() === 0) resolve(exitCode);
        return;
      }
      if (!started && !wasReady) {
        logger.error(exit, 'a worker failed to start; stopping the others');
        exitCode = 1;
        stopAll('SIGTERM');
        return;
      }
      const delayMs = restartDelay();
      if (wasReady) {
        logger.error({ ...exit, restartInMs: delayMs }, 'a worker died; restarting it');
      } else {
        startFailures.failed(place, exit);
        logger.error({ ...exit, restartInMs: delayMs }, 'a worker failed to start; restarting it');
      }
      const timer = setTimeout(() => {
        pendingRestarts.delete(timer);
        metrics.workerRestarted();
        fork(place);
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
    for (let place = 1; place <= config.workers; place++) fork(place);
  });
}
