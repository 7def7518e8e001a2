/**
 * Offers and what hangs below them (prices, the shop) as compiled JSON, and a product's page
 * of offers: read through `available_offers` (the availability rule) in the product's market,
 * ordered by the repositories' own orders.
 */
import { getArgumentValues } from '@graphql-tools/utils';
import type { DefaultConnectionArguments } from '@pothos/plugin-relay';
import { sql } from 'kysely';
import { OFFER_ORDERS } from '../../db/repositories/offers.ts';
import { isoTimestamp } from '../../db/timestamps.ts';
import { OFFER_PAGE_LIMITS, type OfferPageArguments } from '../page-limits.ts';
import {
  checkPageArguments,
  offsetPage,
  pageFromEnd,
  type OffsetPage,
  type PageLimits,
} from '../pagination.ts';
import { declaredColumns } from '../selection.ts';
import { connectionJson } from './connections.ts';
import {
  column,
  globalId,
  int,
  jsonObject,
  scopeJson,
  tableRow,
  text,
  type Emitter,
  type EmitterTable,
  type Env,
  type Sql,
  type TableRow,
} from './json-sql.ts';
import type { SelectedField, Selection } from './selection-tree.ts';

/** A field's arguments, coerced as the resolver gets them. */
export function argumentsOf<Args>(field: SelectedField, env: Env): Args {
  return getArgumentValues(field.definition, field.nodes[0]!, env.variables) as Args;
}

/**
 * The page the arguments ask for; undefined when the resolver must answer (a page counted from
 * the list's end, or arguments it refuses: it reports them).
 */
export function pageAsked(
  args: DefaultConnectionArguments,
  limits: PageLimits,
): OffsetPage | undefined {
  try {
    checkPageArguments(args, limits);
    return pageFromEnd(args) ? undefined : offsetPage(args, limits);
  } catch {
    return undefined;
  }
}

/**
 * The parent the resolvers of fields left to them read: the row with its key columns and the
 * columns those fields declare (../selection.ts), and the scope.
 */
export function rowFallback(
  row: TableRow,
  keyColumns: readonly string[],
  env: Env,
  timestamps: ReadonlySet<string> = new Set(),
) {
  return (fields: SelectedField[]): Sql => {
    const columns = new Set([
      ...keyColumns,
      ...fields.flatMap((f) => declaredColumns(f.definition)),
    ]);
    const values = [...columns].map(
      (name) =>
        sql`${sql.lit(name)}, ${timestamps.has(name) ? isoTimestamp(row.column(name)) : row.column(name)}`,
    );
    return sql`json_build_object('row', json_build_object(${sql.join(values)}), 'scope', ${scopeJson(env.scope)})`;
  };
}

/**
 * The row of `table` whose id is `parent`'s column `key`, as `object` builds it (null when
 * there is none): joined to the parent's row (TableRow.joins).
 */
export function lookedUp(
  parent: TableRow,
  key: string,
  table: string,
  object: (row: TableRow) => Sql | undefined,
  env: Env,
): Sql | undefined {
  const row = tableRow(env.alias());
  const json = object(row);
  if (json === undefined) return undefined;
  parent.joins.push(
    sql`left join ${sql.table(table)} as ${sql.id(row.alias)} on ${row.column('id')} = ${parent.column(key)}`,
    ...row.joins,
  );
  return sql`case when ${row.column('id')} is null then null else ${json} end`;
}

interface Money {
  value: Sql;
  currency: Sql;
  includingShipping: Sql | null;
}

const MONEY_FIELDS: EmitterTable<Money> = {
  // numeric(12, 2) as text has exactly the two decimals `decimalOfCents` writes.
  amount: (_field, money) => sql`${money.value}::text`,
  value: (_field, money) => money.value,
  currency: (_field, money) => money.currency,
  includingShipping: (_field, money) => money.includingShipping ?? sql`null::numeric`,
};

interface PeriodPrice extends Money {
  start: Sql;
  end: Sql;
}

const PERIOD_PRICE_FIELDS: EmitterTable<PeriodPrice> = {
  ...MONEY_FIELDS,
  start: (_field, price) => isoTimestamp(price.start),
  end: (_field, price) => isoTimestamp(price.end),
};

