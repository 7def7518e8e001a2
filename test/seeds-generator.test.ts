/**
 * The seed generator without a database: randomness, GTINs, prices, COPY text, vocabulary.
 */
import { describe, expect, it } from 'vitest';
import { MARKET_CODES } from '../src/markets.ts';
import { SeedCalendar } from '../seeds/calendar.ts';
import { formatCents, roundShopPrice } from '../seeds/economics.ts';
import { buildFrame, slugify, type MarketRow } from '../seeds/frame.ts';
import { CatalogueGenerator, type ProductSinks } from '../seeds/generate/catalogue.ts';
import { offerCountExponent } from '../seeds/generate/offers.ts';
import { productGtin } from '../seeds/gtin.ts';
import { gtinCheckDigit } from '../src/gtin.ts';
import { CopyBuffer } from '../seeds/load/copy-buffer.ts';
import { copyLine, parseCopyText } from '../seeds/load/copy-text.ts';
import { Random, WeightedPicker } from '../seeds/random.ts';
import { SCALES } from '../seeds/scales.ts';
import { PRODUCT_TABLES, TABLE_COLUMNS } from '../seeds/tables.ts';
import { CATEGORY_TREE } from '../seeds/vocabulary/index.ts';

const MARKETS: MarketRow[] = [
  { code: 'se', currency: 'SEK' },
  { code: 'no', currency: 'NOK' },
  { code: 'dk', currency: 'DKK' },
  { code: 'fi', currency: 'EUR' },
  { code: 'fr', currency: 'EUR' },
  { code: 'gb', currency: 'GBP' },
  { code: 'nz', currency: 'NZD' },
];

/** The COPY text of the first `products` products of a catalogue, per table. */
function generate(seed: number, products: number): Record<string, string> {
  const frame = buildFrame(seed, { ...SCALES.sample, products }, MARKETS);
  const generator = new CatalogueGenerator(frame, new SeedCalendar('2026-11-01'));
  const texts = Object.fromEntries(
    PRODUCT_TABLES.map((table) => [table, new CopyBuffer()]),
  ) as ProductSinks;
  for (let id = 1; id <= products; id++) generator.generate(id, texts);
  return Object.fromEntries(
    PRODUCT_TABLES.map((table) => [table, texts[table]?.take().toString('utf8') ?? '']),
  );
}

describe('the seed random generator', () => {
  it('repeats its sequence for the same keys and differs for other keys', () => {
    const draw = (...keys: [number, number, number?, number?]) => {
      const random = new Random(...keys);
      return Array.from({ length: 5 }, () => random.nextUint32());
    };
    expect(draw(1, 2, 3)).toEqual(draw(1, 2, 3));
    expect(draw(1, 2, 3)).not.toEqual(draw(2, 2, 3));
    expect(draw(1, 2, 3)).not.toEqual(draw(1, 3, 3));
    expect(draw(1, 2, 3)).not.toEqual(draw(1, 2, 4));
    expect(draw(1, 2, 3, 0)).not.toEqual(draw(1, 2, 3, 1));
  });

  it('draws floats in [0, 1) spread evenly, and weighted picks in proportion', () => {
    const random = new Random(42, 1);
    const buckets = new Array<number>(10).fill(0);
    for (let i = 0; i < 100_000; i++) {
      const value = random.next();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
      buckets[Math.floor(value * 10)]! += 1;
    }
    for (const bucket of buckets) expect(Math.abs(bucket - 10_000)).toBeLessThan(500);

    const picker = new WeightedPicker([1, 3]);
    let second = 0;
    for (let i = 0; i < 40_000; i++) second += picker.pick(random);
    expect(second / 40_000).toBeCloseTo(0.75, 1);
  });
});

describe('seed GTINs', () => {
  it('computes the GS1 check digit', () => {
    // Published examples: 4006381333931 (EAN-13), 0012345678905 (UPC-A as GTIN-13).
    expect(gtinCheckDigit('400638133393')).toBe(1);
    expect(gtinCheckDigit('001234567890')).toBe(5);
  });

  it('hands out 13-digit GTINs that never repeat', () => {
    const seen = new Set<string>();
    for (let product = 1; product <= 20_000; product++) {
      for (const index of [0, 1]) {
        const gtin = productGtin(product, index, product % 40, 123_456_789);
        expect(gtin).toMatch(/^\d{13}$/);
        expect(gtinCheckDigit(gtin.slice(0, 12))).toBe(Number(gtin[12]));
        seen.add(gtin);
      }
    }
    expect(seen.size).toBe(40_000);
  });
});

