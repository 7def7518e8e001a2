/**
 * W1: GET /products?market=…&limit=… (src/rest/routes/products.ts, default fields): a page of
 * the market's listed products by popularity, each with its available offers (up to 100,
 * cheapest first), their shops and alternative prices, its property tree and core
 * properties, in the `{links, data}` envelope.
 *
 * One prepared statement per market and kind of page (the first, or a later one): the
 * market (a closed set of codes) is written into the text and the first page has no OFFSET,
 * so that the planner's estimates for the generic plan are the real ones and Postgres keeps
 * that plan instead of planning every request again.
 *
 * Parameters: $1 limit, $2 ref (text or NULL), $3 self link, $4 next link (used when there is
 * a next page), $5 prev link (text or NULL), $6 the public base (pictures' URLs), and on a
 * later page $7 offset.
 */
import { arrayAgg, sqlString, decimal, object, raw, render, requiredString } from '../json-sql.ts';
import { availableOffers, offerPrice, periodPrice, restShop, taggedUrl } from './offers.ts';
import { propertyTreeCtes } from './properties.ts';
import { SEARCH_CONFIGS, type MarketCode } from '../params.ts';
import type { TextSearchConfig } from '../../../src/search/text-search-configs.ts';
import { productIdentity } from './product-identity.ts';

const REF = '$2::text';
const PUBLIC_BASE = '$6';

/** The route's largest page (src/rest/routes/products.ts pagingParams(10, 15)). */
export const MAX_LIMIT = 15;

/** src/rest/shapes.ts alternativePrices: `{price: {value, currency}, url}`. */
const alternativePrices = `(select ${arrayAgg(
  object({
    price: object({ value: decimal('a.price'), currency: raw(`'"' || o.currency || '"'`) }),
    url: requiredString(taggedUrl('a.url', REF)),
  }),
  'a.position',
)} from offer_alternative_prices a where a.offer_id = o.id)`;

/** src/rest/shapes.ts productOffer, its standard fields. */
const offer = object({
  price: offerPrice('o', { withShipping: true }),
  salesPrice: periodPrice('o', 'sales'),
  memberPrice: periodPrice('o', 'member'),
  originalPrice: periodPrice('o', 'original'),
  url: requiredString(taggedUrl('o.url', REF)),
  shop: restShop('sh', PUBLIC_BASE),
  alternativePrices: raw(alternativePrices, '[]'),
});

/** src/rest/routes/products.ts productItem, its standard fields, names in `language`. */
const productIn = (language: TextSearchConfig) =>
  object({
    ...productIdentity(PUBLIC_BASE, language),
    offers: raw('oj.json', '[]'),
    properties: raw('pj.properties', '[]'),
    coreProperties: raw('pj.core_properties', '[]'),
  });

const statements = new Map<string, { name: string; text: string }>();

/** The statement for a market and kind of page, built once. */
export function productsPageStatement(market: MarketCode, firstPage: boolean) {
  const name = `raw_w1_products_page_${market}_${firstPage ? 'first' : 'later'}`;
  let statement = statements.get(name);
  if (!statement) statements.set(name, (statement = { name, text: pageText(market, firstPage) }));
  return statement;
}

function pageText(market: MarketCode, firstPage: boolean): string {
  const marketLiteral = sqlString(market);
  const language = SEARCH_CONFIGS[market];
  return `
with recursive
  -- The page and one more row (is there a next page?). The route's largest page, a constant,
  -- is read rather than limit + 1 rows: the planner then knows how few rows follow, and the
  -- prepared statement's generic plan is as good as a freshly planned one.
  listed as materialized (
    select s.product_id, s.n
      from (select s.product_id,
                   row_number() over (order by s.popularity desc, s.product_id) as n
              from (select s.product_id, s.popularity from product_market_summaries s
                     where s.market = ${marketLiteral}
                     order by s.popularity desc, s.product_id
                     ${firstPage ? '' : 'offset $7'} limit ${MAX_LIMIT + 1}) as s) as s
     where s.n <= $1 + 1),
  shown as materialized (select l.product_id, l.n from listed l where l.n <= $1),
  ${propertyTreeCtes('shown', language)}
select concat(
  '{"links":{"prev":', coalesce(to_json($5::text)::text, 'null'),
  ',"next":', case when $1 > 0 and (select count(*) from listed) > $1
                   then to_json($4::text)::text else 'null' end,
  ',"self":', to_json($3::text)::text,
  '},"data":[',
  (select string_agg(${render(productIn(language))}, ',' order by sp.n)
     from shown sp
     join products p on p.id = sp.product_id
     join categories c on c.id = p.category_id
     left join brands b on b.id = p.brand_id
     -- Each product's offers aggregated on their own (a CTE grouped by product would be
     -- aggregated again for every product that joins it).
     cross join lateral (
       select ${arrayAgg(offer, 'o.price, o.id')} as json
         from ${availableOffers('p.id', marketLiteral, 100)} as o
         join shops sh on sh.id = o.shop_id) as oj
     left join property_json pj on pj.product_id = sp.product_id),
  ']}') as body`;
}
