/**
 * `/readyz`: ready when the database answers, every migration has been applied, every table
 * is there and, with WORKERS above 1, no worker fails to start. Never a 500: whatever fails
 * here, a load balancer should stop sending.
 *
 * With replicas, ready means reads are served (docs/operations.md, "Read replicas"): a primary
 * that cannot be reached while a replica serves leaves the process ready, `read-only` in the
 * body, since every read still goes to the replica; only writes (feed runs, token requests)
 * fail meanwhile. Taking the process out would take every read with it.
 */
import type { Kysely } from 'kysely';
import type { DatabaseHandle } from '../db/client.ts';
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import { pendingMigrations } from '../db/migrator.ts';
import { missingRelations } from '../db/relations.ts';
import type { Database } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import { jsonAnswer, operational, type OpenApiPaths } from '../openapi/vocabulary.ts';
import { jsonResponse } from '../responses.ts';

export const READINESS_PATH = '/readyz';

export interface ReadinessDependencies {
  database: DatabaseHandle;
  logger: Logger;
  /** True once the process is shutting down: accepted requests are still answered. */
  draining?: () => boolean;
  /** With WORKERS above 1, workers that cannot start, as the primary last told. */
  workerFault?: () => WorkerFault | undefined;
}

/** Workers that cannot start (src/cli/workers.ts): what /readyz reports of them. */
export interface WorkerFault {
  /** How many workers' places have no worker serving, their last start having failed. */
  workersNotStarting: number;
  /** Failed starts since the first of them. */
  failedStarts: number;
  since: string;
  /** The last failed start: the worker's process, its exit, and its reason as it logged it. */
  last: { workerPid?: number; code: number | null; signal: string | null; reason?: string };
}

/** Why the database behind `db` cannot serve: a 503 answer, or undefined when it can. */
async function unservable(db: Kysely<Database>, logger: Logger): Promise<Response | undefined> {
  const pending = await pendingMigrations(db);
  if (pending.length > 0) {
    return jsonResponse(503, { status: 'migrating', pendingMigrations: pending });
  }
  const missing = await missingRelations(db);
  if (missing.length === 0) return undefined;
  logger.warn({ missing }, 'readiness check failed: tables missing');
  return jsonResponse(503, { status: 'unavailable', reason: 'tables missing', missing });
}

/** The primary's outages as readiness sees them, logged once each. */
function primaryOutages(logger: Logger) {
  let down = false;
  return {
    down(reason: string): void {
      if (down) return;
      down = true;
      logger.warn(
        { reason },
        'readiness: the primary is unreachable; reads are served by the replicas, writes fail meanwhile',
      );
    },
    up(): void {
      if (!down) return;
      down = false;
      logger.info('readiness: the primary answers again; writes are served');
    },
  };
}

export function createReadiness({
  database,
  logger,
  draining,
  workerFault,
}: ReadinessDependencies) {
  const primary = primaryOutages(logger);
  const withReplicas = database.databases().length > 1;

  /** Ready on the replicas while the primary is unreachable: undefined when none serves. */
  async function readOnly(primaryFailure: string): Promise<Response | undefined> {
    const databases = database.databases();
    if (!databases.some(({ state }) => state === 'serving')) return undefined;
    // Through the routed reads: a replica that serves answers, as it does for requests.
    const refused = await unservable(database.reads, logger);
    if (refused !== undefined) return refused;
    primary.down(primaryFailure);
    return jsonResponse(200, {
      status: 'read-only',
      database: database.kind,
      reason: `the primary is unreachable (${primaryFailure}): reads are served, writes fail`,
      databases: databases.map((status) =>
        status.role === 'primary'
          ? { ...status, state: 'unreachable', reason: primaryFailure }
          : status,
      ),
    });
  }

  return async function readiness(): Promise<Response> {
    if (draining?.()) return jsonResponse(503, { status: 'draining' });
    // The workers still serving answer for the one that cannot start, or nobody would see it.
    const fault = workerFault?.();
    if (fault) {
      return jsonResponse(503, {
        status: 'unavailable',
        reason: 'a worker cannot start',
        worker: fault,
      });
    }
    try {
      const refused = await unservable(database.db, logger);
      if (refused !== undefined) return refused;
      primary.up();
      return jsonResponse(200, {
        status: 'ready',
        database: database.kind,
        // With replicas, each server's state; one out of service leaves the process ready, as
        // its reads go to the primary.
        ...(withReplicas ? { databases: database.databases() } : {}),
      });
    } catch (error) {
      const failure = withReplicas ? databaseConnectionFailure(error) : undefined;
      const onReplicas =
        failure === undefined ? undefined : await readOnly(failure).catch(() => undefined);
      if (onReplicas !== undefined) return onReplicas;
      logger.warn({ err: error }, 'readiness check failed');
      return jsonResponse(503, { status: 'unavailable', reason: 'database unreachable' });
    }
  };
}