function periodPrice(name: 'member' | 'sales' | 'original'): Emitter<TableRow> {
  return (field, offer, env) => {
    const value = offer.column(`${name}_price`);
    const price = {
      value,
      currency: offer.column('currency'),
      includingShipping: null,
      start: offer.column(`${name}_price_start`),
      end: offer.column(`${name}_price_end`),
    };
    const json = jsonObject(field.selection, PERIOD_PRICE_FIELDS, price, env);
    return json && sql`case when ${value} is null then null else ${json} end`;
  };
}

export interface ImageUrls {
  small: Sql;
  large: Sql;
}

export const IMAGE_URLS_FIELDS: EmitterTable<ImageUrls> = {
  small: (_field, urls) => urls.small,
  large: (_field, urls) => urls.large,
};

/** An object's two image columns `<prefix>_small_url`, `<prefix>_large_url`. */
export function imageUrls(field: SelectedField, row: TableRow, prefix: string, env: Env) {
  const urls = {
    small: row.column(`${prefix}_small_url`),
    large: row.column(`${prefix}_large_url`),
  };
  return jsonObject(field.selection, IMAGE_URLS_FIELDS, urls, env);
}

const SHOP_FIELDS: EmitterTable<TableRow> = {
  id: (_field, shop, env) => globalId('Shop', '', shop.column('id'), env.scope),
  shopId: column('id'),
  name: column('name'),
  url: column('url'),
  market: (_field, _shop, env) => text(env.scope.market),
  // `logo` is the resolver's: a logo the service draws, on the request's public base.
};

const OFFER_TIMESTAMPS = new Set(
  ['member', 'sales', 'original'].flatMap((name) => [`${name}_price_start`, `${name}_price_end`]),
).add('updated_at');

const OFFER_FIELDS: EmitterTable<TableRow> = {
  id: (_field, offer, env) => globalId('Offer', '', offer.column('id'), env.scope),
  offerId: column('id'),
  market: column('market'),
  itemId: column('item_id'),
  offerName: column('offer_name'),
  // With a ref, `tagUrlWithRef` (../scope.ts) writes the URL: the resolver does.
  url: (field, offer, env) =>
    argumentsOf<{ ref?: string | null }>(field, env).ref == null && env.scope.ref === null
      ? offer.column('url')
      : undefined,
  productCondition: column('condition'),
  stockStatus: column('stock_status'),
  price: (field, offer, env) =>
    jsonObject(
      field.selection,
      MONEY_FIELDS,
      {
        value: offer.column('price'),
        currency: offer.column('currency'),
        includingShipping: offer.column('price_including_shipping'),
      },
      env,
    ),
  memberPrice: periodPrice('member'),
  salesPrice: periodPrice('sales'),
  originalPrice: periodPrice('original'),
  updatedAt: (_field, offer) => isoTimestamp(offer.column('updated_at')),
  shop: (field, offer, env) =>
    lookedUp(
      offer,
      'shop_id',
      'shops',
      (shop) => jsonObject(field.selection, SHOP_FIELDS, shop, env, rowFallback(shop, ['id'], env)),
      env,
    ),
};

function offerJson(selection: Selection | undefined, offer: TableRow, env: Env) {
  const fallback = rowFallback(offer, ['id', 'product_id', 'market'], env, OFFER_TIMESTAMPS);
  return jsonObject(selection, OFFER_FIELDS, offer, env, fallback);
}

/** `Product.offers`: a page of the product's available offers in its market. */
export const productOffers: Emitter<TableRow> = (field, product, env) => {
  const args = argumentsOf<OfferPageArguments>(field, env);
  const page = pageAsked(args, OFFER_PAGE_LIMITS);
  if (page === undefined) return undefined;
  const order = OFFER_ORDERS[args.orderBy ?? 'PRICE'];
  const ofProduct = sql`o.product_id = ${product.column('id')} and o.market = ${text(env.scope.market)}`;
  const alias = env.alias();
  const from = sql`(
    select o.*, (row_number() over (order by ${order}) - 1 + ${int(page.offset)})::int as list_position
      from (select * from available_offers o where ${ofProduct}
             order by ${order} offset ${int(page.offset)} limit ${int(page.limit)}) as o
  ) as ${sql.id(alias)}`;
  const total = () => sql`(select count(*)::int from available_offers o where ${ofProduct})`;
  return connectionJson(
    field.selection,
    { from, row: tableRow(alias), page, total },
    offerJson,
    env,
  );
};
