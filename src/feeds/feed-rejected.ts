/**
 * A feed broken as a whole: its run changes nothing and is rejected with this reason
 * (docs/api.md, "Feeds"). Thrown by a feed's rows while they are read, so a fault found
 * late in a long feed (a broken XML tag near its end) still rejects all of it.
 */
export type FeedRejectionKind = 'empty' | 'unparseable' | 'missing_columns';

export class FeedRejected extends Error {
  constructor(
    readonly kind: FeedRejectionKind,
    reason: string,
  ) {
    super(reason);
    this.name = 'FeedRejected';
  }
}
