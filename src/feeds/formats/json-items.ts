/**
 * A push's items (`POST /feeds/shops/{shopId}/items`): a JSON array of objects named like a
 * feed's columns, every value a string. The route checks the body's shape before it answers
 * (a wrong shape is the client's mistake, answered 400, and makes no run); the run reads the
 * same bytes again into records that the feed's row checks take like any other row.
 */
import type { FeedRecord } from '../feed-record.ts';
import { isFeedColumn } from '../feed-record.ts';
import { FeedRejected } from '../feed-rejected.ts';
import type { FormatReader } from './format-reader.ts';

/** How many items one push may hold. */
export const MAX_PUSH_ITEMS = 1000;

/** A push body of the wrong shape, with where (`items[3].price`) and why. */
export class PushShapeError extends Error {
  constructor(
    readonly at: string,
    reason: string,
  ) {
    super(`${at}: ${reason}`);
    this.name = 'PushShapeError';
  }
}

/** The items of a push body, as feed records (`line`: the item's position, from 1). */
export function pushRecords(body: unknown, ignoredColumns: Set<string>): FeedRecord[] {
  if (!Array.isArray(body)) throw new PushShapeError('body', 'must be a JSON array of items');
  if (body.length === 0) throw new PushShapeError('body', 'holds no items');
  if (body.length > MAX_PUSH_ITEMS) {
    throw new PushShapeError('body', `holds ${body.length} items, at most ${MAX_PUSH_ITEMS}`);
  }
  return body.map((item: unknown, index) => {
    const at = `items[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new PushShapeError(at, 'must be an object');
    }
    const values: FeedRecord['values'] = {};
    for (const [name, value] of Object.entries(item)) {
      if (!isFeedColumn(name)) {
        ignoredColumns.add(name);
        continue;
      }
      if (value === null) continue;
      if (typeof value !== 'string') {
        throw new PushShapeError(`${at}.${name}`, 'must be a string, as in a feed');
      }
      values[name] = value;
    }
    return { line: index + 1, values };
  });
}

/** The stored body of a push, read back: it was checked when it came, so a fault is a rejection. */
export const jsonItemRecords: FormatReader = async function* (bytes, ignoredColumns) {
  const chunks: Uint8Array[] = [];
  for await (const chunk of bytes) chunks.push(chunk);
  // A withdrawal alone (`DELETE …/items/{itemId}`) has no body.
  if (chunks.length === 0) return;
  let body: unknown;
  try {
    body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch (error) {
    throw new FeedRejected('unparseable', `not JSON: ${(error as Error).message}`);
  }
  try {
    yield* pushRecords(body, ignoredColumns);
  } catch (error) {
    if (error instanceof PushShapeError) throw new FeedRejected('unparseable', error.message);
    throw error;
  }
};
