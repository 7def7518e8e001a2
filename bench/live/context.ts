/** What every part of the live bench works with. */
import type { Kysely } from 'kysely';
import type pg from 'pg';
import type { Database } from '../../src/db/types.ts';

export interface LiveContext {
  databaseUrl: string;
  /** Reads the catalogue (the items to push, the runs' outbox rows). */
  client: pg.ClientBase;
  /** Makes the shop's API client (bench/feeds/gateway.ts shopToken). */
  db: Kysely<Database>;
  log: (line: string) => void;
}

/** The selection every subscriber of the bench asks for: what a product page would show. */
export const LOWEST_PRICE_CHANGED = /* GraphQL */ `
  subscription BenchLowestPriceChanged($market: Market!, $ids: [Int!]!) {
    lowestPriceChanged(market: $market, productIds: $ids) {
      product {
        productId
        name
      }
      previous {
        value
      }
      current {
        value
        currency
      }
      offerCount
      lowestOffer {
        offerId
        url
        shop {
          name
        }
      }
      changedAt
    }
  }
`;

/** The subscription of `productIds` in the market (a code such as `se`). */
export function watching(market: string, productIds: readonly number[]) {
  return {
    query: LOWEST_PRICE_CHANGED,
    variables: { market: market.toUpperCase(), ids: productIds },
  };
}

/** The current lowest price an event carries, and its product. */
export function eventPrice(payload: { data?: any }): { productId: number; value: number } {
  const change = payload.data?.lowestPriceChanged;
  if (!change) throw new Error(`not a lowestPriceChanged event: ${JSON.stringify(payload)}`);
  return { productId: change.product.productId, value: change.current.value };
}
