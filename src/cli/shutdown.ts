/**
 * How a serving process stops (docs/operations.md, "Shutdown"). SIGTERM turns /readyz 503 and
 * has answers close their connections, and the process keeps serving for
 * SHUTDOWN_GRACE_SECONDS, the time a load balancer takes to stop sending to it; SIGINT (an
 * operator at a terminal), a lost cluster primary and a second signal skip that wait. Then
 * the drain, bounded by SHUTDOWN_DRAIN_SECONDS: every live stream completed, no new
 * connections, every request already accepted answered (src/cli/connection-drain.ts), feed
 * runs finished or handed back, the database closed, exit 0; or, when the time runs out
 * first, what was still in flight logged and exit 1.
 */
import type { App } from '../app.ts';
import type { Config } from '../config.ts';
import type { DatabaseHandle } from '../db/client.ts';
import { afterLastLine, type Logger } from '../logger.ts';
import type { ConnectionDrain } from './connection-drain.ts';
import { onPrimaryGone } from './workers.ts';

export interface ServingProcess {
  config: Config;
  logger: Logger;
  connections: ConnectionDrain;
  app: App;
  database: DatabaseHandle;
  /** The process's upkeep (outbox pruning, the catalogue clock), stopped along the way. */
  upkeep: { stopAtSignal(): void; stopBeforeClosing(): void };
}

interface Grace {
  /** Settles once the grace has run its time, or been cut short. */
  over: Promise<void>;
  cut(): void;
}

/**
 * The time a shutdown keeps serving before its drain: at least `seconds` by the monotonic
 * clock (a timer may fire a little early by it, the event loop's clock being cached).
 */
function startGrace(seconds: number): Grace {
  let cut = () => {};
  const over = new Promise<void>((resolve) => {
    const endsAt = performance.now() + seconds * 1000;
    let timer: NodeJS.Timeout;
    const untilEnd = () => {
      const leftMs = endsAt - performance.now();
      if (leftMs <= 0) resolve();
      else timer = setTimeout(untilEnd, Math.ceil(leftMs));
    };
    timer = setTimeout(untilEnd, seconds * 1000);
    cut = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  return { over, cut };
}

export function stopOnSignals(serving: ServingProcess): void {
  const { config, logger, connections } = serving;
  let grace: Grace | undefined;
  const stop = async (signal: string) => {
    // A second signal while the first waits out the grace: the operator wants it over now.
    if (grace) return grace.cut();
    const stoppingAt = performance.now();
    const graceSeconds = signal === 'SIGTERM' ? config.shutdownGraceSeconds : 0;
    // Logged before the grace starts: the line's time is when the grace began, at the latest.
    logger.info(
      { signal, graceSeconds, drainSeconds: config.shutdownDrainSeconds },
      'shutting down',
    );
    grace = startGrace(graceSeconds);
    connections.beginShutdown();
    serving.upkeep.stopAtSignal();
    await grace.over;
    logger.info(
      {
        graceMs: Math.round(performance.now() - stoppingAt),
        requestsInFlight: connections.inFlight().length,
      },
      'draining',
    );
    const code = await drain(serving);
    if (code === 0) {
      logger.info(
        {
          ms: Math.round(performance.now() - stoppingAt),
          answeredWhileDraining: connections.answeredWhileDraining(),
        },
        'stopped',
      );
    }
    // Exits once the log lines are written (pino-pretty's worker thread too).
    afterLastLine(logger, () => process.exit(code));
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
  onPrimaryGone(() => void stop('primary gone'));
}

/** The drain after the grace: 0 once everything has closed in time, else 1. */
function drain({ config, logger, connections, app, database, upkeep }: ServingProcess) {
  const drainMs = config.shutdownDrainSeconds * 1000;
  let waitingFor = 'subscriptions to complete';
  return new Promise<number>((resolve) => {
    const timer = setTimeout(() => {
      logger.error(
        { waitingFor, inFlight: connections.inFlight() },
        `drain time of ${config.shutdownDrainSeconds} s ran out; exiting`,
      );
      connections.destroyAll();
      resolve(1);
    }, drainMs);
    const steps = async () => {
      // Subscriptions end first: an open stream is a request the drain would wait for.
      await app.completeSubscriptions();
      waitingFor = 'requests in flight';
      // Half the drain time at most for accepting, the other half for answering.
      await connections.drain(
        (counts) => logger.info(counts, 'stopped accepting connections'),
        drainMs / 2,
      );
      waitingFor = 'feed runs to finish or go back to the queue';
      await app.stopFeedRuns(drainMs / 2);
      waitingFor = 'the database to close';
      upkeep.stopBeforeClosing();
      try {
        // The app's own connections first (Redis, the catalogue changes listener).
        await app.dispose();
        await database.close();
        return 0;
      } catch (error) {
        logger.error({ err: error }, 'closing the database failed');
        return 1;
      }
    };
    void steps().then((code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}
