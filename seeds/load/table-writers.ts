/**
 * Where generated COPY text goes. Four ways, one interface:
 *
 * - parallel COPY (a Postgres server with a pool of at least one connection per table): each
 *   table streams into its own COPY on its own connection, so Postgres ingests several tables
 *   at once while Node generates the next products;
 * - sequential COPY (a server with a smaller pool): one connection, one COPY statement per
 *   table and chunk;
 * - embedded COPY (PGlite, when the database handle exposes the PGlite instance as `pglite`):
 *   PGlite's own COPY FROM '/dev/blob', one per table and chunk, inside the transaction of a
 *   pool connection (PGlite is one session). PGlite ingests it about three times faster than
 *   the array inserts below;
 * - array inserts (PGlite otherwise): `insert … select from unnest($1::text[], …)`, one
 *   statement per table and chunk. PGlite's node-postgres adapter does forward COPY FROM
 *   STDIN, but the embedded server then ends the whole process (exit(1), PGlite 0.5.16), so it
 *   is not tried there. Arrays as parameters keep a statement to one parameter per column, far
 *   from the protocol's 65,535-parameter limit, and cheaper to parse than a VALUES list.
 *
 * Every writer loads a table truncated in its own transaction; on a server that lets COPY
 * write the rows frozen (WITH (FREEZE)), so nothing has to revisit them to set hint bits or
 * the visibility map before the first index-only scan.
 */
import type pg from 'pg';
import type { DatabaseHandle } from '../../src/db/client.ts';
import { TABLE_COLUMNS, type GeneratedTable } from '../tables.ts';
import { CopyStream } from './copy-stream.ts';
import { parseCopyText } from './copy-text.ts';

export interface TableWriter {
  /** Appends rows (COPY text) to a table; resolves when the writer can take more. */
  write(table: GeneratedTable, chunk: Buffer): Promise<void>;
  /** Commits everything written and releases the connections. */
  finish(): Promise<void>;
  /** Rolls back what is not committed and releases the connections. */
  abort(error: Error): Promise<void>;
}

export type WriterKind = 'parallel copy' | 'sequential copy' | 'embedded copy' | 'array inserts';

/** What the embedded COPY needs of a PGlite instance. */
interface EmbeddedDatabase {
  query(sql: string, params: unknown[], options: { blob: Blob }): Promise<unknown>;
}

/** The PGlite instance behind an embedded handle, when the handle exposes it. */
function embeddedInstance(database: DatabaseHandle): EmbeddedDatabase | undefined {
  return database.pglite;
}

export function chooseWriter(database: DatabaseHandle, tables: number): WriterKind {
  if (database.kind === 'embedded') {
    return embeddedInstance(database) ? 'embedded copy' : 'array inserts';
  }
  const poolSize = (database.pool.options as { max?: number }).max ?? 10;
  return poolSize >= tables ? 'parallel copy' : 'sequential copy';
}

