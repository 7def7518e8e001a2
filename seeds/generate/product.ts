/**
 * A product's identity: brand, name, traits, popularity, base price and the markets that sell
 * it, drawn from the product's own random stream. Everything else about the product (offers,
 * properties, history) derives from this draft.
 */
import type { CatalogueFrame, LeafFrame, MarketFrame } from '../frame.ts';
import { Random, STREAM } from '../random.ts';
import type { CopyBuffer } from '../load/copy-buffer.ts';
import { familyPricePosition, MARKET_PRICE_JITTER } from '../economics.ts';
import { IMAGE_CDN } from '../vocabulary/index.ts';
import { expandPattern, tidyName } from './names.ts';

export interface ProductDraft {
  id: number;
  leaf: LeafFrame;
  brandName: string;
  /** The brand as some shops shout it in offer names. */
  brandUpper: string;
  /** The start of the brand's part numbers: its first letters and digits, in capitals. */
  mpnPrefix: string;
  brandId: number;
  /** The brand's position among all brands, from 0 (keys its GTIN prefix). */
  brandIndex: number;
  name: string;
  /** The name's UTF-8 bytes: most of the product's offers carry it. */
  nameBytes: Uint8Array;
  /** Brand and model without the traits: how some shops title their offers. */
  shortName: string;
  traits: ReadonlyMap<string, number | string>;
  rank: number;
  popularity: number;
  /** 0 for the most popular product of its category, towards 1 for the least. */
  obscurity: number;
  /**
   * The model family's base price (from its reference price, or drawn in its category's range)
   * × the steps of this product's traits.
   */
  basePriceEur: number;
  /** The year the model family came out (vocabulary/model-years.ts), shared by its members. */
  releaseYear: number;
  /** The family's market factor, by market index (seeds/economics.ts). */
  marketFactors: readonly number[];
  markets: readonly MarketFrame[];
  description: string;
  hasImage: boolean;
}

/** The years a family whose year the vocabulary does not know came out in. */
const RELEASE_YEARS = [2019, 2026] as const;

/** Strictly decreasing in rank (so rank 1..n is the popularity order), heavy at the top. */
function popularityOf(rank: number, size: number, weight: number): number {
  return Math.round((weight * 2000) / rank ** 0.8) + (size - rank);
}

export function draftProduct(frame: CatalogueFrame, id: number): ProductDraft {
  const random = new Random(frame.seed, STREAM.product, id);
  const leafIndex = frame.productLeaf[id - 1] as number;
  const leaf = frame.leaves[leafIndex] as LeafFrame;
  const spec = leaf.spec;
  const rank = frame.productRank[id - 1] as number;

  const brandIndex = random.int(0, leaf.brandNames.length - 1);
  const brandName = leaf.brandNames[brandIndex] as string;
  const model = expandPattern(random.pick(spec.lines[brandName] ?? []), random);

  // One price per model family (brand and model in a category): its reference price where the
  // vocabulary states one; else drawn from the family's own stream so every member agrees:
  // log-uniform, as many families between 100 and 200 euros as between 1000 and 2000, pulled
  // up or down by the family's premium or budget marks (familyPricePosition). Members differ by
  // their named traits' steps alone. The draw is made either way, so the streams after it stay
  // put.
  const shortName = tidyName(`${brandName} ${model}`);
  const family = new Random(frame.seed, STREAM.family, leafIndex, hashText(shortName));
  const [low, high] = spec.priceEur;
  const position = familyPricePosition(brandName, model, family.next());
  const marketFactors = frame.markets.map(() =>
    family.between(1 - MARKET_PRICE_JITTER, 1 + MARKET_PRICE_JITTER),
  );

  let priceFactor = 1;
  const traits = new Map<string, number | string>();
  const labels: string[] = [];
  for (const trait of spec.traits) {
    // Drawn for every trait, so the product's stream stays put; an unnamed trait is the
    // family's (types.ts, TraitSpec).
    const own = random.int(0, trait.values.length - 1);
    const step = trait.label ? own : family.int(0, trait.values.length - 1);
    const value = trait.values[step] as number | string;
    traits.set(trait.key, value);
    if (trait.label) labels.push(trait.label(value));
    priceFactor *= 1 + (trait.priceStep ?? 0) * step;
  }
  const name = labels.length ? `${shortName} ${labels.join(' ')}` : shortName;
  const familyPriceEur = leaf.referenceBasePrices.get(shortName) ?? low * (high / low) ** position;
  const basePriceEur = familyPriceEur * priceFactor;
  const releaseYear = leaf.releaseYears.get(shortName) ?? family.int(...RELEASE_YEARS);
  // The product's own price was drawn here before families had one: still drawn, so that the
  // markets, descriptions and images after it stay those other tests and data were built on.
  random.next();

  const markets = frame.markets.filter((market) => random.chance(market.economics.share));
  // Every product is sold somewhere: the most common market takes the rare leftovers.
  if (markets.length === 0) markets.push(frame.markets[0] as MarketFrame);

  const blurb = random.pick(spec.blurbs);
  const description = blurb.replace('{name}', name).replace('{brand}', brandName);
  // Some products still wait for their pictures.
  const hasImage = random.chance(0.92);

  return {
    id,
    leaf,
    brandName,
    brandUpper: brandName.toUpperCase(),
    mpnPrefix:
      brandName
        .toUpperCase()
        .replace(/[^A-Z0-9]/g, '')
        .slice(0, 3) || 'MPN',
    brandId: leaf.brandIds[brandIndex] as number,
    brandIndex: (leaf.brandIds[brandIndex] as number) - 1,
    name,
    nameBytes: Buffer.from(name, 'utf8'),
    shortName,
    traits,
    rank,
    popularity: popularityOf(rank, leaf.size, spec.weight),
    obscurity: leaf.size > 1 ? (rank - 1) / (leaf.size - 1) : 0,
    basePriceEur,
    marketFactors,
    releaseYear,
    markets,
    description,
    hasImage,
  };
}

/** FNV-1a: a text as a 32-bit stream key. */
export function hashText(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193);
  }
  return hash >>> 0;
}

export function writeProduct(draft: ProductDraft, out: CopyBuffer): void {
  // Columns in TABLE_COLUMNS.products order.
  out
    .int(draft.id)
    .bytes(draft.nameBytes)
    .int(draft.brandId)
    .int(draft.leaf.categoryId)
    .int(draft.rank)
    .int(draft.popularity)
    .str(draft.description);
  if (draft.hasImage) {
    out.raw(IMAGE_CDN).raw('/products/').rawInt(draft.id).str('/small.jpg');
    out.raw(IMAGE_CDN).raw('/products/').rawInt(draft.id).str('/large.jpg');
  } else {
    out.null().null();
  }
  // Three products in four state a manufacturer part number: feed rows without a GTIN match
  // them by brand and MPN.
  if (draft.id % 4 === 0) out.null();
  else out.raw(draft.mpnPrefix).raw('-').int(draft.id);
  out.end();
}
