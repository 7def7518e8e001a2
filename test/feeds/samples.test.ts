/**
 * The sample feeds in test/feeds/samples, written as shops export them: every row, line,
 * rejection and ignored column is stated here from the file, not from what the code made of it.
 */
import { createReadStream } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { NORWAY, SWEDEN, readAll, rejectionOf, type ReadOptions } from '../helpers/feeds.ts';

const SAMPLES = path.join(import.meta.dirname, 'samples');
const sample = (name: string) => createReadStream(path.join(SAMPLES, name));
const readSample = (name: string, options: ReadOptions) => readAll(sample(name), options);

describe('a TSV feed (ljudbutiken-se.tsv)', () => {
  it('reads every row, with the header as line 1', async () => {
    const { rows, ignoredColumns } = await readSample('ljudbutiken-se.tsv', { format: 'tsv' });
    expect(rows.map((row) => [row.line, row.itemId])).toEqual([
      [2, 'SKU-1001'],
      [3, 'SKU-1002'],
      [4, 'SKU-1003'],
      [5, 'SKU-1004'],
      [6, 'SKU-1005'],
      [7, 'SKU-1006'],
      [8, 'SKU-1007'],
      [9, 'SKU-1002'],
    ]);
    expect(rows[0]).toEqual({
      line: 2,
      itemId: 'SKU-1001',
      title: 'Sony WH-1000XM5 hörlurar, svart',
      link: 'https://www.ljudbutiken.se/p/sony-wh-1000xm5-svart',
      price: 3990,
      sale: { price: 3490, start: '2025-05-31T22:00:00.000Z', end: '2025-06-30T21:59:00.000Z' },
      availability: 'in_stock',
      condition: 'new',
      gtin: '07350001234014',
      brand: 'Sony',
      mpn: 'WH1000XM5B',
      shippingPrice: 49,
      imageLink: 'https://www.ljudbutiken.se/bilder/sony-wh-1000xm5.jpg',
    });
    expect(ignoredColumns).toEqual(['description', 'google_product_category', 'custom_label_0']);
  });

  it('keeps quotes as written, reads "in stock", defaults the condition and takes SE shipping', async () => {
    const { rows } = await readSample('ljudbutiken-se.tsv', { format: 'tsv' });
    expect(rows[1]).toMatchObject({
      title: 'Samsung 27" skärm Odyssey G5',
      availability: 'in_stock',
      condition: 'new',
      shippingPrice: 0,
    });
    expect(rows[2]).toMatchObject({ price: 1290, availability: 'out_of_stock', imageLink: null });
    expect(rows[3]).toMatchObject({ availability: 'backorder', condition: 'used', gtin: null });
    expect(rows[4]).toMatchObject({ availability: 'preorder', shippingPrice: null });
  });

  it("rejects a foreign currency and a sale above the price; a repeated id is the run's to find", async () => {
    const { rows } = await readSample('ljudbutiken-se.tsv', { format: 'tsv' });
    expect(rows.slice(5, 7)).toEqual([
      {
        line: 7,
        itemId: 'SKU-1006',
        field: 'price',
        reason: "in EUR, not the market's currency SEK",
      },
      { line: 8, itemId: 'SKU-1007', field: 'sale_price', reason: '1590 is above the price 1490' },
    ]);
    // Line 9 repeats line 3's id: the run rejects it (test/feeds/feed-run.test.ts).
    expect(rows[7]).toMatchObject({ line: 9, itemId: 'SKU-1002' });
  });
});

