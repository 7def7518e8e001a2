/**
 * Reading feeds in tests: a feed's text (or bytes) in, every row and the run-level facts out,
 * through the same readFeed a request or the command line uses.
 */
import { Readable } from 'node:stream';
import type { FeedItem, RejectedRow } from '../../src/feeds/feed-item.ts';
import type { FeedFormat, FeedMarket } from '../../src/feeds/feed-record.ts';
import { readFeed, type FeedSource } from '../../src/feeds/read-feed.ts';

export const SWEDEN: FeedMarket = { currency: 'SEK', country: 'SE' };
export const NORWAY: FeedMarket = { currency: 'NOK', country: 'NO' };

export interface ReadOptions {
  format?: FeedFormat;
  gzip?: boolean;
  market?: FeedMarket;
}

export async function readAll(
  body: string | Uint8Array | FeedSource['body'],
  { format = 'tsv', gzip = false, market = SWEDEN }: ReadOptions = {},
): Promise<{ rows: (FeedItem | RejectedRow)[]; ignoredColumns: readonly string[] }> {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  const source = bytes instanceof Uint8Array ? Readable.from([bytes]) : bytes;
  const reading = readFeed({ body: source, format, gzip, market });
  const rows: (FeedItem | RejectedRow)[] = [];
  for await (const row of reading.rows) rows.push(row);
  return { rows, ignoredColumns: reading.ignoredColumns };
}

/** The whole-feed rejection a feed's reading ends in: its kind and reason. */
export async function rejectionOf(
  body: string | Uint8Array | FeedSource['body'],
  options?: ReadOptions,
): Promise<{ kind: string; reason: string }> {
  try {
    await readAll(body, options);
  } catch (error) {
    const { kind, message } = error as { kind: string; message: string };
    return { kind, reason: message };
  }
  throw new Error('the feed was read without a rejection');
}

/** A TSV feed from a header and rows of cells. */
export function tsv(header: string[], ...rows: string[][]): string {
  return [header, ...rows].map((cells) => cells.join('\t')).join('\n') + '\n';
}
