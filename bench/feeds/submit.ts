/**
 * How the bench hands a feed file to the catalogue. Today: runFullFeed reading the file as a
 * stream, as `npm run feed` does. The HTTP route (`PUT /feeds/shops/{id}`) will be another
 * SubmitFeed (a fetch with the file as its body), measured by the same parts unchanged.
 */
import { createReadStream } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/types.ts';
import { runFullFeed, type FeedRunReport } from '../../src/feeds/feed-run.ts';

export interface SubmittedFeed {
  shopId: number;
  /** A TSV file. */
  file: string;
}

/** Submits a full feed and resolves with its run's report once the run has ended. */
export type SubmitFeed = (feed: SubmittedFeed) => Promise<FeedRunReport>;

export interface Submitter {
  name: string;
  submit: SubmitFeed;
}

/** In process, through runFullFeed, the file read as a stream (what the CLI does). */
export function runFullFeedSubmitter(db: Kysely<Database>, maxRejectedShare: number): Submitter {
  return {
    name: 'runFullFeed, file stream',
    submit: ({ shopId, file }) =>
      runFullFeed(db, {
        shopId,
        body: createReadStream(file),
        format: 'tsv',
        gzip: false,
        maxRejectedShare,
      }),
  };
}

/** A run that did not apply, or applied rows the bench did not mean to send, stops the bench. */
export function appliedCounts(report: FeedRunReport, what: string): FeedRunReport['counts'] {
  if (report.state !== 'applied') {
    throw new Error(`${what}: the run was ${report.state}: ${report.reason}`);
  }
  const { rejected, unmatched } = report.counts;
  if (rejected > 0 || unmatched > 0) {
    const first = report.rejectedRows[0];
    throw new Error(
      `${what}: ${rejected} rows rejected, ${unmatched} unmatched` +
        (first ? ` (line ${first.line}: ${first.field}: ${first.reason})` : ''),
    );
  }
  return report.counts;
}
