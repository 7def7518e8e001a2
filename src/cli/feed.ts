/**
 * `feed`: a shop's full feed from a file, applied as one run (src/feeds/feed-run.ts), with a
 * progress bar on a terminal. Prints the run's report on stdout (`--json`: the report as the
 * feed routes answer it); exits 1 when the feed was rejected as a whole.
 */
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { pipeline, Transform } from 'node:stream';
import { createProgress } from '../../seeds/progress.ts';
import type { Config } from '../config.ts';
import { UnknownShopError } from '../feeds/apply-run.ts';
import { runFullFeed, type FeedRunReport } from '../feeds/feed-run.ts';
import type { FeedFormat } from '../feeds/feed-record.ts';
import { formatOfFileName } from '../feeds/formats/dispatch.ts';
import type { Logger } from '../logger.ts';
import type { ParsedValues } from './command-line.ts';
import type { FEED } from './commands.ts';
import { withMigratedDatabase } from './database.ts';
import { CommandError, UsageError } from './errors.ts';

/** How many rejected rows the text report shows; `--json` has the report's own list. */
const SHOWN_REJECTIONS = 10;

export async function feed(
  config: Config,
  logger: Logger,
  values: ParsedValues<(typeof FEED)['options']>,
  [file]: string[],
): Promise<void> {
  const named = formatOfFileName(file!);
  const format = (values.format as FeedFormat | undefined) ?? named?.format;
  if (format === undefined) {
    throw new UsageError(`cannot tell the format of ${file} from its name: give --format`);
  }
  const size = await fileSize(file!);
  const shopId = Number(values.shop);
  const report = await withMigratedDatabase(config, logger, 'feed', (database) => {
    // A bar on a terminal only: a script reading the report wants nothing else on its streams.
    const progress = createProgress(process.stderr.isTTY === true && process.stderr, 'feed');
    progress.phase('reading', size, 'bytes');
    let read = 0;
    const counted = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        read += chunk.byteLength;
        progress.update(read);
        done(null, chunk);
      },
    });
    return runFullFeed(database.db, {
      shopId,
      // A read that fails (a disk error) fails the run, whose transaction then changes nothing.
      body: pipeline(createReadStream(file!), counted, () => {}),
      format,
      gzip: named?.gzip ?? false,
      maxRejectedShare: config.feedMaxRejectedShare,
    }).finally(() => progress.stop());
  }).catch((error: unknown) => {
    throw error instanceof UnknownShopError ? new UsageError(error.message) : error;
  });
  process.stdout.write(values.json ? `${JSON.stringify(report, null, 2)}\n` : describe(report));
  if (report.state !== 'applied') process.exitCode = 1;
}

async function fileSize(file: string): Promise<number> {
  let found;
  try {
    found = await stat(file);
  } catch (error) {
    throw new CommandError(`cannot read ${file}: ${(error as Error).message}`);
  }
  if (!found.isFile()) throw new CommandError(`cannot read ${file}: not a file`);
  return found.size;
}

/** The report for a person: the outcome and its counts, then the first rejections. */
function describe(report: FeedRunReport): string {
  const { counts } = report;
  const lines = [
    `run ${report.runId}: ${report.state}${report.reason ? ` (${report.reason})` : ''}`,
    `${counts.rows} rows: ${counts.created} created, ${counts.updated} updated, ` +
      `${counts.unchanged} unchanged, ${counts.withdrawn} withdrawn, ${counts.rejected} rejected, ` +
      `${counts.unmatched} unmatched`,
    ...report.rejectedRows
      .slice(0, SHOWN_REJECTIONS)
      .map((row) => `  line ${row.line} ${row.itemId ?? '(no id)'}: ${row.field}: ${row.reason}`),
  ];
  if (counts.rejected > SHOWN_REJECTIONS) {
    lines.push(`  … ${counts.rejected - SHOWN_REJECTIONS} more rejected (--json lists them)`);
  }
  if (report.ignoredColumns.length > 0) {
    lines.push(`ignored columns: ${report.ignoredColumns.join(', ')}`);
  }
  return `${lines.join('\n')}\n`;
}
