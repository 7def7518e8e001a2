/**
 * Hand-made catalogue rows for tests that need exact, known data rather than the generator.
 */
import type { Insertable, Kysely } from 'kysely';
import { MARKET_CODES, MARKET_CURRENCY, type MarketCode } from '../../src/markets.ts';
import type { Database, OffersTable } from '../../src/db/types.ts';

/** One brand, one leaf category and one shop per market, ids 1 (shop ids 1..7). */
export async function insertBasics(db: Kysely<Database>): Promise<void> {
  await db.insertInto('brands').values({ id: 1, name: 'Acme' }).execute();
  await db
    .insertInto('categories')
    .values([
      { id: 1, parent_id: null, slug: 'electronics', name: 'Electronics', is_leaf: false },
      { id: 2, parent_id: 1, slug: 'mobile-phones', name: 'Mobile phones', is_leaf: true },
    ])
    .execute();
  await db
    .insertInto('shops')
    .values(
      MARKET_CODES.map((market, index) => ({
        id: index + 1,
        market,
        name: `Shop ${market}`,
        url: `https://shop-${market}.example`,
        logo_small_url: null,
        logo_large_url: null,
      })),
    )
    .execute();
}

export function shopIdOf(market: MarketCode): number {
  return MARKET_CODES.indexOf(market) + 1;
}

export async function insertProduct(
  db: Kysely<Database>,
  id: number,
  overrides: Partial<Insertable<Database['products']>> = {},
): Promise<void> {
  await db
    .insertInto('products')
    .values({
      id,
      name: `Phone ${id}`,
      brand_id: 1,
      category_id: 2,
      rank_within_category: id,
      popularity: 100 - id,
      description: null,
      image_small_url: null,
      image_large_url: null,
      ...overrides,
    })
    .execute();
}

export type OfferFixture = Partial<Insertable<OffersTable>> &
  Pick<Insertable<OffersTable>, 'id' | 'product_id' | 'price'>;

export async function insertOffers(db: Kysely<Database>, offers: OfferFixture[]): Promise<void> {
  await db
    .insertInto('offers')
    .values(
      offers.map((offer) => {
        const market = offer.market ?? 'se';
        return {
          shop_id: shopIdOf(market),
          item_id: `item-${offer.id}`,
          market,
          currency: MARKET_CURRENCY[market],
          offer_name: `Offer ${offer.id}`,
          url: `https://shop-${market}.example/p/${offer.id}`,
          condition: 'CONDITION_NEW' as const,
          stock_status: 'IN_STOCK' as const,
          purchasable: true,
          price_including_shipping: null,
          member_price: null,
          sales_price: null,
          original_price: null,
          updated_at: '2026-11-01T00:00:00Z',
          ...offer,
        };
      }),
    )
    .execute();
}
