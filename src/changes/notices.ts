/**
 * What an operator's command tells every serving process at once (docs/operations.md): the API
 * clients changed (a process then reads them again), the response cache is purged, a client's
 * failed token attempts are forgotten. Sent with NOTIFY on a channel of its own, and heard on
 * the connection each process already holds to listen for catalogue changes
 * (src/changes/catalogue-changes.ts), so a notice costs no connection.
 *
 * A notice is not stored: a process that is not listening when it is sent (its connection
 * down, or not started yet) misses it. What each notice does is bounded otherwise as well
 * (the clients are read again periodically; cached answers and failure counts expire).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/types.ts';

export const NOTICES_CHANNEL = 'gateway_notices';

export type Notice =
  | { kind: 'clients-changed' }
  | { kind: 'cache-purged' }
  | {
      kind: 'client-unlocked';
      clientId: string;
      /** Only this address's failures; every address's when absent. */
      address?: string;
    };

export type NoticeHandler = (notice: Notice) => void | Promise<void>;

/** Sends the notice to every process listening on the database. */
export async function announceNotice(db: Kysely<Database>, notice: Notice): Promise<void> {
  await sql`select pg_notify(${NOTICES_CHANNEL}, ${JSON.stringify(notice)})`.execute(db);
}

/** The notice a payload carries, or undefined for anything else (another release's notice). */
export function readNotice(payload: string): Notice | undefined {
  let notice: unknown;
  try {
    notice = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof notice !== 'object' || notice === null) return undefined;
  const { kind, clientId, address } = notice as Record<string, unknown>;
  if (kind === 'clients-changed' || kind === 'cache-purged') return { kind };
  if (kind !== 'client-unlocked' || typeof clientId !== 'string') return undefined;
  if (address !== undefined && typeof address !== 'string') return undefined;
  return { kind, clientId, ...(address === undefined ? {} : { address }) };
}
