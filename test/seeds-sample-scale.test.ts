/**
 * The whole sample scale with the default seed (the catalogue `npm start` serves), checked
 * for what a shopper would believe.
 *
 * Shops with assortments (seeds/vocabulary/shops.ts): a shop offers only in the categories its
 * profile covers, and its name says its profile; department stores sell more kinds of things
 * than specialists.
 *
 * Properties consistent with the model (seeds/vocabulary/model-years.ts, types.ts): every
 * member of a family states the family's release year (its reference's, or the one its model
 * number gives) and the same values of the traits its name does not show; the storage a name
 * shows is the storage stated; the operating system is the brand's.
 *
 * Prices anchored to the product: every model family with a reference price in the vocabulary
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
import { buildFrame, type CatalogueFrame } from '../seeds/frame.ts';
import { draftProduct, type ProductDraft } from '../seeds/generate/product.ts';
import { DEFAULT_SEED, seedCatalogue } from '../seeds/index.ts';
import { SCALES } from '../seeds/scales.ts';
import { REFERENCE_PRICES, type ReferencePrice } from '../seeds/vocabulary/reference-prices.ts';
import {
  isGroup,
  SHOP_NAMES,
  type LeafCategorySpec,
  type PropertySpec,
} from '../seeds/vocabulary/index.ts';
import { SHOP_PROFILES, type ShopProfile } from '../seeds/vocabulary/shops.ts';
import { MODEL_YEARS, modelYear } from '../seeds/vocabulary/model-years.ts';
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

interface ShopCategoryOffers {
  shop_id: number;
  name: string;
  market: MarketCode;
  category_id: number;
  offers: number;
}

describe(`the sample scale on ${databaseKind}`, () => {
  let database: TestDatabase;
  let frame: CatalogueFrame;
  /** Offer prices in euros by family and market, with the family's reference. */
  const families = new Map<
    string,
    { reference: ReferencePrice; euros: Map<MarketCode, number[]> }
  >();

  beforeAll(async () => {
    database = await createTestDatabase();
    await seedCatalogue(database, { scale: 'sample', asOf: '2026-11-01', progress: false });
    const markets = await database.db.selectFrom('markets').select(['code', 'currency']).execute();
    frame = buildFrame(DEFAULT_SEED, SCALES.sample, markets);
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

  it('has every shop offer only in the categories its profile covers, named for its profile', async () => {
    const profileOf = new Map<number, ShopProfile>();
    for (const market of frame.markets) {
      market.shopIds.forEach((id, position) => profileOf.set(id, market.shopProfiles[position]!));
    }
    const categories = await database.db
      .selectFrom('categories')
      .select(['id', 'parent_id', 'slug'])
      .execute();
    const byId = new Map(categories.map((row) => [row.id, row]));
    const ancestry = (id: number): string[] => {
      const row = byId.get(id)!;
      return [row.slug, ...(row.parent_id === null ? [] : ancestry(row.parent_id))];
    };
    const { rows } = await sql<ShopCategoryOffers>`
      select s.id as shop_id, s.name, s.market, p.category_id, count(*)::int as offers
        from offers o join shops s on s.id = o.shop_id join products p on p.id = o.product_id
       group by s.id, s.name, s.market, p.category_id`.execute(database.db);

    const outside: string[] = [];
    const leavesOf = new Map<number, number>();
    for (const row of rows) {
      const profile = profileOf.get(row.shop_id)!;
      const sold: readonly string[] = SHOP_PROFILES[profile];
      if (!ancestry(row.category_id).some((slug) => sold.includes(slug))) {
        outside.push(`${row.name} (${profile}) offers ${byId.get(row.category_id)!.slug}`);
      }
      leavesOf.set(row.shop_id, (leavesOf.get(row.shop_id) ?? 0) + 1);
    }
    expect(outside).toEqual([]);
    expect(rows.length).toBeGreaterThan(1000);

    const shops = await database.db.selectFrom('shops').select(['id', 'name', 'market']).execute();
    for (const shop of shops) {
      const stems = SHOP_NAMES[shop.market].stems[profileOf.get(shop.id)!];
      expect(
        stems.some((stem) => shop.name.startsWith(stem)),
        `${shop.name}: ${profileOf.get(shop.id)}`,
      ).toBe(true);
    }
    // Department stores carry more kinds of things than any specialist.
    const breadth = (profile: ShopProfile) =>
      shops
        .filter((shop) => profileOf.get(shop.id) === profile)
        .map((shop) => leavesOf.get(shop.id) ?? 0);
    const specialists = (Object.keys(SHOP_PROFILES) as ShopProfile[]).filter(
      (profile) => profile !== 'department' && profile !== 'electronics',
    );
    expect(Math.min(...breadth('department'))).toBeGreaterThan(
      Math.max(...specialists.flatMap(breadth)),
    );
    expect(Math.max(...breadth('bikes'))).toBe(1);
  });

  it('states properties that agree with the product’s name and family', async () => {
    const { rows } = await sql<{ product_id: number; name: string; value: string }>`
      select product_id, name, coalesce(value_number::text, value_string) as value
        from product_properties where type in ('number', 'string')`.execute(database.db);
    const stated = new Map<number, Map<string, string>>();
    for (const row of rows) {
      if (!stated.has(row.product_id)) stated.set(row.product_id, new Map());
      stated.get(row.product_id)!.set(row.name, row.value);
    }
    const wrong: string[] = [];
    const familyValues = new Map<string, string>();
    let years = 0;
    let sizes = 0;
    for (const [productId, properties] of stated) {
      const draft = draftProduct(frame, productId);
      const spec = draft.leaf.spec;
      const model = draft.shortName.slice(draft.brandName.length + 1);
      const year = properties.get('Release year');
      const expectedYear =
        REFERENCE_PRICES[spec.slug]?.[draft.shortName]?.year ??
        modelYear(MODEL_YEARS[spec.slug] ?? [], model);
      if (year !== undefined && expectedYear !== undefined) {
        years++;
        if (Number(year) !== expectedYear)
          wrong.push(`${draft.name}: released ${year}, not ${expectedYear}`);
      }
      // Every member of a family says the same of what its name does not tell apart.
      for (const name of familyLevelNames(spec)) {
        const value = properties.get(name);
        if (value === undefined) continue;
        const key = `${spec.slug}|${draft.shortName}|${name}`;
        const known = familyValues.get(key);
        if (known === undefined) familyValues.set(key, value);
        else if (known !== value)
          wrong.push(`${draft.name}: ${name} ${value}, its family's ${known}`);
      }
      // A laptop's size in its name is the screen size it states.
      const inches = /(?<!\d)(1[3-8])(?!\d)/.exec(model)?.[1];
      const screen = properties.get('Screen size');
      if (spec.slug === 'laptops' && inches !== undefined && screen !== undefined) {
        sizes++;
        if (Math.floor(Number(screen)) !== Number(inches)) wrong.push(`${draft.name}: ${screen}"`);
      }
      const storage = properties.get('Storage');
      if (storage !== undefined) {
        const gb = Number(storage);
        const label = gb >= 1024 ? `${gb / 1024}TB` : `${gb}GB`;
        if (!draft.name.includes(` ${label}`)) wrong.push(`${draft.name}: storage ${storage}`);
      }
      const system = properties.get('Operating system');
      const apple = draft.brandName === 'Apple';
      if (system !== undefined && apple !== /^(iOS|macOS)/.test(system)) {
        wrong.push(`${draft.name}: ${system}`);
      }
    }
    expect(wrong).toEqual([]);
    expect(years).toBeGreaterThan(200);
    expect(sizes).toBeGreaterThan(20);
    expect(familyValues.size).toBeGreaterThan(1000);
  });
});

/** The properties a family's members share: its year, sizes and unnamed traits. */
function familyLevelNames(spec: LeafCategorySpec): string[] {
  const unnamed = new Set(spec.traits.filter((trait) => !trait.label).map((trait) => trait.key));
  const names: string[] = [];
  const walk = (node: PropertySpec) => {
    if (isGroup(node)) return node.children.forEach(walk);
    const value = node.value;
    if ('releaseYear' in value || 'sizeInModel' in value) names.push(node.name);
    if ('trait' in value && unnamed.has(value.trait)) names.push(node.name);
  };
  spec.properties.forEach(walk);
  return names;
}
