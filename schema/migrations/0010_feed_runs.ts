/**
 * Feed runs (docs/api.md, "Feeds"): every full feed and push a shop sends is a run, kept with
 * its report, and its body is kept beside it until the run is finished, so whichever process
 * takes the run from the queue can read it, and a run cut off by a crash or a database
 * restart can start again from its body. Plain SQL that both PostgreSQL 15 (server) and
 * PGlite (PostgreSQL 18) accept.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  // The report's parts as json, not jsonb: json keeps their keys in the documented order.
  // `receiving`: the body is still arriving (not listed, not yet queued). No foreign key to
  // shops, like the outbox: a run is a record of what a shop sent, and seeding truncates shops.
  `create table feed_runs (
     run_id uuid primary key,
     shop_id integer not null,
     kind text not null check (kind in ('full', 'push')),
     format text not null,
     gzip boolean not null default false,
     state text not null
       check (state in ('receiving', 'queued', 'running', 'applied', 'rejected', 'failed')),
     received_at timestamptz not null,
     started_at timestamptz,
     finished_at timestamptz,
     reason text,
     attempts integer not null default 0,
     body_bytes bigint not null default 0,
     withdraw_item_ids text[] not null default '{}',
     counts json,
     rejected_rows json,
     ignored_columns json,
     touched_at timestamptz not null
   )`,
  // A shop's runs newest first (the list), and its unfinished ones oldest first (the worker).
  `create index feed_runs_shop_received_idx on feed_runs (shop_id, received_at desc, run_id desc)`,
  `create index feed_runs_unfinished_idx on feed_runs (shop_id, received_at)
     where state in ('receiving', 'queued', 'running')`,
  `create table feed_run_bodies (
     run_id uuid not null,
     sequence integer not null,
     chunk bytea not null,
     primary key (run_id, sequence)
   )`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
