/**
 * Secondary indexes and foreign keys set aside while the catalogue loads, and put back after.
 *
 * Building an index once over loaded rows is several times cheaper than maintaining it row by
 * row, and a foreign key validated by one join instead of a trigger per row cheaper still
 * (30 million offers with three keys each would be 90 million lookups). Primary keys, unique
 * constraints and checks stay: they are the contract the generated rows are held to.
 *
 * Definitions are read from the catalogue (pg_indexes, pg_constraint), never written here a
 * second time, and journalled in a table in the same transaction that drops them: a seed that
 * is killed half-way leaves the journal behind, and the next seed restores from it.
 */
import type pg from 'pg';

export interface DeferredDefinition {
  kind: 'index' | 'foreign key';
  table: string;
  name: string;
  /** CREATE INDEX statement, or the constraint's definition (FOREIGN KEY … REFERENCES …). */
  definition: string;
}

const JOURNAL = 'seed_deferred_definitions';

/**
 * Journals and drops the secondary indexes and foreign keys of `tables`; returns them with any
 * left in the journal by an interrupted seed. Run inside the caller's transaction.
 */
export async function deferDefinitions(
  client: pg.ClientBase,
  tables: readonly string[],
): Promise<DeferredDefinition[]> {
  await client.query(`create table if not exists ${JOURNAL} (
      kind text not null, table_name text not null, name text not null, definition text not null,
      primary key (table_name, name))`);
  await client.query(
    `insert into ${JOURNAL} (kind, table_name, name, definition)
     select 'index', i.tablename, i.indexname, i.indexdef
       from pg_indexes i
      where i.schemaname = current_schema() and i.tablename = any($1::text[])
        -- indexes that back a primary key or unique constraint stay with their constraint
        and not exists (select 1 from pg_constraint c
                         where c.conindid = format('%I.%I', i.schemaname, i.indexname)::regclass)
     union all
     select 'foreign key', c.conrelid::regclass::text, c.conname, pg_get_constraintdef(c.oid)
       from pg_constraint c
      where c.contype = 'f' and c.connamespace = current_schema()::regnamespace
        and c.conrelid::regclass::text = any($1::text[])
     on conflict do nothing`,
    [tables],
  );
  const definitions = await readJournal(client);
  // Foreign keys first: an index may not be dropped while a constraint still needs it.
  for (const item of definitions.filter((d) => d.kind === 'foreign key')) {
    await client.query(
      `alter table ${quoteIdent(item.table)} drop constraint if exists ${quoteIdent(item.name)}`,
    );
  }
  for (const item of definitions.filter((d) => d.kind === 'index')) {
    await client.query(`drop index if exists ${quoteIdent(item.name)}`);
  }
  return definitions;
}

async function readJournal(client: pg.ClientBase): Promise<DeferredDefinition[]> {
  const { rows } = await client.query<{
    kind: DeferredDefinition['kind'];
    table_name: string;
    name: string;
    definition: string;
  }>(`select kind, table_name, name, definition from ${JOURNAL} order by kind, table_name, name`);
  return rows.map((row) => ({
    kind: row.kind,
    table: row.table_name,
    name: row.name,
    definition: row.definition,
  }));
}

/**
 * The statements that put one definition back, each to run in a transaction of its own: an
 * index is created; a foreign key is added NOT VALID (instant) and then validated, whose scan
 * holds a lock that lets other constraints on the same tables validate at the same time.
 */
export function restoreStatements(item: DeferredDefinition): string[] {
  if (item.kind === 'index') return [item.definition];
  const table = quoteIdent(item.table);
  const name = quoteIdent(item.name);
  return [
    `alter table ${table} add constraint ${name} ${item.definition} not valid`,
    `alter table ${table} validate constraint ${name}`,
  ];
}

/** Forgets the journal once every definition is back. */
export async function closeJournal(client: pg.ClientBase): Promise<void> {
  await client.query(`drop table if exists ${JOURNAL}`);
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
