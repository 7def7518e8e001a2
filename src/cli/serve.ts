/**
 * `serve`: bind the port first (a port already taken fails at once, before any migration or
 * seeding), answer "starting" on it while the database is prepared, then serve the app until
 * SIGTERM or SIGINT, which stop it gracefully (src/cli/shutdown.ts). With WORKERS above 1,
 * this process forks that many of these instead (src/cli/workers.ts), and each binds the
 * shared port only once it can serve.
 */
import cluster from 'node:cluster';
import { createServer, type Server } from 'node:http';
import { createApp } from '../app.ts';
import type { Config } from '../config.ts';
import { prepareDatabase } from '../db/bootstrap.ts';
import { warnOfConnectionBudget } from '../db/connection-budget.ts';
import type { Logger } from '../logger.ts';
import { startCatalogueClock } from './catalogue-clock.ts';
import { LISTEN_BACKLOG, trackConnections } from './connection-drain.ts';
import { startOutboxPruning } from './outbox-pruning.ts';
import { openCommandDatabase } from './database.ts';
import { CommandError } from './errors.ts';
import { createStartupResponder } from './startup-responder.ts';
import { stopOnSignals } from './shutdown.ts';
import {
  announceReady,
  followWorkerFaults,
  speaksForTheService,
  superviseWorkersToTheEnd,
} from './workers.ts';

export async function serve(config: Config, logger: Logger): Promise<void> {
  if (config.workers > 1 && cluster.isPrimary) return superviseWorkersToTheEnd(config, logger);
  const startedAt = performance.now();
  const startup = createStartupResponder();
  const server = createServer(startup.listener);
  const connections = trackConnections(server);
  // A worker (WORKERS above 1) shares the port: it takes connections only once it can serve
  // them, or while it starts it would answer its share 503 that the others could serve.
  const listenFirst = !cluster.isWorker;
  if (listenFirst) {
    await listen(server, config);
    logger.info({ port: boundPort(server, config) }, 'port bound; preparing the database');
  }

  const database = await openCommandDatabase(config, logger, 'serve');
  await prepareDatabase(database, config, logger, {
    onStep: startup.setStep,
    progress: process.stderr,
  });
  // The catalogue as of now, not as of its seed (docs/api.md, "Clock"), on the primary.
  const clock = config.catalogueClock ? startCatalogueClock(database.db, logger) : undefined;
  if (speaksForTheService()) await warnOfConnectionBudget(database, config, logger);
  const app = createApp({
    config,
    database,
    logger,
    draining: () => connections.draining,
    workerFault: followWorkerFaults(),
  });
  server.off('request', startup.listener).on('request', app).on('upgrade', app.upgrade);
  const pruning = startOutboxPruning(database.db, config.changesRetentionDays, logger);
  // A queue that cannot start yet retries on its own (src/feeds/run-queue.ts): serving goes on.
  await app.startFeedRuns().catch(() => {});
  if (!listenFirst) await listen(server, config);
  const port = boundPort(server, config);
  logger.info(
    {
      port,
      graphql: `http://localhost:${port}/graphql`,
      ms: Math.round(performance.now() - startedAt),
    },
    'listening',
  );
  announceReady();

  stopOnSignals({
    config,
    logger,
    connections,
    app,
    database,
    upkeep: { stopAtSignal: () => pruning.stop(), stopBeforeClosing: () => clock?.stop() },
  });
}

function boundPort(server: Server, config: Config): number {
  const address = server.address();
  return typeof address === 'object' && address ? address.port : config.port;
}

/** Binds HOST:PORT, or fails with a CommandError saying why in one line. */
function listen(server: Server, config: Config): Promise<void> {
  const where = `${config.host}:${config.port}`;
  return new Promise((resolve, reject) => {
    const fail = (error: NodeJS.ErrnoException) => {
      const reasons: Record<string, string> = {
        EADDRINUSE: `port ${config.port} is already in use (another process listens on ${where}); stop it or set PORT`,
        EACCES: `not permitted to listen on ${where} (ports below 1024 need privileges); set PORT`,
        EADDRNOTAVAIL: `cannot listen on ${where}: no such address on this machine; set HOST`,
      };
      reject(
        new CommandError(
          reasons[error.code ?? ''] ?? `cannot listen on ${where}: ${error.message}`,
        ),
      );
    };
    server.once('error', fail);
    server.listen({ port: config.port, host: config.host, backlog: LISTEN_BACKLOG }, () => {
      server.off('error', fail);
      resolve();
    });
  });
}
