/**
 * Feeds are read as they arrive: a feed made on demand, far larger than what is ever held,
 * is consumed row by row while the rows produced but not yet consumed stay few. Proven by
 * counting, not by timing or by sampling memory.
 */
import { Readable } from 'node:stream';
import { createGzip } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { FeedFormat } from '../../src/feeds/feed-record.ts';
import { readFeed } from '../../src/feeds/read-feed.ts';
import { SWEDEN } from '../helpers/feeds.ts';

const ROWS = 40_000;
const ROWS_PER_CHUNK = 100;
/** Far below ROWS: what the streams between the body and the reader may buffer. */
const MAX_ROWS_AHEAD = 5_000;

const COLUMNS = ['id', 'title', 'link', 'price', 'availability', 'gtin', 'description'];
const cellsOf = (n: number) => [
  `G-${n}`,
  `Ylletröja nr ${n}, ljusgrå`,
  `https://www.butik.se/p/${n}`,
  `${(n % 5000) + 1}.00 SEK`,
  n % 3 === 0 ? 'out of stock' : 'in_stock',
  '7350001234014',
  'Varm tröja i merinoull, stickad i Sverige; tvättas i 30 grader.',
];

const TEXT_FORMATS = {
  tsv: {
    head: () => COLUMNS.join('\t') + '\n',
    row: (n: number) => cellsOf(n).join('\t') + '\n',
    tail: '',
  },
  csv: {
    head: () => COLUMNS.join(',') + '\r\n',
    row: (n: number) =>
      cellsOf(n)
        .map((cell) => `"${cell}"`)
        .join(',') + '\r\n',
    tail: '',
  },
  xml: {
    head: () =>
      '<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0" xmlns:g="http://base.google.com/ns/1.0"><channel>\n',
    row: (n: number) =>
      `<item>${cellsOf(n)
        .map((cell, index) => `<g:${COLUMNS[index]}>${cell}</g:${COLUMNS[index]}>`)
        .join('')}</item>\n`,
    tail: '</channel></rss>\n',
  },
} satisfies Record<FeedFormat, { head: () => string; row: (n: number) => string; tail: string }>;

/** A feed made only as its reader pulls, counting the rows made so far. */
function feedOnDemand(format: FeedFormat) {
  const text = TEXT_FORMATS[format];
  const made = { rows: 0 };
  async function* chunks() {
    yield Buffer.from(text.head());
    while (made.rows < ROWS) {
      let chunk = '';
      for (let i = 0; i < ROWS_PER_CHUNK; i++) chunk += text.row((made.rows += 1));
      yield Buffer.from(chunk);
    }
    yield Buffer.from(text.tail);
  }
  return { chunks, made };
}

describe('reading a large feed', () => {
  it.each([
    ['tsv', false],
    ['csv', false],
    ['xml', false],
    ['tsv', true],
  ] as const)('holds few rows at once: %s (gzip %s)', async (format, gzip) => {
    const { chunks, made } = feedOnDemand(format);
    const plain = Readable.from(chunks());
    const body = gzip ? plain.pipe(createGzip()) : plain;
    const reading = readFeed({ body, format, gzip, market: SWEDEN });
    let consumed = 0;
    let mostAhead = 0;
    let inStock = 0;
    for await (const row of reading.rows) {
      consumed += 1;
      mostAhead = Math.max(mostAhead, made.rows - consumed);
      if ('availability' in row && row.availability === 'in_stock') inStock += 1;
    }
    expect(consumed).toBe(ROWS);
    expect(inStock).toBe(ROWS - Math.floor(ROWS / 3));
    expect(mostAhead).toBeLessThan(MAX_ROWS_AHEAD);
    expect(reading.ignoredColumns).toEqual(['description']);
  });

  it('stops pulling the body when its reader stops', async () => {
    const { chunks, made } = feedOnDemand('tsv');
    const reading = readFeed({
      body: Readable.from(chunks()),
      format: 'tsv',
      gzip: false,
      market: SWEDEN,
    });
    let consumed = 0;
    for await (const row of reading.rows) {
      expect(row).toMatchObject({ line: consumed + 2 });
      if ((consumed += 1) === 1_000) break;
    }
    expect(made.rows).toBeLessThan(1_000 + MAX_ROWS_AHEAD);
  });
});
