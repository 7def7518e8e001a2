/**
 * W4: one product by id with its lowest price, as the GraphQL operation BenchProductLookup
 * and as GET /v1/products/{id}?fields=id,name,price. A lookup by id finds any known product,
 * whatever the market; its prices are the market's (NULL/null without available offers).
 *
 * Parameters of both: $1 market, $2 product id. The REST statement answers a NULL body for
 * an unknown product (the server's 404).
 */
import { decimal, integer, nullWhen, object, render, requiredString, word } from '../json-sql.ts';

/** W4_DOCUMENT: productId, name, lowestOffer { price { value currency } shop { shopId name } }. */
const graphqlProduct = object({
  productId: integer('p.id'),
  name: requiredString('p.name'),
  lowestOffer: nullWhen(
    'o.id is null',
    object({
      price: object({ value: decimal('o.price'), currency: word('o.currency') }),
      shop: object({ shopId: integer('sh.id'), name: requiredString('sh.name') }),
    }),
  ),
});

export const productLookupGraphqlStatement = {
  name: 'raw_w4_product_lookup_graphql',
  text: `
select concat('{"data":{"product":',
  coalesce((
    select ${render(graphqlProduct)}
      from products p
      -- The cheapest available offer (offers.ts findCheapestOffers: price, then id).
      left join lateral (
        select o.* from available_offers o
         where o.product_id = p.id and o.market = $1
         order by o.price, o.id limit 1) as o on true
      left join shops sh on sh.id = o.shop_id
     where p.id = $2), 'null'),
  '}}') as body`,
};

/**
 * The generic product's `price` (src/rest/routes/generic.ts): the lowest available prices
 * of new-condition offers, of the others, and of offers in stock (offers.ts
 * summariseAvailableOffers).
 */
const restProduct = object({
  id: integer('p.id'),
  name: requiredString('p.name'),
  price: object({
    regular: decimal('x.regular'),
    alternative: decimal('x.alternative'),
    in_stock: decimal('x.in_stock'),
  }),
});

export const productLookupRestStatement = {
  name: 'raw_w4_product_lookup_rest',
  text: `
select '{"meta":{},"items":[' || ${render(restProduct)} || ']}' as body
  from products p
  cross join lateral (
    select min(o.price) filter (where o.condition = 'CONDITION_NEW') as regular,
           min(o.price) filter (where o.condition <> 'CONDITION_NEW') as alternative,
           min(o.price) filter (where o.stock_status = 'IN_STOCK') as in_stock
      from available_offers o
     where o.product_id = p.id and o.market = $1) as x
 where p.id = $2`,
};
