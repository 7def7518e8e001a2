/**
 * A whole feed read as a stream: its bytes (a request body or a file, gzip or not) become its
 * checked rows, one at a time, never the whole feed in memory (docs/api.md, "Feeds").
 */
import { Readable, pipeline } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { FeedItem, RejectedRow } from './feed-item.ts';
import type { FeedMarket, RunFormat } from './feed-record.ts';
import { FeedRejected } from './feed-rejected.ts';
import { FORMAT_READERS } from './formats/dispatch.ts';
import { createRowChecks } from './row-checks.ts';

export interface FeedSource {
  /** A request body (web ReadableStream), a file's Node Readable, or any iterable of bytes. */
  body: ReadableStream<Uint8Array> | AsyncIterable<Uint8Array>;
  format: RunFormat;
  gzip: boolean;
  market: FeedMarket;
}

export interface FeedReading {
  /**
   * The rows in feed order, read as they are asked for. Throws FeedRejected when the feed
   * is broken as a whole, which may be found only after some rows (a broken tag near the
   * end of an XML feed); an error of the body itself (a client gone) comes through as is.
   */
  rows: AsyncIterable<FeedItem | RejectedRow>;
  /** Columns (XML: item elements) not read, each once, in the order met; complete once rows end. */
  readonly ignoredColumns: readonly string[];
}

export function readFeed(source: FeedSource): FeedReading {
  const ignored = new Set<string>();
  const checkRow = createRowChecks(source.market);
  const records = FORMAT_READERS[source.format](decompressed(source), ignored);
  async function* rows(): AsyncGenerator<FeedItem | RejectedRow> {
    try {
      for await (const record of records) yield checkRow(record);
    } catch (error) {
      throw isZlibError(error)
        ? new FeedRejected('unparseable', `not gzip data: ${error.message}`)
        : error;
    }
  }
  return {
    rows: rows(),
    get ignoredColumns() {
      return [...ignored];
    },
  };
}

function decompressed({ body, gzip }: FeedSource): AsyncIterable<Uint8Array> {
  // Node's web streams are async iterables of their chunks; the global type does not say so.
  const bytes = body as AsyncIterable<Uint8Array>;
  // pipeline passes a failing body's error on to the gunzip stream, whose reader sees it.
  return gzip ? pipeline(Readable.from(bytes), createGunzip(), () => {}) : bytes;
}

function isZlibError(error: unknown): error is Error {
  return error instanceof Error && /^Z_/.test(String((error as { code?: unknown }).code));
}
