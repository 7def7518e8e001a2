/**
 * COPY FROM STDIN through Kysely, in a connection Kysely holds (a transaction's): a batch of
 * rows in COPY's text format, loaded by the server's fastest path. Kysely has no COPY: the
 * statement travels as a query whose one parameter is a CopyInRows, and the pg client class
 * under the pool (client.ts) runs it as a COPY:
 *
 * - on a server, through pg-copy-streams on the connection itself;
 * - on PGlite, whose node-postgres adapter forwards COPY FROM STDIN but whose embedded
 *   server then ends the process (seeds/load/table-writers.ts), as PGlite's own
 *   `COPY … FROM '/dev/blob'` in the same session (PGlite is one).
 *
 * A batch is whole before its COPY starts: the connection may have to serve other statements
 * of the same transaction while the next batch is produced (a stored feed body is read
 * through it), and a COPY waiting for its rows would hold them up for good.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { PGlite } from '@electric-sql/pglite';
import type pg from 'pg';
import pgCopyStreams from 'pg-copy-streams';
import type { Database } from './types.ts';

const { from: copyFrom } = pgCopyStreams;

/** The rows of a COPY: whole lines of COPY text. */
export class CopyInRows {
  constructor(readonly text: string) {}
}

/** What the pg client class answers for a COPY, as node-postgres answers a statement. */
export interface CopyInResult {
  command: 'COPY';
  rowCount: number;
  rows: never[];
}

/** Runs `copy table (columns) from stdin` with the rows, in `db`'s connection. */
export async function copyIn(
  db: Kysely<Database> | Transaction<Database>,
  table: string,
  columns: readonly string[],
  text: string,
): Promise<void> {
  await db.executeQuery(
    CompiledQuery.raw(`copy ${table} (${columns.join(', ')}) from stdin`, [new CopyInRows(text)]),
  );
}

/** The COPY on a server connection. */
export function copyInOnServer(
  client: pg.Client,
  text: string,
  rows: CopyInRows,
): Promise<CopyInResult> {
  const stream = client.query(copyFrom(text));
  return new Promise((resolve, reject) => {
    stream.on('error', reject);
    stream.on('finish', () => resolve({ command: 'COPY', rowCount: stream.rowCount, rows: [] }));
    stream.end(rows.text);
  });
}

/** The COPY on PGlite, from a blob. */
export async function copyInOnPglite(
  pglite: PGlite,
  text: string,
  rows: CopyInRows,
): Promise<CopyInResult> {
  const statement = text.replace(/ from stdin$/, ` from '/dev/blob'`);
  const result = await pglite.query(statement, [], { blob: new Blob([rows.text]) });
  return { command: 'COPY', rowCount: result.affectedRows ?? 0, rows: [] };
}
