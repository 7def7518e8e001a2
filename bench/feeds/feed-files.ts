/**
 * Feeds written from the catalogue's own rows, as TSV files a shop would upload: Postgres
 * renders each row (COPY … TO STDOUT as tab-separated text with a header), so a 500 MB feed
 * streams to disk without passing through the bench's memory.
 *
 * A shop's feed states its listed offers as they are (the regular price, the sale that is
 * on, availability, condition, the product's GTIN, brand and part number), except a share
 * of rows, picked by a hash of the item id, whose served price moves by one cent: up from an
 * even cent, down from an odd one, so that prices stay within a cent of the seed's however
 * often the bench runs.
 */
import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import pgCopyStreams from 'pg-copy-streams';
import type pg from 'pg';

const { to: copyTo } = pgCopyStreams;

/**
 * Tab-separated with a header and no quoting, as the TSV reader takes it: CSV mode writes a
 * null as an empty cell and escapes nothing; the quote character (\x01) occurs in no value.
 */
const AS_TSV = `with (format csv, delimiter E'\\t', header true, quote E'\\x01')`;

async function copyOut(client: pg.ClientBase, query: string, to: Writable): Promise<void> {
  await pipeline(client.query(copyTo(`copy (${query}) to stdout ${AS_TSV}`)), to);
}

/** The product's identity as a feed states it: its first GTIN as GTIN-14, its brand and MPN. */
const identity = (productId: string) => `
  join products p on p.id = ${productId}
  left join brands b on b.id = p.brand_id
  cross join lateral (select lpad(min(g.gtin), 14, '0') as gtin
                        from gtins g where g.product_id = p.id) as g`;
/** Only products a feed row can name: a GTIN, else a brand and a part number. */
const NAMEABLE = `(g.gtin is not null or (b.name is not null and p.mpn is not null))`;

/** One cent up from an even cent, down from an odd one (never to zero). */
const toggled = (amount: string) =>
  `case when (${amount} * 100)::bigint % 2 = 0 or ${amount} <= 0.01
        then ${amount} + 0.01 else ${amount} - 0.01 end`;

const isoInstant = (column: string) =>
  `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')`;

export interface ShopFeedSpec {
  shopId: number;
  /** The share of rows (0 to 1) whose served price moves by a cent. */
  changedShare: number;
  /** Picks which rows change: another salt, other rows. */
  salt: string;
}

/**
 * The shop's listed offers that a feed row can name, as feed columns, plus `changed`. The
 * served price that changes is the sale price during a sale (kept at most the regular
 * price), else the regular price.
 */
function offerRows({ shopId, changedShare, salt }: ShopFeedSpec): string {
  const threshold = Math.round(changedShare * 1_000_000);
  return `
    select o.item_id as id, o.offer_name as title, o.url as link,
           (case when c.changed and o.sales_price is null then ${toggled('c.regular')}
                 else c.regular end) || ' ' || o.currency as price,
           (case when not c.changed then o.sales_price
                 when (o.sales_price * 100)::bigint % 2 = 0 and o.sales_price < c.regular
                   then o.sales_price + 0.01
                 when o.sales_price > 0.01 then o.sales_price - 0.01
                 else o.sales_price end) || ' ' || o.currency as sale_price,
           ${isoInstant('o.sales_price_start')} || '/' || ${isoInstant('o.sales_price_end')}
             as sale_price_effective_date,
           case when not o.purchasable or o.stock_status = 'OUT_OF_STOCK' then 'out_of_stock'
                when o.stock_status = 'PREORDER' then 'preorder'
                when o.stock_status = 'INCOMING' then 'backorder'
                else 'in_stock' end as availability,
           case o.condition when 'CONDITION_REFURBISHED' then 'refurbished'
                when 'CONDITION_NEW' then 'new' else 'used' end as condition,
           g.gtin, b.name as brand, p.mpn,
           upper(o.market) || '::Standard:' || (o.price_including_shipping - o.price) || ' '
             || o.currency as shipping,
           c.changed, o.product_id,
           o.sales_price is null and o.purchasable and o.stock_status <> 'OUT_OF_STOCK'
             and c.changed as plain_change,
           ${toggled('o.price')} as toggled_price
      from offers o ${identity('o.product_id')}
      cross join lateral (
        select abs(hashtext(o.item_id || ${literal(salt)})) % 1000000 < ${threshold} as changed,
               case when o.sales_price is null then o.price
                    else coalesce(o.original_price, o.price) end as regular) as c
     where o.shop_id = ${integer(shopId)} and o.withdrawn_at is null and ${NAMEABLE}`;
}

