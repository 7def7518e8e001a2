/**
 * `/readyz`: ready when the database answers, every migration has been applied and every
 * table is there. Never a 500: whatever fails here, a load balancer should stop sending.
 */
import type { DatabaseHandle } from '../db/client.ts';
import { pendingMigrations } from '../db/migrator.ts';
import { missingRelations } from '../db/relations.ts';
import type { Logger } from '../logger.ts';
import { jsonAnswer, operational, type OpenApiPaths } from '../openapi/vocabulary.ts';
import { jsonResponse } from '../responses.ts';

export const READINESS_PATH = '/readyz';

export interface ReadinessDependencies {
  database: DatabaseHandle;
  logger: Logger;
  /** True once the process is shutting down: accepted requests are still answered. */
  draining?: () => boolean;
}

export function createReadiness({ database, logger, draining }: ReadinessDependencies) {
  return async function readiness(): Promise<Response> {
    if (draining?.()) return jsonResponse(503, { status: 'draining' });
    try {
      const pending = await pendingMigrations(database.db);
      if (pending.length > 0) {
        return jsonResponse(503, { status: 'migrating', pendingMigrations: pending });
      }
      const missing = await missingRelations(database.db);
      if (missing.length > 0) {
        logger.warn({ missing }, 'readiness check failed: tables missing');
        return jsonResponse(503, { status: 'unavailable', reason: 'tables missing', missing });
      }
      const databases = database.databases();
      return jsonResponse(200, {
        status: 'ready',
        database: database.kind,
        // With replicas, each server's state; one out of service leaves the process ready, as
        // its reads go to the primary.
        ...(databases.length > 1 ? { databases } : {}),
      });
    } catch (error) {
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
      'Ready when the database answers, every migration has been applied and every table is there.',
      {
        '200': jsonAnswer('Ready.', {
          type: 'object',
          required: ['status', 'database'],
          properties: {
            status: { const: 'ready' },
            database: { type: 'string' },
            databases: {
              description:
                'With DATABASE_REPLICA_URLS, each database server: the primary, and every replica with whether it serves reads and its lag.',
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
        }),
        '503': jsonAnswer(
          'Not ready: migrations pending, tables missing, the database unreachable, or the process shutting down (`draining`: requests already accepted are still answered).',
          {
            type: 'object',
            required: ['status'],
            properties: {
              status: { enum: ['migrating', 'unavailable', 'draining'] },
              pendingMigrations: { type: 'array', items: { type: 'string' } },
              reason: { type: 'string' },
              missing: { type: 'array', items: { type: 'string' } },
            },
          },
        ),
      },
    ),
  },
};
