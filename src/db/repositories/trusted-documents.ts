/**
 * Trusted documents (docs/api.md, "Trusted documents"): the `documents` command stores them,
 * and /graphql reads one by its hash when a client sends only an id.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../types.ts';

export interface TrustedDocument {
  /** The lowercase hex sha256 of `document`. */
  hash: string;
  document: string;
}

export interface ListedTrustedDocument extends TrustedDocument {
  source: string;
  addedAt: string;
}

/** The document stored under the hash, or undefined when none is. */
export async function findTrustedDocument(
  db: Kysely<Database>,
  hash: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('trusted_documents')
    .select('document')
    .where('hash', '=', hash)
    .executeTakeFirst();
  return row?.document;
}

/**
 * Stores the documents not stored yet, in one statement, and returns the hashes it added: a
 * hash names one text, so one already there is the same document and is left as it was.
 */
export async function insertTrustedDocuments(
  db: Kysely<Database>,
  documents: readonly TrustedDocument[],
  source: string,
): Promise<string[]> {
  if (documents.length === 0) return [];
  const added = await db
    .insertInto('trusted_documents')
    .values(documents.map(({ hash, document }) => ({ hash, document, source })))
    .onConflict((conflict) => conflict.column('hash').doNothing())
    .returning('hash')
    .execute();
  return added.map((row) => row.hash);
}

/** Every stored document, oldest first. */
export async function listTrustedDocuments(db: Kysely<Database>): Promise<ListedTrustedDocument[]> {
  const rows = await db
    .selectFrom('trusted_documents')
    .select(['hash', 'document', 'source', 'added_at'])
    .orderBy('added_at')
    .orderBy('hash')
    .execute();
  return rows.map((row) => ({
    hash: row.hash,
    document: row.document,
    source: row.source,
    addedAt: row.added_at,
  }));
}