/**
 * Items for products in the shop's market that it has no offer for, `limit` of them from
 * across the catalogue's ids, each at the product's lowest price there.
 */
function newItemRows(shopId: number, limit: number): string {
  return `
    select 'bf-' || p.id as id, p.name as title,
           'https://shop-${integer(shopId)}.example/items/bf-' || p.id as link,
           greatest(s.lowest_price, 1) || ' ' || m.currency as price,
           null as sale_price, null as sale_price_effective_date, 'in_stock' as availability,
           'new' as condition, g.gtin, b.name as brand, p.mpn, null as shipping, false as changed,
           p.id as product_id, false as plain_change, null::numeric as toggled_price
      from shops shop
      join markets m on m.code = shop.market
      join product_market_summaries s on s.market = shop.market
      ${identity('s.product_id')}
     where shop.id = ${integer(shopId)} and ${NAMEABLE}
       and not exists (select 1 from offers o where o.shop_id = shop.id and o.product_id = p.id)
     order by p.id
     limit ${integer(limit)}`;
}

/** The feed columns written, in order (`changed` is the bench's, not the feed's). */
const FEED_OUTPUT = `id, title, link, price, sale_price, sale_price_effective_date,
  availability, condition, gtin, brand, mpn, shipping`;

export interface WrittenFeed {
  file: string;
  rows: number;
  /** Rows whose price the feed changes. */
  changed: number;
  /** Rows for products the shop had no offer for. */
  added: number;
}

/**
 * Writes the shop's feed to `file`: its listed offers (a share changed), and when `atLeast`
 * rows are asked for and the shop has fewer offers, new items up to that many.
 */
export async function writeShopFeed(
  client: pg.ClientBase,
  spec: ShopFeedSpec,
  file: string,
  atLeast = 0,
): Promise<WrittenFeed> {
  const { rows } = await client.query<{ rows: number; changed: number }>(
    `select count(*)::integer as rows, count(*) filter (where changed)::integer as changed
       from (${offerRows(spec)}) f`,
  );
  const { rows: offered, changed } = rows[0]!;
  const added = Math.max(0, atLeast - offered);
  const query =
    added > 0
      ? `select ${FEED_OUTPUT} from (${offerRows(spec)} union all (${newItemRows(spec.shopId, added)})) f`
      : `select ${FEED_OUTPUT} from (${offerRows(spec)}) f`;
  await copyOut(client, query, createWriteStream(file));
  // The catalogue may have fewer products to add than asked for: count what was written.
  const written =
    added > 0
      ? (
          await client.query<{ rows: number }>(
            `select count(*)::integer as rows from (${newItemRows(spec.shopId, added)}) f`,
          )
        ).rows[0]!.rows
      : 0;
  return { file, rows: offered + written, changed, added: written };
}

/** A push's item (a feed row as JSON, every value a string) and what it does to the offer. */
export interface PushItem {
  item: Record<string, string>;
  productId: number;
  /**
   * The offer's served price once pushed, when the push changes it plainly: a served offer
   * without a sale, whose price moves a cent (else undefined).
   */
  newPrice: number | undefined;
}

/**
 * `count` of the shop's listed offers that a feed row can name, drawn across them by a hash
 * of their item id and `salt`, as push items, every price moved by a cent.
 */
