/**
 * What each format does at its edges: TSV's missing quoting, CSV's quoted line breaks, RSS
 * elements, gzip, bytes split anywhere, and the feeds each refuses whole.
 */
import { Readable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { formatOfContentType, formatOfFileName } from '../../src/feeds/formats/dispatch.ts';
import { NORWAY, readAll, rejectionOf, tsv } from '../helpers/feeds.ts';

const HEADER = ['id', 'title', 'link', 'price', 'availability'];
const row = (id: string, title = 'Ullsockor') => [
  id,
  title,
  'https://www.butik.se/s',
  '99 SEK',
  'in_stock',
];
const lineAndId = (rows: { line: number; itemId: string | null }[]) =>
  rows.map((r) => [r.line, r.itemId]);

/** One byte a chunk: every multi-byte character and every line break split across chunks. */
const byteByByte = (text: string) =>
  Readable.from([...Buffer.from(text)].map((byte) => Buffer.from([byte])));

describe('TSV', () => {
  it("keeps quotes as part of a value: Google's TSV has no quoting", async () => {
    const { rows } = await readAll(tsv(HEADER, row('S-1', '"Mysig" 24" tv-bänk'), row('S-2')));
    expect(rows[0]).toMatchObject({ title: '"Mysig" 24" tv-bänk' });
    expect(lineAndId(rows)).toEqual([
      [2, 'S-1'],
      [3, 'S-2'],
    ]);
  });

  it('counts blank lines and CRLF line ends in its line numbers', async () => {
    const text = [HEADER, row('S-1'), [], row('S-2'), ['', ''], row('S-3')]
      .map((cells) => cells.join('\t'))
      .join('\r\n');
    expect(lineAndId((await readAll(text)).rows)).toEqual([
      [2, 'S-1'],
      [4, 'S-2'],
      [6, 'S-3'],
    ]);
  });

  it('reads header names in any case, with spaces for underscores, and lists the others once', async () => {
    const header = [
      'ID',
      'Title',
      'Link',
      'Price',
      'Availability',
      'Image Link',
      'Färg',
      'färg',
      '',
    ];
    const { rows, ignoredColumns } = await readAll(
      tsv(header, [...row('S-1'), 'https://www.butik.se/s.jpg', 'grå', 'grå', '']),
    );
    expect(rows[0]).toMatchObject({ itemId: 'S-1', imageLink: 'https://www.butik.se/s.jpg' });
    expect(ignoredColumns).toEqual(['färg']);
  });

  it('rejects a row with more filled cells than the header has columns; empty extra cells are fine', async () => {
    const { rows } = await readAll(tsv(HEADER, [...row('S-1'), 'extra'], [...row('S-2'), '', ' ']));
    expect(rows[0]).toEqual({
      line: 2,
      itemId: 'S-1',
      field: 'row',
      reason: '1 more cells than the header has columns',
    });
    expect(rows[1]).toMatchObject({ line: 3, itemId: 'S-2', price: 99 });
  });

  it('takes missing cells at the end of a short row as empty', async () => {
    const { rows } = await readAll(tsv(HEADER, ['S-1', 'Ullsockor', 'https://www.butik.se/s']));
    expect(rows[0]).toEqual({
      line: 2,
      itemId: 'S-1',
      field: 'price',
      reason: 'missing: price is required',
    });
  });

  it('reads characters split across chunks', async () => {
    const { rows } = await readAll(
      byteByByte(tsv(HEADER, row('S-1', 'Överdragsbyxa för småbarn'))),
    );
    expect(rows[0]).toMatchObject({ title: 'Överdragsbyxa för småbarn' });
  });

  it('refuses a header naming a column twice, a header with no rows, and a blank body', async () => {
    expect(await rejectionOf(tsv([...HEADER, 'price'], [...row('S-1'), '1 SEK']))).toEqual({
      kind: 'unparseable',
      reason: 'the header names the column price twice',
    });
    expect(await rejectionOf(tsv(HEADER))).toEqual({
      kind: 'empty',
      reason: 'the feed has a header and no rows',
    });
    expect(await rejectionOf('\n \n\t\n')).toEqual({ kind: 'empty', reason: 'the body is empty' });
  });

  it('refuses a line over 1 MB rather than holding it', async () => {
    const runaway = `${HEADER.join('\t')}\n${'x'.repeat(2 ** 20 + 1)}`;
    expect(await rejectionOf(runaway)).toEqual({
      kind: 'unparseable',
      reason: `not parseable as TSV: a line is longer than ${2 ** 20} characters`,
    });
  });

  it('names every required column the header lacks', async () => {
    expect(await rejectionOf(tsv(['id', 'title', 'pris'], ['S-1', 'Ullsockor', '99 SEK']))).toEqual(
      {
        kind: 'missing_columns',
        reason: 'the header lacks the required columns link, price, availability',
      },
    );
  });
});

describe('CSV', () => {
  it('numbers a row by the line it starts on when a quoted value spans lines', async () => {
    const text =
      'id,title,link,price,availability\n' +
      'C-1,"Två\nrader\r\nhär",https://www.butik.se/c,"1,00 SEK",in_stock\n' +
      'C-2,"Ett ""citat"", och ett komma",https://www.butik.se/c,10 SEK,in_stock\n';
    const { rows } = await readAll(text, { format: 'csv' });
    expect(rows).toEqual([
      {
        line: 2,
        itemId: 'C-1',
        field: 'price',
        reason: '"1,00 SEK" is not an amount and a currency, like 1299.00 SEK',
      },
      expect.objectContaining({ line: 5, itemId: 'C-2', title: 'Ett "citat", och ett komma' }),
    ]);
  });

  it('refuses a quote that is never closed', async () => {
    const text =
      'id,title,link,price,availability\nC-1,"Öppet citat,https://www.butik.se/c,10 SEK,in_stock\n';
    expect(await rejectionOf(text, { format: 'csv' })).toEqual({
      kind: 'unparseable',
      reason: expect.stringMatching(/^not parseable as CSV: /),
    });
  });
});

const rss = (items: string) =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0" xmlns:x="urn:butik"><channel><title>Butik</title>${items}</channel></rss>`;
const item = (id: string, extra = '') =>
  `<item><g:id>${id}</g:id><g:title>Lue</g:title><g:link>https://www.butik.no/l</g:link><g:price>99 NOK</g:price><g:availability>in_stock</g:availability>${extra}</item>`;

describe('RSS 2.0', () => {
  it('rejects an item without a required element, by its position', async () => {
    const { rows } = await readAll(
      rss(item('L-1') + '<item><g:id>L-2</g:id><title>Lue</title></item>' + item('L-3')),
      { format: 'xml', market: NORWAY },
    );
    expect(rows[1]).toEqual({
      line: 2,
      itemId: 'L-2',
      field: 'link',
      reason: 'missing: link is required',
    });
    expect(lineAndId(rows)).toEqual([
      [1, 'L-1'],
      [2, 'L-2'],
      [3, 'L-3'],
    ]);
  });

  it("lists another namespace's elements by their prefixed name, once, and reads the first of a repeated element", async () => {
    const { rows, ignoredColumns } = await readAll(
      rss(
        item('L-1', '<x:lager>4</x:lager><g:brand>Dale</g:brand><g:brand>Annet</g:brand>') +
          item('L-2', '<x:lager>2</x:lager>'),
      ),
      { format: 'xml', market: NORWAY },
    );
    expect(rows[0]).toMatchObject({ brand: 'Dale' });
    expect(ignoredColumns).toEqual(['x:lager']);
  });

  it('reads characters split across chunks', async () => {
    const { rows } = await readAll(byteByByte(rss(item('L-1', '<g:brand>Ærø Strikk</g:brand>'))), {
      format: 'xml',
      market: NORWAY,
    });
    expect(rows[0]).toMatchObject({ brand: 'Ærø Strikk' });
  });

  it('gives the items before a fault, then refuses the feed', async () => {
    const reading = readAll(rss(item('L-1') + item('L-2')).replace('</channel>', '</kanal>'), {
      format: 'xml',
      market: NORWAY,
    });
    await expect(reading).rejects.toMatchObject({
      kind: 'unparseable',
      message: expect.stringMatching(/^not parseable as XML: /),
    });
  });

  it('refuses a feed without items, and a prefix never declared', async () => {
    expect(await rejectionOf(rss(''), { format: 'xml', market: NORWAY })).toEqual({
      kind: 'empty',
      reason: 'the feed has no items',
    });
    expect(
      await rejectionOf('<rss version="2.0"><channel><item><g:id>1</g:id></item></channel></rss>', {
        format: 'xml',
        market: NORWAY,
      }),
    ).toMatchObject({ kind: 'unparseable' });
  });
});

describe('gzip and the body', () => {
  it('reads a gzip-compressed TSV', async () => {
    const { rows } = await readAll(gzipSync(tsv(HEADER, row('S-1'))), { gzip: true });
    expect(lineAndId(rows)).toEqual([[2, 'S-1']]);
  });

  it('refuses a body said to be gzip that is not, or is cut short', async () => {
    expect(await rejectionOf(tsv(HEADER, row('S-1')), { gzip: true })).toEqual({
      kind: 'unparseable',
      reason: 'not gzip data: incorrect header check',
    });
    const whole = gzipSync(tsv(HEADER, row('S-1'), row('S-2')));
    expect(await rejectionOf(whole.subarray(0, whole.length - 8), { gzip: true })).toEqual({
      kind: 'unparseable',
      reason: 'not gzip data: unexpected end of file',
    });
  });

  it('reads a web ReadableStream as well as a Node Readable', async () => {
    const body = new Blob([tsv(HEADER, row('S-1'))]).stream();
    expect(lineAndId((await readAll(body)).rows)).toEqual([[2, 'S-1']]);
  });

  it("passes a failing body's own error on, not as a broken feed", async () => {
    async function* goneAfter(bytes: Uint8Array) {
      yield bytes;
      throw new Error('the client went away');
    }
    const text = tsv(HEADER, row('S-1'));
    await expect(readAll(goneAfter(Buffer.from(text)))).rejects.toThrow('the client went away');
    await expect(
      readAll(goneAfter(gzipSync(text).subarray(0, 20)), { gzip: true }),
    ).rejects.toThrow('the client went away');
  });
});

describe('the format of a request or a file', () => {
  it.each([
    ['text/tab-separated-values', 'tsv'],
    ['text/csv; charset=utf-8', 'csv'],
    ['application/xml', 'xml'],
    ['application/rss+xml', 'xml'],
    ['Text/XML', 'xml'],
    ['application/json', null],
  ])('%s is %s', (contentType, format) => {
    expect(formatOfContentType(contentType)).toBe(format);
  });

  it.each([
    ['butik.tsv', { format: 'tsv', gzip: false }],
    ['butik.txt', { format: 'tsv', gzip: false }],
    ['Butik.CSV', { format: 'csv', gzip: false }],
    ['feeds/butik.xml.gz', { format: 'xml', gzip: true }],
    ['butik.gz', null],
    ['xml', null],
    ['butik.json', null],
  ])('%s is %j', (fileName, expected) => {
    expect(formatOfFileName(fileName)).toEqual(expected);
  });
});
