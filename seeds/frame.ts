/**
 * The catalogue's frame: everything decided before the first product is generated. The small
 * reference tables (brands, categories, shops) and, per product, its leaf category and its
 * rank there — a rank needs to know the whole category, so it is fixed up front in two typed
 * arrays (5 bytes a product) instead of sorting a million products afterwards.
 */
import { MARKET_CODES, type MarketCode } from '../src/markets.ts';
import type { Currency } from '../src/db/types.ts';
import { EUROS_TO, MARKET_ECONOMICS, type MarketEconomics } from './economics.ts';
import { assertCopySafe } from './load/copy-text.ts';
import { Random, STREAM, WeightedPicker } from './random.ts';
import type { ScaleParameters } from './scales.ts';
import type { Cell } from './tables.ts';
import { expansionsOf, tidyName } from './generate/names.ts';
import { CATEGORY_TREE, IMAGE_CDN, SHOP_NAMES, type LeafCategorySpec } from './vocabulary/index.ts';
import {
  LEADING_PROFILES,
  SHOP_PROFILES,
  SPECIALIST_WEIGHTS,
  type ShopProfile,
} from './vocabulary/shops.ts';
import { MODEL_YEARS, modelYear } from './vocabulary/model-years.ts';
import { REFERENCE_PRICES } from './vocabulary/reference-prices.ts';

export interface MarketRow {
  code: MarketCode;
  currency: Currency;
}

export interface LeafFrame {
  categoryId: number;
  spec: LeafCategorySpec;
  /** Brand names of this leaf, and their ids in the same order. */
  brandNames: readonly string[];
  brandIds: readonly number[];
  /** Products in this leaf. */
  size: number;
  /** The shops that sell this category, by market index (their profiles cover it). */
  carriers: readonly ShopCarriers[];
  /**
   * Base prices in euros of the families with a reference price: the reference over the
   * traits' middle factor, so that the family's middle configuration costs the reference.
   */
  referenceBasePrices: ReadonlyMap<string, number>;
  /** Release years the vocabulary knows, by family (a reference's, or the model name's). */
  releaseYears: ReadonlyMap<string, number>;
}

export interface MarketFrame {
  code: MarketCode;
  currency: Currency;
  /** Position in MARKET_CODES: keys the market's random streams. */
  index: number;
  eurosToLocal: number;
  economics: MarketEconomics;
  shopIds: Int32Array;
  shopUrls: readonly string[];
  /** What each shop sells, by position (vocabulary/shops.ts). */
  shopProfiles: readonly ShopProfile[];
}

/** A category's shops in a market: positions in the market's shops, and a picker over them. */
export interface ShopCarriers {
  positions: Int32Array;
  /** Big shops carry more of the market's offers than small ones. */
  picker: WeightedPicker;
}

export interface CatalogueFrame {
  seed: number;
  scale: ScaleParameters;
  leaves: readonly LeafFrame[];
  markets: readonly MarketFrame[];
  /** Index into `leaves` of product id p at p − 1. */
  productLeaf: Uint8Array;
  /** Rank within its category of product id p at p − 1 (1 = most popular). */
  productRank: Int32Array;
  rows: { brands: Cell[][]; categories: Cell[][]; shops: Cell[][] };
}

export function buildFrame(
  seed: number,
  scale: ScaleParameters,
  marketRows: readonly MarketRow[],
): CatalogueFrame {
  assertVocabularyCopySafe();
  const { rows: categories, leaves: leafSpecs } = buildCategories();
  const { rows: brands, idByName } = buildBrands(leafSpecs.map((leaf) => leaf.spec));
  const { rows: shops, markets } = buildShops(seed, scale, marketRows);
  const { productLeaf, productRank, sizes } = assignProducts(seed, scale.products, leafSpecs);

  const leaves = leafSpecs.map(({ spec, categoryId, ancestry }, index): LeafFrame => {
    const brandNames = Object.keys(spec.lines);
    return {
      categoryId,
      spec,
      brandNames,
      brandIds: brandNames.map((name) => idByName.get(name) as number),
      size: sizes[index] ?? 0,
      carriers: markets.map((market) => carriersOf(ancestry, market.shopProfiles)),
      ...familyFactsOf(spec),
    };
  });
  return {
    seed,
    scale,
    leaves,
    markets,
    productLeaf,
    productRank,
    rows: { brands, categories, shops },
  };
}

