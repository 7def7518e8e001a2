/**
 * W2: the GraphQL operation BenchCategoryProducts (bench/workloads.ts W2_DOCUMENT): a
 * category, its 20 most popular listed products in the market (those of every category
 * below it too), each with brand and its 10 cheapest available offers with their shops.
 * The answer is GraphQL's `{"data": {...}}`, keys in the document's selection order.
 *
 * One prepared statement per market, written into the text (a closed set of codes), so that
 * the generic plan's estimates are the real ones and Postgres keeps it. Parameter: $1 the
 * category id.
 */
import {
  arrayAgg,
  decimal,
  integer,
  nullWhen,
  object,
  raw,
  render,
  requiredString,
  sqlString,
  word,
} from '../json-sql.ts';
import { SEARCH_CONFIGS, type MarketCode } from '../params.ts';
import type { TextSearchConfig } from '../../../src/search/text-search-configs.ts';
import { categoryName } from './localised-names.ts';
import { availableOffers } from './offers.ts';

const PRODUCTS = 20;
const OFFERS = 10;

const offerEdge = object({
  node: object({
    offerId: integer('o.id'),
    price: object({ value: decimal('o.price'), currency: word('o.currency') }),
    url: requiredString('o.url'),
    shop: object({ shopId: integer('sh.id'), name: requiredString('sh.name') }),
  }),
});

const productEdge = object({
  node: object({
    productId: integer('p.id'),
    name: requiredString('p.name'),
    brand: nullWhen(
      'b.id is null',
      object({ brandId: integer('b.id'), name: requiredString('b.name') }),
    ),
    offers: object({ edges: raw('oj.json', '[]') }),
  }),
});

const categoryIn = (language: TextSearchConfig) =>
  object({
    categoryId: integer('c.id'),
    name: requiredString(categoryName('c', language)),
    products: object({ edges: raw('pe.json', '[]') }),
  });

const statements = new Map<string, { name: string; text: string }>();

/** The statement for a market, built once. */
export function categoryProductsStatement(market: MarketCode) {
  const name = `raw_w2_category_products_${market}`;
  let statement = statements.get(name);
  if (!statement) statements.set(name, (statement = { name, text: statementText(market) }));
  return statement;
}

function statementText(market: MarketCode): string {
  const marketLiteral = sqlString(market);
  const language = SEARCH_CONFIGS[market];
  return `
with recursive
  subtree (id) as (
    select c.id from categories c where c.id = $1
    union all
    select c.id from subtree t join categories c on c.parent_id = t.id),
  -- The most popular listed products of each category of the subtree (an index range each),
  -- merged: the order of src/db/repositories/product-listing.ts POPULARITY.
  listed as materialized (
    select s.product_id, s.popularity from subtree t
    cross join lateral (
      select s.product_id, s.popularity from product_market_summaries s
       where s.market = ${marketLiteral} and s.category_id = t.id
       order by s.popularity desc, s.product_id limit ${PRODUCTS}) as s
    order by s.popularity desc, s.product_id limit ${PRODUCTS}),
  product_edges as (
    select ${arrayAgg(productEdge, 'l.popularity desc, l.product_id')} as json
      from listed l
      join products p on p.id = l.product_id
      left join brands b on b.id = p.brand_id
      cross join lateral (
        select ${arrayAgg(offerEdge, 'o.price, o.id')} as json
          from ${availableOffers('p.id', marketLiteral, OFFERS)} as o
          join shops sh on sh.id = o.shop_id) as oj)
select concat('{"data":{"category":',
              coalesce((select ${render(categoryIn(language))} from categories c, product_edges pe
                         where c.id = $1), 'null'),
              '}}') as body`;
}