describe('seed prices', () => {
  it('rounds like shops do in each currency and formats cents exactly', () => {
    expect(roundShopPrice(1_234_56, 'SEK', 0)).toBe(1_239_00);
    expect(roundShopPrice(45_40, 'NOK', 0)).toBe(45_00);
    expect(roundShopPrice(123_45, 'EUR', 0.1)).toBe(123_99);
    expect(roundShopPrice(123_45, 'GBP', 0.7)).toBe(123_95);
    expect(roundShopPrice(123_45, 'NZD', 0.9)).toBe(124_00);
    expect(formatCents(0)).toBe('0.00');
    expect(formatCents(5)).toBe('0.05');
    expect(formatCents(123_40)).toBe('123.40');
  });

  it('solves the offer-count exponent for the mean of each scale', () => {
    expect(offerCountExponent(8)).toBeGreaterThan(0);
    expect(offerCountExponent(6)).toBeGreaterThan(offerCountExponent(8));
  });
});

describe('seed COPY text', () => {
  it('escapes what COPY needs escaped and reads it back', () => {
    const row = ['tab\there', 'line\nbreak', 'back\\slash', null, 42, true, 'plain'];
    const line = copyLine(row);
    expect(line).toBe('tab\\there\tline\\nbreak\tback\\\\slash\t\\N\t42\tt\tplain\n');
    expect(parseCopyText(line.slice(0, -1), row.length)).toEqual([
      ['tab\there', 'line\nbreak', 'back\\slash', null, '42', 't', 'plain'],
    ]);
  });

  it('collects lines as UTF-8 bytes and hands them over once', () => {
    const text = new CopyBuffer(4);
    text.line('Göteborg\tPokémon');
    text.int(-120).int(0).cents(123_405).cents(7).bool(true).null().str('ö').end();
    text.rawByte(123);
    const start = text.mark();
    text.raw('1.00,').repeatSince(start, 3).drop(1).rawByte(125).rawByte(9).end();
    expect(text.rows).toBe(3);
    expect(text.take().toString('utf8')).toBe(
      'Göteborg\tPokémon\n-120\t0\t1234.05\t0.07\tt\t\\N\tö\n{1.00,1.00,1.00}\n',
    );
    expect(text.take().length).toBe(0);
  });
});

describe('the seed vocabulary', () => {
  const leaves = CATEGORY_TREE.flatMap((root) => root.groups.flatMap((group) => group.leaves));

  it('has at least twelve leaf categories with unique, URL-safe slugs', () => {
    expect(leaves.length).toBeGreaterThanOrEqual(12);
    const slugs = CATEGORY_TREE.flatMap((root) => [
      root.slug,
      ...root.groups.flatMap((group) => [group.slug, ...group.leaves.map((leaf) => leaf.slug)]),
    ]);
    expect(new Set(slugs).size).toBe(slugs.length);
    for (const slug of slugs) expect(slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(slugify('Kök & Hem Ålesund')).toBe('kok-hem-alesund');
  });

  it('gives every leaf brands with product lines and a price range', () => {
    for (const leaf of leaves) {
      expect(Object.keys(leaf.lines).length, leaf.slug).toBeGreaterThanOrEqual(4);
      for (const lines of Object.values(leaf.lines)) expect(lines.length).toBeGreaterThan(0);
      expect(leaf.priceEur[0]).toBeLessThan(leaf.priceEur[1]);
    }
  });
});

describe('the seed generator', () => {
  it('writes the same bytes for the same seed and different bytes for another', () => {
    const first = generate(11, 150);
    expect(generate(11, 150)).toEqual(first);
    const other = generate(12, 150);
    for (const table of PRODUCT_TABLES) expect(other[table], table).not.toBe(first[table]);
  });

  it('writes lines with one field per column of their table', () => {
    const texts = generate(3, 100);
    for (const table of PRODUCT_TABLES) {
      const rows = parseCopyText(texts[table]!.slice(0, -1), TABLE_COLUMNS[table].length);
      expect(rows.length, table).toBeGreaterThan(0);
    }
  });

  it('builds one shop list per market, all seven', () => {
    const frame = buildFrame(1, SCALES.sample, MARKETS);
    expect(frame.markets.map((market) => market.code)).toEqual([...MARKET_CODES]);
    for (const market of frame.markets) {
      expect(market.shopIds.length).toBe(SCALES.sample.shopsPerMarket);
      expect(new Set(market.shopUrls).size).toBe(market.shopUrls.length);
    }
  });
});