export async function shopPushItems(
  client: pg.ClientBase,
  shopId: number,
  count: number,
  salt: string,
): Promise<PushItem[]> {
  const columns = FEED_OUTPUT.split(',').map((column) => column.trim());
  const { rows } = await client.query<Record<string, string | null>>(
    `select ${FEED_OUTPUT}, product_id, plain_change, toggled_price
       from (${offerRows({ shopId, changedShare: 1, salt })}) f
      order by md5(id || ${literal(salt)}) limit ${integer(count)}`,
  );
  return rows.map((row) => ({
    item: Object.fromEntries(
      columns.flatMap((column) => (row[column] === null ? [] : [[column, String(row[column])]])),
    ),
    productId: Number(row.product_id),
    newPrice: row.plain_change ? Number(row.toggled_price) : undefined,
  }));
}

/**
 * A feed as large as a big shop's Google export: for the products of the shop's market
 * (every one a feed can name), items in several variants (condition, price), the product's
 * description and image as exports carry them (description is a column the catalogue does
 * not read), rows ordered variant by variant so every product appears before any repeats.
 * Every row matches a product. Stops at the row count that makes about `bytes`.
 */
export async function writeLargeFeed(
  client: pg.ClientBase,
  shopId: number,
  bytes: number,
  file: string,
): Promise<{ file: string; rows: number; bytes: number; products: number }> {
  const { rows } = await client.query<{ products: number }>(
    `select count(*)::integer as products
       from shops shop join product_market_summaries s on s.market = shop.market
       ${identity('s.product_id')}
      where shop.id = ${integer(shopId)} and ${NAMEABLE}`,
  );
  const products = rows[0]!.products;
  const sample = 2_000;
  const sampleBytes = await countBytes(client, largeFeedRows(shopId, 1, sample));
  const wanted = Math.max(1, Math.round((bytes / sampleBytes) * sample));
  const variants = Math.max(1, Math.ceil(wanted / products));
  await copyOut(client, largeFeedRows(shopId, variants, wanted), createWriteStream(file));
  const { size } = await stat(file);
  return { file, rows: Math.min(wanted, variants * products), bytes: size, products };
}

function largeFeedRows(shopId: number, variants: number, limit: number): string {
  const shop = integer(shopId);
  return `
    select 'lf-' || p.id || '-' || k as id,
           p.name || case (k - 1) % 3 when 1 then ' (refurbished)' when 2 then ' (used)' else '' end
             || case when k > 3 then ' #' || k else '' end as title,
           coalesce(p.description, p.name) || ' ' || coalesce(b.name, '') || ' ' || p.name
             || '. Fri frakt över 499 kr, 30 dagars öppet köp, 2 års garanti. '
             || 'Leverans 1–3 vardagar. Art.nr ' || p.id || '-' || k || '.' as description,
           'https://shop-${shop}.example/p/' || p.id || '/' || k as link,
           'https://img.shop-${shop}.example/' || p.id || '/large.jpg' as image_link,
           round(greatest(s.lowest_price, 1) * (1 + (k - 1) * 0.03), 2) || ' ' || m.currency
             as price,
           'in_stock' as availability,
           case (k - 1) % 3 when 1 then 'refurbished' when 2 then 'used' else 'new' end
             as condition,
           g.gtin, b.name as brand, p.mpn,
           upper(shop.market) || '::Standard:49.00 ' || m.currency as shipping,
           c.name as google_product_category
      from shops shop
      join markets m on m.code = shop.market
      join product_market_summaries s on s.market = shop.market
      ${identity('s.product_id')}
      join categories c on c.id = p.category_id
      cross join generate_series(1, ${integer(variants)}) as k
     where shop.id = ${shop} and ${NAMEABLE}
     order by k, p.id
     limit ${integer(limit)}`;
}

async function countBytes(client: pg.ClientBase, query: string): Promise<number> {
  let bytes = 0;
  await copyOut(
    client,
    query,
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        bytes += chunk.byteLength;
        done();
      },
    }),
  );
  return bytes;
}

/** COPY takes no parameters: what is spliced in is checked to be what it claims. */
function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new Error(`not an integer: ${value}`);
  return String(value);
}

function literal(value: string): string {
  if (!/^[\w-]*$/.test(value)) throw new Error(`not a plain word: ${value}`);
  return `'${value}'`;
}
