/**
 * The catalogue's data model. Frozen in time: later changes go in new migrations.
 * Plain SQL that both PostgreSQL 15 (server) and PGlite (PostgreSQL 18) accept.
 */
import { sql, type Kysely } from 'kysely';

const statements = [
  // Trigram similarity: prefix and typo tolerant product and category search.
  `create extension if not exists pg_trgm`,

  // A GTIN (8, 12, 13 or 14 digits) whose last digit is the GS1 mod-10 check digit.
  `create function gtin_is_valid(gtin text) returns boolean
     language sql immutable strict parallel safe
     as $$
       select gtin ~ '^([0-9]{8}|[0-9]{12,14})$'
          and (
            select sum(substr(reverse(gtin), i, 1)::int * case when i % 2 = 0 then 3 else 1 end)
              from generate_series(1, length(gtin)) as i
          ) % 10 = 0
     $$`,

  `create table markets (
     code text primary key check (code in ('se', 'no', 'dk', 'fi', 'fr', 'gb', 'nz')),
     currency text not null check (currency in ('SEK', 'NOK', 'DKK', 'EUR', 'GBP', 'NZD')),
     site_base_url text not null check (site_base_url ~ '^https?://'),
     search_config regconfig not null,
     unique (code, currency)
   )`,
  `insert into markets (code, currency, site_base_url, search_config) values
     ('se', 'SEK', 'https://www.pricecompare.se', 'swedish'),
     ('no', 'NOK', 'https://www.pricecompare.no', 'norwegian'),
     ('dk', 'DKK', 'https://www.pricecompare.dk', 'danish'),
     ('fi', 'EUR', 'https://www.pricecompare.fi', 'finnish'),
     ('fr', 'EUR', 'https://www.pricecompare.fr', 'french'),
     ('gb', 'GBP', 'https://www.pricecompare.co.uk', 'english'),
     ('nz', 'NZD', 'https://www.pricecompare.co.nz', 'english')`,

  `create table brands (
     id integer primary key check (id > 0),
     name text not null unique check (name <> '')
   )`,

  `create table categories (
     id integer primary key check (id > 0),
     parent_id integer references categories (id),
     slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$'),
     name text not null check (name <> ''),
     description text,
     logo_small_url text,
     logo_large_url text,
     is_leaf boolean not null,
     position integer not null default 0,
     check (parent_id <> id)
   )`,
  `create index categories_parent_idx on categories (parent_id, position)`,
  `create index categories_name_trgm_idx on categories using gin (lower(name) gin_trgm_ops)`,

  `create table shops (
     id integer primary key check (id > 0),
     market text not null references markets (code),
     name text not null check (name <> ''),
     url text not null check (url ~ '^https?://'),
     logo_small_url text,
     logo_large_url text,
     unique (id, market)
   )`,
  `create index shops_market_idx on shops (market)`,

  `create table products (
     id integer primary key check (id > 0),
     name text not null check (name <> ''),
     brand_id integer references brands (id),
     category_id integer not null references categories (id),
     rank_within_category integer not null check (rank_within_category > 0),
     popularity integer not null default 0 check (popularity >= 0),
     description text,
     image_small_url text,
     image_large_url text
   )`,
  `create index products_brand_idx on products (brand_id)`,
  `create index products_category_rank_idx on products (category_id, rank_within_category)`,
  `create index products_name_trgm_idx on products using gin (lower(name) gin_trgm_ops)`,
  // One full-text index per market language: queries name the configuration as a constant.
  ...['swedish', 'norwegian', 'danish', 'finnish', 'french', 'english'].map(
    (language) =>
      `create index products_name_${language}_fts_idx on products
         using gin (to_tsvector('${language}'::regconfig, name))`,
  ),

  `create table gtins (
     gtin text primary key check (gtin_is_valid(gtin)),
     product_id integer not null references products (id) on delete cascade
   )`,
  `create index gtins_product_idx on gtins (product_id)`,

  `create table offers (
     id integer primary key check (id > 0),
     product_id integer not null references products (id) on delete cascade,
     shop_id integer not null,
     market text not null,
     currency text not null,
     offer_name text not null check (offer_name <> ''),
     url text not null check (url ~ '^https?://'),
     condition text not null check (condition in
       ('CONDITION_NEW', 'CONDITION_USED', 'CONDITION_REFURBISHED', 'CONDITION_DEMO')),
     stock_status text not null check (stock_status in
       ('IN_STOCK', 'LIMITED_STOCK', 'PREORDER', 'INCOMING', 'UNKNOWN', 'OUT_OF_STOCK')),
     purchasable boolean not null,
     price numeric(12, 2) not null check (price >= 0),
     price_including_shipping numeric(12, 2) check (price_including_shipping >= price),
     member_price numeric(12, 2) check (member_price >= 0),
     member_price_start timestamptz,
     member_price_end timestamptz,
     sales_price numeric(12, 2) check (sales_price >= 0),
     sales_price_start timestamptz,
     sales_price_end timestamptz,
     original_price numeric(12, 2) check (original_price >= 0),
     original_price_start timestamptz,
     original_price_end timestamptz,
     updated_at timestamptz not null,
     -- The shop sells in the offer's market, and the price is in that market's currency.
     foreign key (shop_id, market) references shops (id, market),
     foreign key (market, currency) references markets (code, currency),
     check (member_price is not null or (member_price_start is null and member_price_end is null)),
     check (sales_price is not null or (sales_price_start is null and sales_price_end is null)),
     check (original_price is not null or (original_price_start is null and original_price_end is null)),
     check (member_price_end >= member_price_start),
     check (sales_price_end >= sales_price_start),
     check (original_price_end >= original_price_start)
   )`,
  `create index offers_shop_idx on offers (shop_id)`,
  `create index offers_product_market_idx on offers (product_id, market)`,
  // The availability rule's access path: available offers of a product, cheapest first.
  `create index offers_available_product_market_price_idx on offers (product_id, market, price)
     where purchasable and stock_status <> 'OUT_OF_STOCK'`,

  `create table offer_alternative_prices (
     offer_id integer not null references offers (id) on delete cascade,
     position smallint not null check (position >= 0),
     price numeric(12, 2) not null check (price >= 0),
     url text not null check (url ~ '^https?://'),
     primary key (offer_id, position)
   )`,

  // The availability rule (decisions section 5), stated once: every read of offers uses it.
  `create view available_offers as
     select * from offers
      where purchasable and stock_status <> 'OUT_OF_STOCK'`,

  // Daily lowest available price per product and market: element i is the price on
  // first_day + i (null on a day without an available offer). An array per product and
  // market keeps 90 days of a million products to a few million rows.
  `create table price_history (
     product_id integer not null references products (id) on delete cascade,
     market text not null references markets (code),
     first_day date not null,
     daily_lowest_prices numeric(12, 2)[] not null
       check (array_ndims(daily_lowest_prices) = 1 and 0 <= all (daily_lowest_prices)),
     primary key (product_id, market)
   )`,

  // The read model every listing, filter and sort uses: one row per product and market that
  // has at least one available offer, rebuilt from available offers and price history
  // whenever prices change (src/db/repositories/product-market-summaries.ts).
  `create table product_market_summaries (
     product_id integer not null references products (id) on delete cascade,
     market text not null references markets (code),
     category_id integer not null references categories (id),
     popularity integer not null check (popularity >= 0),
     available_offer_count integer not null check (available_offer_count > 0),
     lowest_price numeric(12, 2) not null check (lowest_price >= 0),
     average_price_90_days numeric(14, 4) check (average_price_90_days >= 0),
     price_trend_percentage numeric(7, 1),
     -- The day the 90-day window ends before (exclusive).
     as_of date not null,
     primary key (product_id, market),
     check (price_trend_percentage is null or average_price_90_days > 0)
   )`,
  `create index summaries_market_category_popularity_idx on product_market_summaries
     (market, category_id, popularity desc, product_id)`,
  `create index summaries_market_trend_idx on product_market_summaries
     (market, price_trend_percentage desc, popularity desc, product_id)
     where price_trend_percentage is not null`,
  `create index summaries_market_popularity_idx on product_market_summaries
     (market, popularity desc, product_id)`,
  `create index summaries_market_price_idx on product_market_summaries
     (market, lowest_price, product_id)`,

  // The property tree: node_id orders siblings and identifies a node within its product.
  `create table product_properties (
     product_id integer not null references products (id) on delete cascade,
     node_id smallint not null check (node_id > 0),
     parent_node_id smallint,
     position smallint not null check (position >= 0),
     type text not null check (type in ('category', 'boolean', 'string', 'number')),
     name text not null check (name <> ''),
     value_boolean boolean,
     value_string text,
     value_number double precision,
     unit text,
     icon text,
     is_core boolean not null default false,
     comment text,
     primary key (product_id, node_id),
     foreign key (product_id, parent_node_id) references product_properties (product_id, node_id),
     check (num_nonnulls(value_boolean, value_string, value_number) <= 1),
     check (type <> 'category' or num_nonnulls(value_boolean, value_string, value_number) = 0),
     check (type <> 'boolean' or (value_string is null and value_number is null)),
     check (type <> 'string' or (value_boolean is null and value_number is null)),
     check (type <> 'number' or (value_boolean is null and value_string is null))
   )`,

  `create table api_clients (
     id text primary key check (id ~ '^[A-Za-z0-9._-]{1,64}$'),
     name text not null,
     -- scrypt$<N>$<r>$<p>$<salt base64>$<hash base64>, never the secret itself.
     secret_hash text not null check (secret_hash like 'scrypt$%'),
     created_at timestamptz not null default now()
   )`,
  `create table api_client_refs (
     ref text primary key check (ref ~ '^[A-Za-z0-9._-]{1,64}$'),
     client_id text not null references api_clients (id) on delete cascade
   )`,
  `create index api_client_refs_client_idx on api_client_refs (client_id)`,
];

export async function up(db: Kysely<any>): Promise<void> {
  for (const statement of statements) {
    await sql.raw(statement).execute(db);
  }
}
