/**
 * Prices anchored to the product, over the whole sample scale with the default seed (the
 * catalogue `npm start` serves): every model family with a reference price in the vocabulary
 * (seeds/vocabulary/reference-prices.ts) has its median new offer, in every market that sells
 * it, within ±35 % of its reference at the fixed exchange rates. A reference is the price of the
 * family's middle configuration, so each offer is first brought to it by its traits' steps (a
 * 1 TB phone costs more than the 256 GB one the reference names; a market that sells only the
 * 1 TB one says nothing of the family's level otherwise).
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Currency } from '../src/db/types.ts';
import type { MarketCode } from '../src/markets.ts';
import { EUROS_TO } from '../seeds/economics.ts';
import { buildFrame } from '../seeds/frame.ts';
import { draftProduct, type ProductDraft } from '../seeds/generate/product.ts';
import { DEFAULT_SEED, seedCatalogue } from '../seeds/index.ts';
import { SCALES } from '../seeds/scales.ts';
import { REFERENCE_PRICES, type ReferencePrice } from '../seeds/vocabulary/reference-prices.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from './helpers/database.ts';

interface OfferPrice {
  product_id: number;
  market: MarketCode;
  currency: Currency;
  price: number;
}

const TOLERANCE = 0.35;

/** What the product's traits' steps add over the family's middle configuration. */
function configurationFactor(draft: ProductDraft): number {
  return draft.leaf.spec.traits.reduce((factor, trait) => {
    const step = trait.priceStep ?? 0;
    const position = trait.values.indexOf(draft.traits.get(trait.key)!);
    return (factor * (1 + step * position)) / (1 + (step * (trait.values.length - 1)) / 2);
  }, 1);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

describe(`reference prices over the sample scale on ${databaseKind}`, () => {
  let database: TestDatabase;
  /** Offer prices in euros by family and market, with the family's reference. */
  const families = new Map<
    string,
    { reference: ReferencePrice; euros: Map<MarketCode, number[]> }
  >();

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedCatalogue(database, { scale: 'sample', asOf: '2026-11-01', progress: false });
    const markets = await database.db.selectFrom('markets').select(['code', 'currency']).execute();
    const frame = buildFrame(DEFAULT_SEED, SCALES.sample, markets);
    const { rows } = await sql<OfferPrice>`
      select product_id, market, currency, price::float8 as price
        from offers where condition = 'CONDITION_NEW'`.execute(database.db);
    const familyOf = new Map<number, { key: string; factor: number } | null>();
    for (const offer of rows) {
      if (!familyOf.has(offer.product_id)) {
        const draft = draftProduct(frame, offer.product_id);
        const reference = REFERENCE_PRICES[draft.leaf.spec.slug]?.[draft.shortName];
        const key = `${draft.leaf.spec.slug}|${draft.shortName}`;
        familyOf.set(
          offer.product_id,
          reference ? { key, factor: configurationFactor(draft) } : null,
        );
        if (reference && !families.has(key)) families.set(key, { reference, euros: new Map() });
      }
      const family = familyOf.get(offer.product_id);
      if (!family) continue;
      const { euros } = families.get(family.key)!;
      const inEuros = offer.price / EUROS_TO[offer.currency] / family.factor;
      euros.set(offer.market, [...(euros.get(offer.market) ?? []), inEuros]);
    }
  }, 300_000);
  afterAll(() => database?.dispose());

  it('puts every referenced family’s median new offer within ±35 % of its reference in every market', () => {
    const outside: string[] = [];
    let checked = 0;
    for (const [family, { reference, euros }] of families) {
      for (const [market, prices] of euros) {
        checked++;
        const ratio = median(prices) / reference.eur;
        if (Math.abs(ratio - 1) > TOLERANCE) {
          outside.push(
            `${family} in ${market}: median €${median(prices).toFixed(0)}, reference €${reference.eur}`,
          );
        }
      }
    }
    expect(outside).toEqual([]);
    // Not vacuous: most referenced families are in the sample, most in several markets.
    expect(families.size).toBeGreaterThan(100);
    expect(checked).toBeGreaterThan(3 * families.size);
  });

  it('names the well-known products of the issue at their level', () => {
    const level = (family: string, market: MarketCode) =>
      median(families.get(family)?.euros.get(market) ?? [NaN]);
    // Sony's flagship headphones cost what they do, not a category's bottom (£15 before).
    const sony = [...families.keys()].filter((key) => key.startsWith('headphones|Sony WH-1000XM'));
    expect(sony.length).toBeGreaterThan(0);
    for (const family of sony) {
      for (const market of families.get(family)!.euros.keys()) {
        expect(level(family, market), `${family} ${market}`).toBeGreaterThan(250);
      }
    }
  });
});