describe('a CSV feed (koksbutiken-se.csv)', () => {
  it('reads quoted commas, doubled quotes and a line break inside quotes, numbering lines from where a row starts', async () => {
    const { rows, ignoredColumns } = await readSample('koksbutiken-se.csv', { format: 'csv' });
    expect(rows.map((row) => [row.line, row.itemId])).toEqual([
      [2, 'KB-204'],
      [4, 'KB-205'],
      [5, 'KB-206'],
      [6, 'KB-207'],
      [7, 'KB-208'],
    ]);
    expect(rows[0]).toMatchObject({
      title: 'Kaffebryggare Moccamaster KBG Select, polerad',
      price: 2849,
      sale: { price: 2499, start: null, end: null },
      availability: 'in_stock',
      gtin: '07030004567011',
      shippingPrice: 59,
    });
    expect(rows[1]).toMatchObject({ title: 'Stekpanna "Pro" 28 cm, gjutjärn', mpn: '0028' });
    expect(ignoredColumns).toEqual(['description', 'product_type']);
  });

  it('rejects a non-http link, an unknown availability and a bad GTIN check digit', async () => {
    const { rows } = await readSample('koksbutiken-se.csv', { format: 'csv' });
    expect(rows.slice(2)).toEqual([
      {
        line: 5,
        itemId: 'KB-206',
        field: 'link',
        reason: '"ftp://www.koksbutiken.se/knivblock" is not an http(s) URL',
      },
      {
        line: 6,
        itemId: 'KB-207',
        field: 'availability',
        reason: '"slutsåld" is not one of in_stock, out_of_stock, preorder, backorder',
      },
      {
        line: 7,
        itemId: 'KB-208',
        field: 'gtin',
        reason: '"7030004567043" has a wrong check digit',
      },
    ]);
  });
});

describe('an RSS 2.0 feed with the g: namespace (sportbua-no.xml)', () => {
  const expectSportbua = async (name: string, gzip: boolean) => {
    const { rows, ignoredColumns } = await readSample(name, {
      format: 'xml',
      gzip,
      market: NORWAY,
    });
    expect(rows[0]).toEqual({
      line: 1,
      itemId: 'SB-3001',
      title: 'Fjällräven Kånken ryggsekk, grønn',
      link: 'https://www.sportbua.no/produkt/kanken-gronn',
      price: 1199,
      sale: { price: 999, start: '2025-05-01T00:00:00.000Z', end: '2025-06-01T00:00:00.000Z' },
      availability: 'in_stock',
      condition: 'new',
      gtin: '07030004567042',
      brand: 'Fjällräven',
      mpn: '23510-620',
      // Two g:shipping elements to NO: the cheaper one (pick-up in store) counts.
      shippingPrice: 0,
      imageLink: 'https://www.sportbua.no/bilder/kanken-gronn.jpg',
    });
    expect(rows[1]).toMatchObject({
      line: 2,
      title: 'Bergans Skarstind 3L jakke – herre, "blå" & svart',
      link: 'https://www.sportbua.no/produkt/skarstind-herre',
      shippingPrice: 99,
    });
    expect(rows.slice(2, 4)).toEqual([
      {
        line: 3,
        itemId: 'SB-3003',
        field: 'availability',
        reason: '"på lager" is not one of in_stock, out_of_stock, preorder, backorder',
      },
      {
        line: 4,
        itemId: 'SB-3004',
        field: 'condition',
        reason: '"brukt" is not one of new, refurbished, used',
      },
    ]);
    expect(rows[4]).toMatchObject({ line: 5, price: 149.5, gtin: '00000096385074' });
    expect(rows).toHaveLength(5);
    expect(ignoredColumns).toEqual(['description', 'google_product_category', 'custom_label_0']);
  };

  it('reads every item, numbered by position', () => expectSportbua('sportbua-no.xml', false));

  it('reads the same feed gzip-compressed', () => expectSportbua('sportbua-no.xml.gz', true));
});

describe('feeds broken as a whole', () => {
  it('refuses a TSV without a header row', async () => {
    expect(await rejectionOf(sample('no-header.tsv'), { format: 'tsv' })).toEqual({
      kind: 'missing_columns',
      reason: expect.stringMatching(
        /^the first line is not a header: it names none of the columns id, title/,
      ),
    });
  });

  it('refuses a CSV whose header lacks a required column, naming it', async () => {
    expect(await rejectionOf(sample('missing-price-column.csv'), { format: 'csv' })).toEqual({
      kind: 'missing_columns',
      reason: 'the header lacks the required column price',
    });
  });

  it("refuses what is not an RSS feed (a shop's error page)", async () => {
    expect(await rejectionOf(sample('not-xml.xml'), { format: 'xml', market: NORWAY })).toEqual({
      kind: 'unparseable',
      reason: 'not an RSS 2.0 feed: its root element is <html>',
    });
  });

  it('refuses an empty body in every format', async () => {
    for (const format of ['tsv', 'csv', 'xml'] as const) {
      expect(await rejectionOf(sample('empty.tsv'), { format, market: SWEDEN })).toEqual({
        kind: 'empty',
        reason: 'the body is empty',
      });
    }
  });
});
