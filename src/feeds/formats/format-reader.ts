import type { FeedRecord } from '../feed-record.ts';

/**
 * A format's reader: the feed's bytes (gzip already undone) to its rows' records, lazily, in
 * feed order. Columns or elements it does not read go into `ignoredColumns` as it meets them;
 * a feed broken as a whole throws FeedRejected.
 */
export type FormatReader = (
  bytes: AsyncIterable<Uint8Array>,
  ignoredColumns: Set<string>,
) => AsyncIterable<FeedRecord>;
