/**
 * Trusted documents (docs/api.md, "Trusted documents"): the GraphQL documents the frontend
 * teams' builds persisted, by the sha256 of their text, so that a client sends only the id.
 * Kept in the database rather than in a file beside each process, so every process serves the
 * same set the moment `npm run documents -- add` stores it. Documents are never changed in
 * place: a hash names exactly one text, so a new text is a new row.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<any>): Promise<void> {
  // `source`: the manifest a document came from, for operators reading `list`.
  await sql`create table trusted_documents (
              hash text primary key check (hash ~ '^[0-9a-f]{64}$'),
              document text not null,
              added_at timestamptz not null default now(),
              source text not null
            )`.execute(db);
}