/** Roots, groups and leaves numbered depth first, so a category's id follows its parent's. */
function buildCategories() {
  const rows: Cell[][] = [];
  /** `ancestry`: the leaf's slug and those above it. */
  const leaves: { spec: LeafCategorySpec; categoryId: number; ancestry: string[] }[] = [];
  const logo = (slug: string, size: number) => `${IMAGE_CDN}/categories/${slug}-${size}.png`;
  const add = (
    parentId: number | null,
    position: number,
    node: { slug: string; name: string; description: string },
    isLeaf: boolean,
  ) => {
    const id = rows.length + 1;
    // Roots are navigation only and have no artwork; every group and leaf has a logo.
    const hasLogo = parentId !== null;
    rows.push([
      id,
      parentId,
      node.slug,
      node.name,
      node.description,
      hasLogo ? logo(node.slug, 64) : null,
      hasLogo ? logo(node.slug, 256) : null,
      isLeaf,
      position,
    ]);
    return id;
  };
  CATEGORY_TREE.forEach((root, rootPosition) => {
    const rootId = add(null, rootPosition, root, false);
    root.groups.forEach((group, groupPosition) => {
      const groupId = add(rootId, groupPosition, group, false);
      group.leaves.forEach((leaf, leafPosition) => {
        const categoryId = add(groupId, leafPosition, leaf, true);
        leaves.push({ spec: leaf, categoryId, ancestry: [root.slug, group.slug, leaf.slug] });
      });
    });
  });
  const slugs = new Set(rows.map((row) => row[2]));
  if (slugs.size !== rows.length) throw new Error('vocabulary: category slugs must be unique');
  for (const [profile, sold] of Object.entries(SHOP_PROFILES)) {
    const unknown = sold.filter((slug) => !slugs.has(slug));
    if (unknown.length) throw new Error(`vocabulary: shop profile ${profile} sells ${unknown}`);
  }
  return { rows, leaves };
}

/**
 * What the vocabulary states of a leaf's model families, by family name (brand and model):
 * reference prices (vocabulary/reference-prices.ts) as base prices, each over the product of
 * its priced traits' middle steps; and release years, the reference's, else the model-name
 * rule's (vocabulary/model-years.ts). A reference naming no family the leaf's lines can name
 * is a vocabulary error.
 */
function familyFactsOf(spec: LeafCategorySpec) {
  const references = REFERENCE_PRICES[spec.slug] ?? {};
  const rules = MODEL_YEARS[spec.slug] ?? [];
  const families = new Set<string>();
  const releaseYears = new Map<string, number>();
  for (const [brand, patterns] of Object.entries(spec.lines)) {
    for (const model of patterns.flatMap(expansionsOf)) {
      const family = tidyName(`${brand} ${model}`);
      families.add(family);
      const year = modelYear(rules, model);
      if (year !== undefined) releaseYears.set(family, year);
    }
  }
  const middle = spec.traits.reduce(
    (factor, trait) => factor * (1 + ((trait.priceStep ?? 0) * (trait.values.length - 1)) / 2),
    1,
  );
  const referenceBasePrices = new Map<string, number>();
  for (const [family, reference] of Object.entries(references)) {
    if (!families.has(family)) {
      throw new Error(`vocabulary: reference price for "${family}", no family of ${spec.slug}`);
    }
    referenceBasePrices.set(family, reference.eur / middle);
    releaseYears.set(family, reference.year);
  }
  return { referenceBasePrices, releaseYears };
}

/** One row per brand name, in the order brands first appear in the vocabulary. */
function buildBrands(leaves: readonly LeafCategorySpec[]) {
  const idByName = new Map<string, number>();
  for (const leaf of leaves) {
    for (const name of Object.keys(leaf.lines)) {
      if (!idByName.has(name)) idByName.set(name, idByName.size + 1);
    }
  }
  const rows: Cell[][] = [...idByName].map(([name, id]) => [id, name]);
  return { rows, idByName };
}

function buildShops(seed: number, scale: ScaleParameters, marketRows: readonly MarketRow[]) {
  const rows: Cell[][] = [];
  const currencyOf = new Map(marketRows.map((row) => [row.code, row.currency]));
  const markets = MARKET_CODES.map((code, index): MarketFrame => {
    const currency = currencyOf.get(code);
    if (currency === undefined) throw new Error(`market ${code} is missing: run the migrations`);
    const { names, profiles } = shopsOf(seed, code, index, scale.shopsPerMarket);
    const shopIds = new Int32Array(names.length);
    const shopUrls = names.map((name, position) => {
      const id = rows.length + 1;
      const url = `https://www.${slugify(name).replaceAll('-', '')}.${SHOP_NAMES[code].domain}`;
      // A few shops have sent no logo yet.
      const hasLogo = (id * 7919) % 10 !== 0;
      rows.push([
        id,
        code,
        name,
        url,
        hasLogo ? `${IMAGE_CDN}/shops/${id}/logo-small.png` : null,
        hasLogo ? `${IMAGE_CDN}/shops/${id}/logo-large.png` : null,
      ]);
      shopIds[position] = id;
      return url;
    });
    return {
      code,
      currency,
      index,
      eurosToLocal: EUROS_TO[currency],
      economics: MARKET_ECONOMICS[code],
      shopIds,
      shopUrls,
      shopProfiles: profiles,
    };
  });
  return { rows, markets };
}

