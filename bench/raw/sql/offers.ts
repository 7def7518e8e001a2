/**
 * Offer pieces several statements share: the availability rule (the `available_offers`
 * view itself, as the gateway reads it), prices, shops and `ref`-tagged URLs.
 */
import {
  decimal,
  integer,
  object,
  requiredString,
  nullWhen,
  timestamp,
  word,
  type Json,
} from '../json-sql.ts';
import { IMAGES_PATH } from '../../../src/images/image-urls.ts';

/**
 * A page of a product's available offers in a market, cheapest first (ties by id), as
 * Product.offers orders them (offers.ts OFFER_ORDERS.PRICE). `productId` and `market` are SQL
 * expressions; use in `cross join lateral`.
 */
export function availableOffers(productId: string, market: string, limit: number): string {
  return `(select o.* from available_offers o
            where o.product_id = ${productId} and o.market = ${market}
            order by o.price, o.id limit ${limit})`;
}

/**
 * The `ref` rule of src/graph/scope.ts (tagUrlWithRef: `new URL(url)`, then
 * `searchParams.set('ref', ref)`): without a ref the URL as stored; with one, the query's
 * first `ref` parameter takes the value (later ones are removed), or `ref=<value>` is
 * appended. The value is form-encoded as URLSearchParams does it; refs are [A-Za-z0-9._~-]
 * (the REST and GraphQL pattern), of which only `~` changes (%7E). URLSearchParams also drops
 * empty parameters (`&&`) and writes a parameter without `=` as `name=`: done here too. What
 * is not redone: re-encoding other parameters' percent escapes (stored URLs are already in
 * that canonical form) and URL normalisation (stored URLs are normalised: the seed writes
 * `https://<host>/p/<id>[?variant=<n>]`).
 *
 * `ref` is a SQL expression of type text, NULL for none. Only string functions, no subquery:
 * the branches a request does not take then cost the planner next to nothing.
 */
export function taggedUrl(url: string, ref: string): string {
  const value = `replace(${ref}, '~', '%7E')`;
  const base = `substring(${url} from '^[^?#]*')`;
  const fragment = `coalesce(substring(${url} from '#.*$'), '')`;
  // The query's parameters as `&name=value&…&` (or `&`): empty ones dropped, `=` added.
  const pairs = `regexp_replace(
      regexp_replace('&' || coalesce(substring(${url} from '^[^?#]*\\?([^#]*)'), '') || '&',
                     '&{2,}', '&', 'g'),
      '&([^&=]+)(?=&)', '&\\1=', 'g')`;
  const firstRef = `strpos(${pairs}, '&ref=')`;
  // After the first `ref`: the parameters that follow it, other `ref`s removed.
  const afterFirstRef = `regexp_replace(
      substr(${pairs}, ${firstRef} + strpos(substr(${pairs}, ${firstRef} + 1), '&')),
      '&ref=[^&]*(?=&)', '', 'g')`;
  const query = `case
      when ${firstRef} > 0
        then btrim(substr(${pairs}, 1, ${firstRef} - 1) || '&ref=' || ${value}
                   || ${afterFirstRef}, '&')
      else btrim(${pairs} || 'ref=' || ${value}, '&') end`;
  return `case
    when ${ref} is null then ${url}
    when strpos(${url}, '?') = 0 and strpos(${url}, '#') = 0 then ${url} || '?ref=' || ${value}
    else ${base} || '?' || ${query} || ${fragment}
  end`;
}

/** `{value, currency[, includingShipping]}` of an offer's current price (Money). */
export function offerPrice(o: string, options: { withShipping: boolean }): Json {
  return object({
    value: decimal(`${o}.price`),
    currency: word(`${o}.currency`),
    ...(options.withShipping
      ? { includingShipping: decimal(`${o}.price_including_shipping`) }
      : {}),
  });
}

/** A PeriodPrice (`member`, `sales` or `original`), null when the offer has no such price. */
export function periodPrice(o: string, kind: 'member' | 'sales' | 'original'): Json {
  const column = `${o}.${kind}_price`;
  return nullWhen(
    `${column} is null`,
    object({
      value: decimal(column),
      currency: word(`${o}.currency`),
      start: timestamp(`${column}_start`),
      end: timestamp(`${column}_end`),
    }),
  );
}

/**
 * `{small, large}` of a shop's logo (src/images/image-urls.ts shopLogoUrls), `publicBase` the
 * statement's parameter holding the base of the service's own URLs.
 */
export function logo(sh: string, publicBase: string): Json {
  const url = requiredString(
    `${publicBase}::text || '${IMAGES_PATH}/shops/' || ${sh}.id || '/logo.svg'`,
  );
  return object({ small: url, large: url });
}

/** A shop as the REST shapes show it: `{id, name, logo}`. */
export function restShop(sh: string, publicBase: string): Json {
  return object({
    id: integer(`${sh}.id`),
    name: requiredString(`${sh}.name`),
    logo: logo(sh, publicBase),
  });
}
