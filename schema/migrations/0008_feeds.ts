/**
 * Shop feeds (docs/api.md, "Feeds"): what applying a feed run needs of the catalogue. An offer
 * is known by its shop's item id; an offer a full feed no longer has is withdrawn (kept with
 * its id, no longer served); rows that match no product wait for a catalogue team; every
 * change a run makes is recorded for the live updates to publish.
 * Plain SQL that both PostgreSQL 15 (server) and PGlite (PostgreSQL 18) accept.
 */
import { sql, type Kysely } from 'kysely';

const AVAILABLE = `purchasable and stock_status <> 'OUT_OF_STOCK' and withdrawn_at is null`;

const statements = [
  // Offers made before feeds existed are known by their offer id until a feed names them.
  `alter table offers add column item_id text`,
  `update offers set item_id = id::text`,
  `alter table offers alter column item_id set not null`,
  `alter table offers add constraint offers_item_id_length
     check (char_length(item_id) between 1 and 50)`,
  `create unique index offers_shop_item_idx on offers (shop_id, item_id)`,
  // Kept rather than deleted: the offer keeps its id when the shop lists the item again.
  `alter table offers add column withdrawn_at timestamptz`,

  // New offers take ids from here; seeding sets it past the ids it writes.
  `create sequence offers_id_seq owned by offers.id`,
  `select setval('offers_id_seq', (select coalesce(max(id), 0) + 1 from offers), false)`,
  `alter table offers alter column id set default nextval('offers_id_seq')`,

  // The availability rule, stated once: a withdrawn offer is not served either.
  `create or replace view available_offers as select * from offers where ${AVAILABLE}`,
  `drop index offers_available_product_market_price_idx`,
  `create index offers_available_product_market_price_idx on offers (product_id, market, price)
     where ${AVAILABLE}`,

  // Matching a feed row: its GTIN in the GTIN-14 form feeds are normalised to, else its
  // brand (by name, whatever the case) and manufacturer part number.
  `create index gtins_gtin14_idx on gtins (lpad(gtin, 14, '0'))`,
  `alter table products add column mpn text check (mpn <> '')`,
  `create unique index products_brand_mpn_idx on products (brand_id, upper(mpn))
     where mpn is not null`,
  `create index brands_lower_name_idx on brands (lower(name))`,

  // Feed rows no product matched, as last seen: for a catalogue team to create the product.
  // Like the outbox, a record of what feeds said: no foreign key, which would keep a seed
  // from truncating the shops.
  `create table unmatched_feed_items (
     shop_id integer not null,
     item_id text not null check (char_length(item_id) between 1 and 50),
     title text not null,
     gtin text,
     brand text,
     mpn text,
     price numeric(12, 2) not null,
     currency text not null,
     link text not null,
     first_seen_at timestamptz not null,
     last_seen_on date not null,
     last_run_id text not null,
     primary key (shop_id, item_id)
   )`,

  // The outbox: per run, product and market, what changed. `sequence` is taken at insert:
  // runs of different shops commit side by side, so a reader allows for gaps filled late.
  `create table catalogue_changes (
     sequence bigint generated always as identity primary key,
     run_id text not null,
     product_id integer not null,
     market text not null,
     old_lowest_price numeric(12, 2),
     new_lowest_price numeric(12, 2),
     old_offer_count integer not null,
     new_offer_count integer not null,
     added_offer_ids integer[] not null,
     updated_offer_ids integer[] not null,
     withdrawn_offer_ids integer[] not null,
     changed_at timestamptz not null
   )`,
  `create index catalogue_changes_run_idx on catalogue_changes (run_id)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