/** Zipf-like: the biggest shop lists about ten times what the fiftieth does. */
function shopWeight(position: number): number {
  return 1 / (position + 2) ** 0.6;
}

/** The shops (by position) whose profile covers a category, given its slug and its ancestors'. */
function carriersOf(ancestry: readonly string[], profiles: readonly ShopProfile[]): ShopCarriers {
  const positions = profiles.flatMap((profile, position) =>
    SHOP_PROFILES[profile].some((slug) => ancestry.includes(slug)) ? [position] : [],
  );
  return {
    positions: Int32Array.from(positions),
    picker: new WeightedPicker(positions.map(shopWeight)),
  };
}

/**
 * A market's shops, biggest first: their profiles (the leading ones, then drawn) and distinct
 * names, each of a stem of its profile and an ending, then with a city once those run out.
 */
function shopsOf(seed: number, code: MarketCode, marketIndex: number, count: number) {
  const { stems, endings, cities } = SHOP_NAMES[code];
  const random = new Random(seed, STREAM.shops, marketIndex);
  const drawn = Object.keys(SPECIALIST_WEIGHTS) as ShopProfile[];
  const picker = new WeightedPicker(drawn.map((profile) => SPECIALIST_WEIGHTS[profile]));
  const profiles = Array.from(
    { length: count },
    (_, position) => LEADING_PROFILES[position] ?? (drawn[picker.pick(random)] as ShopProfile),
  );
  // Compound words where the language writes them so ('Cykeldirekt'), two words in French.
  const join = (stem: string, ending: string) =>
    code === 'fr' ? `${stem} ${ending}` : `${stem}${ending}`;
  const combinations = new Map<ShopProfile, string[]>();
  const named = new Map<ShopProfile, number>();
  const names = profiles.map((profile) => {
    let names = combinations.get(profile);
    if (!names) {
      names = random.shuffle(stems[profile].flatMap((stem) => endings.map((e) => join(stem, e))));
      combinations.set(profile, names);
    }
    const index = named.get(profile) ?? 0;
    named.set(profile, index + 1);
    const round = Math.floor(index / names.length);
    const city = round === 0 ? '' : ` ${cities[(round - 1) % cities.length]}`;
    const suffix = round > cities.length ? ` ${Math.ceil(round / cities.length)}` : '';
    return `${names[index % names.length]}${city}${suffix}`;
  });
  return { names, profiles };
}

/**
 * Each product's leaf (weighted by the leaf's share) and its rank there: a shuffled 1..n per
 * leaf, so rank does not follow product id.
 */
function assignProducts(
  seed: number,
  products: number,
  leaves: readonly { spec: LeafCategorySpec }[],
) {
  const picker = new WeightedPicker(leaves.map((leaf) => leaf.spec.weight));
  const productLeaf = new Uint8Array(products);
  const sizes = new Array<number>(leaves.length).fill(0);
  for (let index = 0; index < products; index++) {
    const leaf = picker.pick(new Random(seed, STREAM.assignment, index + 1));
    productLeaf[index] = leaf;
    sizes[leaf] = (sizes[leaf] ?? 0) + 1;
  }
  const ranksByLeaf = sizes.map((size, leaf) => {
    const ranks = Array.from({ length: size }, (_, i) => i + 1);
    return new Random(seed, STREAM.assignment, 0, leaf + 1).shuffle(ranks);
  });
  const nextInLeaf = new Array<number>(leaves.length).fill(0);
  const productRank = new Int32Array(products);
  for (let index = 0; index < products; index++) {
    const leaf = productLeaf[index] as number;
    const position = nextInLeaf[leaf] as number;
    nextInLeaf[leaf] = position + 1;
    productRank[index] = ranksByLeaf[leaf]?.[position] as number;
  }
  return { productLeaf, productRank, sizes };
}

/**
 * Product rows are written as raw COPY text, without escaping (seeds/load/copy-text.ts): that
 * holds only while no string of the vocabulary contains a backslash, a tab or a newline.
 */
function assertVocabularyCopySafe(): void {
  const visit = (value: unknown, where: string): void => {
    if (typeof value === 'string') assertCopySafe(value, where);
    else if (Array.isArray(value)) value.forEach((item) => visit(item, where));
    else if (value && typeof value === 'object') {
      for (const [key, item] of Object.entries(value)) {
        visit(key, where);
        visit(item, `${where}.${key}`);
      }
    }
  };
  visit(CATEGORY_TREE, 'vocabulary');
  visit(SHOP_NAMES, 'shop names');
}

/** Lower-case ASCII words joined by '-': 'Kök & Hem' → 'kok-hem'. */
export function slugify(text: string): string {
  return text
    .replace(/[øØ]/g, 'o')
    .replace(/[æÆ]/g, 'ae')
    .replace(/[œŒ]/g, 'oe')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}
