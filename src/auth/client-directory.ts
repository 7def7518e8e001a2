/**
 * The API clients that exist, as this process knows them, with the generation of each one's
 * secret (src/auth/client-secrets.ts): what refuses a revoked client's tokens within moments
 * instead of when they expire (docs/operations.md, "API clients"). A request's token is
 * checked against it in memory, with no statement of its own: the list (an id and a digest per
 * client) is read as the process's upkeep, on the connection that listens for changes, at
 * start, when an operator's notice says the clients changed (`npm run clients` sends one),
 * every TOKEN_CLIENTS_REFRESH_SECONDS on a server (changes made without the command, notices
 * missed), and when a token names a client the list lacks (one added a moment ago): that
 * request waits for a reading begun after it came, at most one a second.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { CompiledQuery, Kysely } from 'kysely';
import { clientSecretHashes } from '../db/repositories/api-clients.ts';
import type { Database } from '../db/types.ts';
import type { Logger } from '../logger.ts';
import { clientGeneration } from './client-secrets.ts';

export interface ClientDirectory {
  /**
   * Whether a token of `clientId` still stands: the client exists and, when the token names
   * the generation of its secret, with that one. Rejects, as the database failing does, only
   * when the list must be read and cannot be (before the first reading, or for an unknown id).
   */
  stands(clientId: string, generation: string | undefined): Promise<boolean>;
  /** Reads the list again; asked while a reading is under way, one more follows it. */
  reload(): Promise<void>;
  /** Settles once the first reading has succeeded or failed. */
  ready: Promise<void>;
  close(): void;
}

export interface ClientDirectoryOptions {
  db: Kysely<Database>;
  /** Runs the reading: on the listening connection (src/changes/catalogue-changes.ts). */
  read<Row>(statement: CompiledQuery<Row>): Promise<Row[]>;
  /** Waited for before the first reading: the listening connection being opened. */
  after: Promise<void>;
  /** How often the list is read again regardless; undefined: only when told or asked. */
  refreshMs: number | undefined;
  logger: Logger;
}

/** Tokens naming a client the list lacks read it again, but never more often than this. */
const UNKNOWN_CLIENT_READ_INTERVAL_MS = 1000;

export function createClientDirectory(options: ClientDirectoryOptions): ClientDirectory {
  const { db, read, logger } = options;
  let generations: Map<string, string> | undefined;
  let lastReadAt = -Infinity;
  let healthy = true;
  let current: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let soon: Promise<void> | undefined;

  async function readList(): Promise<void> {
    lastReadAt = Date.now();
    try {
      const rows = await read(clientSecretHashes(db));
      generations = new Map(rows.map((row) => [row.id, clientGeneration(row.secret_hash)]));
    } catch (error) {
      // Said once an outage: tokens are checked against the list read before meanwhile.
      if (healthy) logger.warn({ err: error }, 'API clients: could not read them');
      healthy = false;
      throw error;
    }
    if (!healthy) logger.info('API clients: read again');
    healthy = true;
  }

  function reload(): Promise<void> {
    if (queued) return queued;
    if (current) {
      // The reading under way may have begun before the change this one is asked for.
      queued = current
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return reload();
        });
      return queued;
    }
    current = readList().finally(() => {
      current = undefined;
    });
    return current;
  }

  /**
   * A reading begun from now on, once the last is a second old: what a client added since the
   * last reading waits for. Every request asking meanwhile shares it.
   */
  function readSoon(): Promise<void> {
    if (soon) return soon;
    const waitMs = Math.max(0, lastReadAt + UNKNOWN_CLIENT_READ_INTERVAL_MS - Date.now());
    soon = sleep(waitMs, undefined, { ref: false }).then(() => {
      soon = undefined;
      return reload();
    });
    return soon;
  }

  const ready = options.after.then(reload).catch(() => undefined);
  const timer =
    options.refreshMs === undefined
      ? undefined
      : setInterval(() => void reload().catch(() => undefined), options.refreshMs);
  timer?.unref();

  return {
    async stands(clientId, generation) {
      await ready;
      if (generations === undefined) await reload();
      let known = generations!.get(clientId);
      if (known === undefined) {
        await readSoon();
        known = generations!.get(clientId);
      }
      // A token without a generation comes from a release before them: the client's
      // existence decides, for the hour such tokens still live.
      return known !== undefined && (generation === undefined || generation === known);
    },
    reload,
    ready,
    close: () => clearInterval(timer),
  };
}
