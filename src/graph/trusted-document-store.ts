/**
 * The trusted documents a process has looked up, in front of the database: a repeated id costs
 * no SQL, and its document is parsed once, on the lookup that brings it in. Keeping the parsed
 * document (the same object for every request) keeps what is keyed on that object warm as long
 * as the entry lives: yoga's validation cache, the remembered costs and compiled execution.
 * Bounded: the least recently used document leaves first. Only documents found are kept; a
 * document is never changed once stored, so an entry never goes stale.
 */
import { parse, type DocumentNode } from 'graphql';
import type { Kysely } from 'kysely';
import { findTrustedDocument } from '../db/repositories/trusted-documents.ts';
import type { Database } from '../db/types.ts';

export interface PersistedDocument {
  text: string;
  /** Its parse, or undefined when it does not parse (yoga's parser then reports why). */
  parsed: DocumentNode | undefined;
}

export interface TrustedDocumentStore {
  /** The document when this process holds it, without waiting. */
  held(hash: string): PersistedDocument | undefined;
  /** The document from the database (undefined when none has the hash), then held. */
  load(hash: string): Promise<PersistedDocument | undefined>;
}

function parsedOrNothing(text: string): DocumentNode | undefined {
  try {
    // No token bound here: it guards the parser against a hostile text, and this one was
    // stored by an operator. The depth, alias, directive and cost bounds still apply.
    return parse(text);
  } catch {
    return undefined;
  }
}

export function createTrustedDocumentStore(
  db: Kysely<Database>,
  maxEntries: number,
): TrustedDocumentStore {
  // A Map iterates in insertion order: re-inserting on each hit makes its first key the least
  // recently used.
  const held = new Map<string, PersistedDocument>();
  // Requests for one id arriving together share one statement.
  const loading = new Map<string, Promise<PersistedDocument | undefined>>();

  function hold(hash: string, entry: PersistedDocument): void {
    held.set(hash, entry);
    if (held.size > maxEntries) held.delete(held.keys().next().value!);
  }

  async function fetchAndHold(hash: string): Promise<PersistedDocument | undefined> {
    try {
      const text = await findTrustedDocument(db, hash);
      if (text === undefined) return undefined;
      const entry = { text, parsed: parsedOrNothing(text) };
      hold(hash, entry);
      return entry;
    } finally {
      loading.delete(hash);
    }
  }

  return {
    held(hash) {
      const entry = held.get(hash);
      if (entry !== undefined) {
        held.delete(hash);
        held.set(hash, entry);
      }
      return entry;
    },
    load(hash) {
      let pending = loading.get(hash);
      if (pending === undefined) {
        pending = fetchAndHold(hash);
        loading.set(hash, pending);
      }
      return pending;
    },
  };
}