export const READINESS_OPENAPI: OpenApiPaths = {
  [READINESS_PATH]: {
    get: operational(
      'readyz',
      'Readiness',
      'Ready when the database answers, every migration has been applied, every table is there and, with WORKERS above 1, every worker starts. With replicas, ready while reads are served: a primary that cannot be reached while a replica serves is `read-only`, still 200.',
      {
        '200': jsonAnswer(
          'Ready: `ready`, or with replicas `read-only` (the primary unreachable: reads are served by a replica, writes fail with 503).',
          {
            type: 'object',
            required: ['status', 'database'],
            properties: {
              status: { enum: ['ready', 'read-only'] },
              database: { type: 'string' },
              reason: { type: 'string', description: 'Why the process is `read-only`.' },
              databases: {
                description:
                  'With DATABASE_REPLICA_URLS, each database server: the primary (`unreachable` with its reason when `read-only`), and every replica with whether it serves reads and its lag.',
                type: 'array',
                items: {
                  type: 'object',
                  required: ['name', 'role', 'statements'],
                  properties: {
                    name: { type: 'string' },
                    role: { enum: ['primary', 'replica'] },
                    statements: { type: 'integer' },
                    state: {
                      enum: ['unchecked', 'serving', 'lagging', 'unreachable', 'not-a-standby'],
                    },
                    lagMs: { type: ['integer', 'null'] },
                    reason: { type: 'string' },
                  },
                },
              },
            },
          },
        ),
        '503': jsonAnswer(
          'Not ready: migrations pending, tables missing, the database unreachable, a worker that cannot start (WORKERS above 1), or the process shutting down (`draining`: it serves on for its grace, then answers the requests it has accepted).',
          {
            type: 'object',
            required: ['status'],
            properties: {
              status: { enum: ['migrating', 'unavailable', 'draining'] },
              pendingMigrations: { type: 'array', items: { type: 'string' } },
              reason: { type: 'string' },
              missing: { type: 'array', items: { type: 'string' } },
              worker: {
                description:
                  'With WORKERS above 1, when a worker cannot start (reason `a worker cannot start`): how many places have no worker serving, the failed starts since when, and the last one: its process, exit code or signal, and the reason it logged.',
                type: 'object',
                required: ['workersNotStarting', 'failedStarts', 'since', 'last'],
                properties: {
                  workersNotStarting: { type: 'integer' },
                  failedStarts: { type: 'integer' },
                  since: {
                    type: 'string',
                    description: 'When the first of them failed (ISO 8601).',
                  },
                  last: {
                    type: 'object',
                    required: ['code', 'signal'],
                    properties: {
                      workerPid: { type: 'integer' },
                      code: { type: ['integer', 'null'] },
                      signal: { type: ['string', 'null'] },
                      reason: { type: 'string' },
                    },
                  },
                },
              },
            },
          },
        ),
      },
    ),
  },
};
