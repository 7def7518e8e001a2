/**
 * The seeded sample catalogue's prices are believable (seeds/economics.ts): within a model
 * family more storage never costs less, in every market; and every new offer of a product, in
 * every market, lies within the stated band of its base price at the fixed rates.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Currency } from '../src/db/types.ts';
import {
  EUROS_TO,
  familyPricePosition,
  MARKET_ECONOMICS,
  NEW_OFFER_BAND,
} from '../seeds/economics.ts';
import { buildFrame, type CatalogueFrame } from '../seeds/frame.ts';
import { draftProduct, type ProductDraft } from '../seeds/generate/product.ts';
import { SCALES } from '../seeds/scales.ts';
import type { MarketCode } from '../src/markets.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';
import { SEEDED_CATALOGUE } from './helpers/templates.ts';

interface OfferPrice {
  product_id: number;
  market: MarketCode;
  currency: Currency;
  price: number;
  available: boolean;
}

/** A shop's rounding moves a price by up to one step: 10 kronor, 1 euro, pound or dollar. */
const ROUNDING_UNITS: Readonly<Record<Currency, number>> = {
  SEK: 10,
  NOK: 10,
  DKK: 10,
  EUR: 1,
  GBP: 1,
  NZD: 1,
};

/** Brand, model, category and every priced trait but storage: what storage alone varies in. */
function familyOf(draft: ProductDraft): string {
  const priced = draft.leaf.spec.traits
    .filter((trait) => trait.priceStep !== undefined && trait.key !== 'storage')
    .map((trait) => `${trait.key}=${draft.traits.get(trait.key)}`);
  return [draft.leaf.categoryId, draft.shortName, ...priced].join('|');
}

