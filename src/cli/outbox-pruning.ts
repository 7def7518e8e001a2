/**
 * Keeps the outbox of catalogue changes (docs/operations.md, "Live updates") to its retention:
 * rows older than CHANGES_RETENTION_DAYS are deleted shortly after the service starts and then
 * hourly. The outbox is what a process catches up from after a lost connection, which takes
 * seconds to minutes; days of margin cost little, and without pruning it grows with every run.
 */
import type { Kysely } from 'kysely';
import { pruneCatalogueChanges } from '../db/repositories/catalogue-changes.ts';
import type { Database } from '../db/types.ts';
import type { Logger } from '../logger.ts';

const EVERY_MS = 3_600_000;
/** Not at once: the start is busy enough, and a process restarting in a loop prunes nothing. */
const FIRST_AFTER_MS = 60_000;

export interface OutboxPruning {
  stop(): void;
}

export function startOutboxPruning(
  db: Kysely<Database>,
  retentionDays: number,
  logger: Logger,
): OutboxPruning {
  const prune = async () => {
    try {
      const deleted = await pruneCatalogueChanges(db, retentionDays);
      if (deleted > 0) logger.info({ deleted, retentionDays }, 'old catalogue changes pruned');
    } catch (error) {
      logger.error({ err: error }, 'pruning catalogue changes failed; retrying within the hour');
    }
  };
  const first = setTimeout(() => void prune(), FIRST_AFTER_MS);
  const every = setInterval(() => void prune(), EVERY_MS);
  // Pruning alone keeps no process alive.
  first.unref();
  every.unref();
  return {
    stop() {
      clearTimeout(first);
      clearInterval(every);
    },
  };
}
