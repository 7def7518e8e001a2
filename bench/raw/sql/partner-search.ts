/**
 * W6: GET /partner-search/products?market=…&ref=…&productIds=… (src/rest/routes/
 * partner-search.ts, default fields): the products with those ids in the order given
 * (duplicates collapsed, unknown ids left out), a page of them, each with every available
 * offer in the market (up to 100, cheapest first) and its URL tagged with the partner's ref,
 * in the `{links, paging, data}` envelope.
 *
 * Parameters: $1 market, $2 product ids (int[]), $3 offset, $4 limit, $5 ref, $6 self link,
 * $7 next link (used when there is a next page), $8 prev link (text or NULL), $9 the public
 * base (logos' URLs).
 */
import {
  arrayAgg,
  integer,
  nullWhen,
  object,
  raw,
  render,
  requiredString,
  word,
} from '../json-sql.ts';
import { categoryName } from './localised-names.ts';
import { availableOffers, logo, offerPrice, periodPrice, taggedUrl } from './offers.ts';

/** partner-search.ts partnerOffer. */
const offer = object({
  url: requiredString(taggedUrl('o.url', '$5::text')),
  offerName: requiredString('o.offer_name'),
  productCondition: word('o.condition'),
  currentPrice: offerPrice('o', { withShipping: false }),
  memberPrice: periodPrice('o', 'member'),
  salesPrice: periodPrice('o', 'sales'),
  originalPrice: periodPrice('o', 'original'),
  shop: object({ id: integer('sh.id'), name: requiredString('sh.name'), logo: logo('sh', '$9') }),
  stockStatus: word('o.stock_status'),
});

/** partner-search.ts partnerProduct. */
const product = object({
  id: integer('p.id'),
  name: requiredString('p.name'),
  brand: nullWhen('b.id is null', object({ id: integer('b.id'), name: requiredString('b.name') })),
  offers: raw('oj.json', '[]'),
  // Product.productPage: the market site's product page.
  productPage: raw(`to_json(m.site_base_url || '/product/' || p.id)::text`),
  category: object({
    id: integer('c.id'),
    name: requiredString(categoryName('c', { dynamic: 'm.search_config' })),
  }),
  rankWithinCategory: integer('p.rank_within_category'),
});

export const partnerSearchStatement = {
  name: 'raw_w6_partner_search',
  text: `
with
  -- Known products in the order given, each once (at its first position).
  found as materialized (
    select p.id, row_number() over (order by g.n) as n
      from (select x.id, min(x.n) as n
              from unnest($2::integer[]) with ordinality as x(id, n) group by x.id) as g
      join products p on p.id = g.id),
  shown as materialized (select f.id, f.n from found f where f.n > $3 and f.n <= $3 + $4),
  more as (select $4 > 0 and count(*) > $3 + $4 as next from found)
select concat(
  '{"links":{"self":', to_json($6::text)::text,
  ',"next":', case when more.next then to_json($7::text)::text else 'null' end,
  ',"prev":', coalesce(to_json($8::text)::text, 'null'),
  '},"paging":{"limit":', $4::text, ',"offset":', $3::text,
  ',"nextOffset":', case when more.next then ($3 + $4)::text else 'null' end,
  ',"prevOffset":', case when $3 > 0 then greatest(0, $3 - $4)::text else 'null' end,
  '},"data":[',
  (select string_agg(${render(product)}, ',' order by sp.n)
     from shown sp
     join products p on p.id = sp.id
     join categories c on c.id = p.category_id
     join markets m on m.code = $1
     left join brands b on b.id = p.brand_id
     -- Each product's offers aggregated on their own (a CTE grouped by product would be
     -- aggregated again for every product that joins it).
     cross join lateral (
       select ${arrayAgg(offer, 'o.price, o.id')} as json
         from ${availableOffers('p.id', '$1', 100)} as o
         join shops sh on sh.id = o.shop_id) as oj),
  ']}') as body
from more`,
};
