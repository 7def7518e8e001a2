/**
 * `/readyz`: ready when the database answers, every migration has been applied and every
 * table is there. Never a 500: whatever fails here, a load balancer should stop sending.
 */
import type { DatabaseHandle } from '../db/client.ts';
import { pendingMigrations } from '../db/migrator.ts';
import { missingRelations } from '../db/relations.ts';
import type { Logger } from '../logger.ts';
import { jsonResponse } from '../responses.ts';

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
