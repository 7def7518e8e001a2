/**
 * How the bench hands a feed file to the catalogue: runFullFeed reading the file as a stream,
 * as `npm run feed` does, or the HTTP route (`PUT /feeds/shops/{id}?wait=true`) of a running
 * gateway with the file streamed as the request's body, measured by the same parts unchanged.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import http from 'node:http';
import { pipeline } from 'node:stream/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../../src/db/types.ts';
import { runFullFeed, type FeedRunReport } from '../../src/feeds/feed-run.ts';

export interface SubmittedFeed {
  shopId: number;
  /** A TSV file. */
  file: string;
}

export interface SubmittedRun {
  report: FeedRunReport;
  /** Seconds the upload took, from the request's start to its last byte sent (HTTP only). */
  uploadSeconds?: number;
}

/** Submits a full feed and resolves with its run's report once the run has ended. */
export type SubmitFeed = (feed: SubmittedFeed) => Promise<SubmittedRun>;

export interface Submitter {
  name: string;
  submit: SubmitFeed;
}

/** In process, through runFullFeed, the file read as a stream (what the CLI does). */
export function runFullFeedSubmitter(db: Kysely<Database>, maxRejectedShare: number): Submitter {
  return {
    name: 'runFullFeed, file stream',
    submit: async ({ shopId, file }) => ({
      report: await runFullFeed(db, {
        shopId,
        body: createReadStream(file),
        format: 'tsv',
        gzip: false,
        maxRejectedShare,
      }),
    }),
  };
}

/**
 * Through the gateway's route: `PUT /feeds/shops/{id}?wait=true`, the file streamed as the
 * body (node:http, so that the moment the last byte is handed to the socket is known: the
 * request's `finish`), answered once the run has finished. `token` gives the shop's token.
 */
export function httpSubmitter(
  baseUrl: string,
  token: (shopId: number) => Promise<string>,
): Submitter {
  return {
    name: 'PUT /feeds/shops/{id}?wait=true, file streamed',
    submit: async ({ shopId, file }) => {
      const bytes = (await stat(file)).size;
      const started = performance.now();
      let uploaded = Number.NaN;
      const request = http.request(`${baseUrl}/feeds/shops/${shopId}?wait=true`, {
        method: 'PUT',
        headers: {
          authorization: `Bearer ${await token(shopId)}`,
          'content-type': 'text/tab-separated-values',
          'content-length': String(bytes),
        },
      });
      request.on('finish', () => (uploaded = performance.now()));
      const answered = new Promise<http.IncomingMessage>((resolve, reject) => {
        request.on('response', resolve);
        request.on('error', reject);
      });
      await pipeline(createReadStream(file), request);
      const response = await answered;
      let text = '';
      for await (const chunk of response.setEncoding('utf8')) text += chunk as string;
      if (response.statusCode !== 200) {
        throw new Error(`PUT /feeds/shops/${shopId}: ${response.statusCode} ${text}`);
      }
      return {
        report: JSON.parse(text) as FeedRunReport,
        uploadSeconds: (uploaded - started) / 1000,
      };
    },
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
