/**
 * Feeds for the seeded catalogue's shops: a shop's offers as the feed that states them (the
 * regular price, the sale that is on, the product's GTIN or its brand and part number), and
 * items for products a shop does not offer yet.
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../src/db/types.ts';
import type { FeedItem } from '../../src/feeds/feed-item.ts';

interface OfferSource {
  item_id: string;
  product_id: number;
  offer_name: string;
  url: string;
  stock_status: string;
  purchasable: boolean;
  price: number;
  price_including_shipping: number | null;
  sales_price: number | null;
  sales_price_start: string | null;
  sales_price_end: string | null;
  original_price: number | null;
  gtin: string | null;
  brand: string | null;
  mpn: string | null;
}

/** A product's identity as a feed states it: its first GTIN, else its brand and MPN. */
const PRODUCT_IDENTITY = sql`
  (select g.gtin from gtins g where g.product_id = p.id order by g.gtin limit 1) as gtin,
  b.name as brand, p.mpn`;

/** A feed row's GTIN: the catalogue's, zero-padded to 14 digits as the formats send it. */
function feedGtin(gtin: string | null): string | null {
  return gtin === null ? null : gtin.padStart(14, '0');
}

/** The seeded catalogue's shops in Sweden, by id. */
export async function swedishShops(db: Kysely<Database>): Promise<number[]> {
  const rows = await db
    .selectFrom('shops')
    .select('id')
    .where('market', '=', 'se')
    .orderBy('id')
    .execute();
  return rows.map((row) => row.id);
}

/**
 * The shop's listed offers whose product a feed row can name (a GTIN, or a brand and part
 * number), each as the row that states it: withdrawn offers and offers of products without
 * either are left out.
 */
export async function feedOfShop(db: Kysely<Database>, shopId: number): Promise<FeedItem[]> {
  const { rows } = await sql<OfferSource>`
    select o.item_id, o.product_id, o.offer_name, o.url, o.stock_status, o.purchasable, o.price,
           o.price_including_shipping, o.sales_price, o.sales_price_start, o.sales_price_end,
           o.original_price, ${PRODUCT_IDENTITY}
      from offers o join products p on p.id = o.product_id left join brands b on b.id = p.brand_id
     where o.shop_id = ${shopId} and o.withdrawn_at is null
     order by o.item_id`.execute(db);
  return rows
    .filter((row) => row.gtin !== null || row.mpn !== null)
    .map((row, index): FeedItem => {
      const onSale = row.sales_price !== null;
      return {
        line: index + 2,
        itemId: row.item_id,
        title: row.offer_name,
        link: row.url,
        price: onSale ? (row.original_price as number) : row.price,
        sale: onSale
          ? { price: row.price, start: row.sales_price_start, end: row.sales_price_end }
          : null,
        availability:
          !row.purchasable || row.stock_status === 'OUT_OF_STOCK' ? 'out_of_stock' : 'in_stock',
        condition: 'new',
        gtin: feedGtin(row.gtin),
        brand: row.gtin === null ? row.brand : null,
        mpn: row.gtin === null ? row.mpn : null,
        shippingPrice:
          row.price_including_shipping === null
            ? null
            : Math.round((row.price_including_shipping - row.price) * 100) / 100,
        imageLink: null,
      };
    });
}

/** Products the shop has no offer for, those other shops of its market sell first, and how a feed names them. */
export async function productsNotAtShop(
  db: Kysely<Database>,
  shopId: number,
  identity: 'gtin' | 'brand and mpn',
  count: number,
): Promise<{ productId: number; gtin: string | null; brand: string | null; mpn: string | null }[]> {
  const named =
    identity === 'gtin'
      ? sql`exists (select 1 from gtins g where g.product_id = p.id)`
      : sql`p.mpn is not null and p.brand_id is not null
            and not exists (select 1 from gtins g where g.product_id = p.id)`;
  const { rows } = await sql<{ id: number; gtin: string | null; brand: string; mpn: string }>`
    select p.id, ${PRODUCT_IDENTITY}
      from products p left join brands b on b.id = p.brand_id
     where ${named}
       and not exists (select 1 from offers o where o.product_id = p.id and o.shop_id = ${shopId})
     order by not exists (select 1 from offers o join shops s on s.market = o.market
                           where o.product_id = p.id and s.id = ${shopId}), p.id
     limit ${count}`.execute(db);
  return rows.map((row) => ({
    productId: row.id,
    gtin: identity === 'gtin' ? feedGtin(row.gtin) : null,
    brand: identity === 'gtin' ? null : row.brand,
    mpn: identity === 'gtin' ? null : row.mpn,
  }));
}

/** A new in-stock item with the given identity and price. */
export function newItem(
  itemId: string,
  identity: { gtin: string | null; brand: string | null; mpn: string | null },
  price: number,
  overrides: Partial<FeedItem> = {},
): FeedItem {
  return {
    line: 2,
    itemId,
    title: `Feed item ${itemId}`,
    link: `https://feed-shop.example/items/${itemId}`,
    price,
    sale: null,
    availability: 'in_stock',
    condition: 'new',
    ...identity,
    shippingPrice: null,
    imageLink: null,
    ...overrides,
  };
}

/**
 * Items handed out only once `open` is called, after the first one: a run reading them holds
 * its shop's lock meanwhile (`started` resolves when it has taken the first).
 */
export function heldItems(items: readonly FeedItem[]) {
  let open!: () => void;
  let markStarted!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const started = new Promise<void>((resolve) => (markStarted = resolve));
  async function* generate(): AsyncGenerator<FeedItem> {
    for (const [index, item] of items.entries()) {
      yield item;
      if (index === 0) {
        markStarted();
        await opened;
      }
    }
  }
  return { items: generate(), open, started };
}

const TSV_COLUMNS = ['id', 'title', 'link', 'price', 'availability', 'gtin', 'brand', 'mpn'];

/** The items as a shop exports them, with a column the service does not read. */
export function itemsTsv(items: FeedItem[], currency: string, extraRows: string[] = []): Buffer {
  const rows = items.map((item) =>
    [
      item.itemId,
      item.title,
      item.link,
      `${item.price.toFixed(2)} ${currency}`,
      item.availability,
      item.gtin ?? '',
      item.brand ?? '',
      item.mpn ?? '',
      'label',
    ].join('\t'),
  );
  return Buffer.from(
    [[...TSV_COLUMNS, 'custom_label_0'].join('\t'), ...rows, ...extraRows].join('\n'),
  );
}