export async function openTableWriter(
  database: DatabaseHandle,
  kind: WriterKind,
  tables: readonly GeneratedTable[],
): Promise<TableWriter> {
  if (kind === 'parallel copy') return ParallelCopyWriter.open(database.pool, tables);
  const client = await database.pool.connect();
  try {
    await client.query('begin');
    await client.query('set local synchronous_commit = off');
    await client.query(`truncate ${tables.join(', ')}`);
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  if (kind === 'sequential copy') return new SequentialCopyWriter(client);
  const embedded = embeddedInstance(database);
  if (kind === 'embedded copy' && embedded) return new EmbeddedCopyWriter(client, embedded);
  return ArrayInsertWriter.open(client, tables);
}

async function commitAndRelease(client: pg.PoolClient): Promise<void> {
  try {
    await client.query('commit');
  } catch (error) {
    client.release(error as Error);
    throw error;
  }
  client.release();
}

/** One connection and one open COPY per table, each in its own transaction. */
class ParallelCopyWriter implements TableWriter {
  private constructor(
    private readonly lanes: Map<GeneratedTable, { client: pg.PoolClient; copy: CopyStream }>,
  ) {}

  static async open(pool: pg.Pool, tables: readonly GeneratedTable[]): Promise<ParallelCopyWriter> {
    const lanes = new Map<GeneratedTable, { client: pg.PoolClient; copy: CopyStream }>();
    try {
      for (const table of tables) {
        const client = await pool.connect();
        try {
          await client.query('begin');
          await client.query('set local synchronous_commit = off');
          // Truncated in this transaction so that COPY may freeze the rows.
          await client.query(`truncate ${table}`);
        } catch (error) {
          client.release(error as Error);
          throw error;
        }
        lanes.set(table, {
          client,
          copy: new CopyStream(client, table, TABLE_COLUMNS[table], true),
        });
      }
    } catch (error) {
      await new ParallelCopyWriter(lanes).abort(error as Error);
      throw error;
    }
    return new ParallelCopyWriter(lanes);
  }

  async write(table: GeneratedTable, chunk: Buffer): Promise<void> {
    const lane = this.lanes.get(table);
    if (!lane) throw new Error(`no COPY open for ${table}`);
    await lane.copy.write(chunk);
  }

  async finish(): Promise<void> {
    try {
      await Promise.all([...this.lanes.values()].map((lane) => lane.copy.finish()));
      for (const [table, lane] of this.lanes) {
        await lane.client.query('commit');
        lane.client.release();
        this.lanes.delete(table);
      }
    } catch (error) {
      // The lanes not yet committed roll back; the caller empties what was.
      await this.abort(error as Error);
      throw error;
    }
  }

  async abort(error: Error): Promise<void> {
    for (const lane of this.lanes.values()) {
      lane.copy.abort(error);
      // The connection may be mid-COPY: destroy it rather than hand it back to the pool.
      lane.client.release(error);
    }
    this.lanes.clear();
  }
}

/** One connection, one transaction, a COPY statement per table and chunk. */
class SequentialCopyWriter implements TableWriter {
  constructor(private readonly client: pg.PoolClient) {}

  async write(table: GeneratedTable, chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    const copy = new CopyStream(this.client, table, TABLE_COLUMNS[table], true);
    await copy.write(chunk);
    await copy.finish();
  }

  async finish(): Promise<void> {
    await commitAndRelease(this.client);
  }

  async abort(error: Error): Promise<void> {
    this.client.release(error);
  }
}

/**
 * PGlite's COPY from a blob, per table and chunk, in the transaction `client` holds: the
 * instance and the pool's one connection are the same single session.
 */
class EmbeddedCopyWriter implements TableWriter {
  constructor(
    private readonly client: pg.PoolClient,
    private readonly embedded: EmbeddedDatabase,
  ) {}

  async write(table: GeneratedTable, chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    await this.embedded.query(
      `copy ${table} (${TABLE_COLUMNS[table].join(', ')}) from '/dev/blob'`,
      [],
      // Buffers from allocUnsafe sit on plain ArrayBuffers, never shared ones.
      { blob: new Blob([chunk as Uint8Array<ArrayBuffer>]) },
    );
  }

  async finish(): Promise<void> {
    await commitAndRelease(this.client);
  }

  async abort(): Promise<void> {
    await this.client.query('rollback').catch(() => undefined);
    this.client.release();
  }
}

/** One connection, one transaction, an array insert per table and chunk. */
class ArrayInsertWriter implements TableWriter {
  private constructor(
    private readonly client: pg.PoolClient,
    private readonly statements: ReadonlyMap<GeneratedTable, string>,
  ) {}

  static async open(client: pg.PoolClient, tables: readonly GeneratedTable[]) {
    const statements = new Map<GeneratedTable, string>();
    for (const table of tables) {
      // Column types from the catalogue, so the cast of each text array follows the schema.
      const { rows } = await client.query<{ name: string; type: string }>(
        `select attname as name, format_type(atttypid, atttypmod) as type
           from pg_attribute where attrelid = $1::regclass and attnum > 0 and not attisdropped`,
        [table],
      );
      const typeOf = new Map(rows.map((row) => [row.name, row.type]));
      const columns = TABLE_COLUMNS[table];
      const casts = columns.map((column, index) => `c${index}::${typeOf.get(column) ?? 'text'}`);
      const inputs = columns.map((_, index) => `$${index + 1}::text[]`);
      const aliases = columns.map((_, index) => `c${index}`);
      statements.set(
        table,
        `insert into ${table} (${columns.join(', ')})
         select ${casts.join(', ')} from unnest(${inputs.join(', ')}) as input (${aliases.join(', ')})`,
      );
    }
    return new ArrayInsertWriter(client, statements);
  }

  async write(table: GeneratedTable, chunk: Buffer): Promise<void> {
    if (chunk.length === 0) return;
    const columns = TABLE_COLUMNS[table].length;
    const rows = parseCopyText(chunk.toString('utf8'), columns);
    const columnArrays = Array.from({ length: columns }, (_, index) =>
      rows.map((row) => row[index] ?? null),
    );
    await this.client.query(this.statements.get(table) as string, columnArrays);
  }

  async finish(): Promise<void> {
    await commitAndRelease(this.client);
  }

  async abort(error: Error): Promise<void> {
    await this.client.query('rollback').catch(() => undefined);
    this.client.release();
    void error;
  }
}