describe(`the sample catalogue's prices on ${databaseKind}`, () => {
  let database: TestDatabase;
  let frame: CatalogueFrame;
  let offers: OfferPrice[];

  beforeAll(async () => {
    database = await createTestDatabase({ contents: 'seeded' });
    const markets = await database.db.selectFrom('markets').select(['code', 'currency']).execute();
    frame = buildFrame(
      SEEDED_CATALOGUE.seed,
      { ...SCALES[SEEDED_CATALOGUE.scale], products: SEEDED_CATALOGUE.products },
      markets,
    );
    const { rows } = await sql<OfferPrice>`
      select product_id, market, currency, price::float8 as price,
             purchasable and stock_status <> 'OUT_OF_STOCK' as available
        from offers where condition = 'CONDITION_NEW'`.execute(database.db);
    offers = rows;
  });
  afterAll(() => database?.dispose());

  it('puts every Apple phone of the sample but the budget SE above the middle of the phones’ range', () => {
    const phones = frame.leaves.find((leaf) => leaf.spec.slug === 'mobile-phones')!;
    const [low, high] = phones.spec.priceEur;
    const middle = Math.sqrt(low * high);
    const apple = Array.from({ length: SEEDED_CATALOGUE.products }, (_, index) =>
      draftProduct(frame, index + 1),
    ).filter(
      (draft) =>
        draft.leaf === phones && draft.brandName === 'Apple' && !draft.name.includes(' SE '),
    );
    expect(apple.length).toBeGreaterThan(0);
    for (const draft of apple)
      expect(draft.basePriceEur, draft.name).toBeGreaterThanOrEqual(middle);
  });

  it('never prices more storage below less within a model family, in any market', () => {
    // The cheapest available new offer: the price a shopper compares.
    const lowest = new Map<string, number>();
    for (const offer of offers) {
      if (!offer.available) continue;
      const key = `${offer.product_id}|${offer.market}`;
      lowest.set(key, Math.min(lowest.get(key) ?? Infinity, offer.price));
    }
    const families = new Map<string, { storage: number; productId: number }[]>();
    for (let id = 1; id <= SEEDED_CATALOGUE.products; id++) {
      const draft = draftProduct(frame, id);
      const storage = draft.traits.get('storage');
      if (storage === undefined) continue;
      const members = families.get(familyOf(draft)) ?? [];
      members.push({ storage: Number(storage), productId: id });
      families.set(familyOf(draft), members);
    }

    let pairs = 0;
    const violations: string[] = [];
    for (const members of families.values()) {
      for (const smaller of members) {
        for (const larger of members) {
          if (larger.storage <= smaller.storage) continue;
          for (const market of frame.markets) {
            const small = lowest.get(`${smaller.productId}|${market.code}`);
            const large = lowest.get(`${larger.productId}|${market.code}`);
            if (small === undefined || large === undefined) continue;
            pairs++;
            if (large < small) {
              violations.push(
                `${market.code}: product ${larger.productId} (${larger.storage} GB) ${large} < ` +
                  `product ${smaller.productId} (${smaller.storage} GB) ${small}`,
              );
            }
          }
        }
      }
    }
    expect(violations).toEqual([]);
    // The rule was exercised, not vacuously true.
    expect(pairs).toBeGreaterThan(10);
  });

  it('keeps every new offer within the band of its base price at the fixed rates', () => {
    const drafts = new Map<number, ProductDraft>();
    const outside: string[] = [];
    const ratios = new Map<number, number[]>();
    for (const offer of offers) {
      let draft = drafts.get(offer.product_id);
      if (draft === undefined) {
        draft = draftProduct(frame, offer.product_id);
        drafts.set(offer.product_id, draft);
      }
      const expected =
        draft.basePriceEur * EUROS_TO[offer.currency] * MARKET_ECONOMICS[offer.market].priceLevel;
      const slack = ROUNDING_UNITS[offer.currency];
      const low = expected * (1 - NEW_OFFER_BAND) - slack;
      const high = expected * (1 + NEW_OFFER_BAND) + slack;
      if (offer.price < low || offer.price > high) {
        outside.push(`${offer.product_id} ${offer.market}: ${offer.price} not in ${low}–${high}`);
      }
      const inEuros = offer.price / EUROS_TO[offer.currency];
      ratios.set(offer.product_id, [...(ratios.get(offer.product_id) ?? []), inEuros]);
    }
    expect(outside).toEqual([]);
    expect(offers.length).toBeGreaterThan(1000);

    // Across markets, in euros, one product's dearest new offer is at most the price levels'
    // spread (nz 1.12 over gb 0.97) and the band's apart.
    const levels = Object.values(MARKET_ECONOMICS).map((economics) => economics.priceLevel);
    const widest =
      (Math.max(...levels) / Math.min(...levels)) * ((1 + NEW_OFFER_BAND) / (1 - NEW_OFFER_BAND));
    for (const [productId, euros] of ratios) {
      const spread = Math.max(...euros) / Math.min(...euros);
      // Shop rounding of cheap items aside (a few euros at most).
      const roundingSlack = 1 + 10 / EUROS_TO.SEK / Math.min(...euros);
      expect(spread, `product ${productId}`).toBeLessThanOrEqual(widest * roundingSlack);
    }
  });
});

describe('a model family’s place in its category’s price range', () => {
  it('is pulled up by premium marks and down by budget words, never out of the range', () => {
    for (const u of [0, 0.3, 0.99]) {
      expect(familyPricePosition('Nokia', 'G42', u)).toBe(u);
      expect(familyPricePosition('Apple', 'iPhone 15', u)).toBeGreaterThanOrEqual(0.5);
      expect(familyPricePosition('Apple', 'iPhone 15 Pro Max', u)).toBeGreaterThanOrEqual(0.875);
      expect(familyPricePosition('Samsung', 'Galaxy S25+', u)).toBeGreaterThanOrEqual(0.5);
      expect(familyPricePosition('Samsung', 'Galaxy A25 5G', u)).toBeLessThan(0.5);
      expect(familyPricePosition('OnePlus', 'Nord CE4 Lite', u)).toBeLessThan(0.25);
    }
  });
});
