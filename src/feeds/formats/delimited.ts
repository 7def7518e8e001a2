/**
 * TSV and CSV feeds: a header row naming the columns, then one item per row (docs/api.md,
 * "Feeds"). Each format splits its rows into cells (./tsv.ts, ./csv.ts); this module reads
 * the header, numbers the lines and hands each row on as a record of the columns read.
 */
import {
  FEED_COLUMNS,
  REQUIRED_COLUMNS,
  isFeedColumn,
  type FeedColumn,
  type FeedRecord,
} from '../feed-record.ts';
import { FeedRejected } from '../feed-rejected.ts';

// A row longer than this is a runaway (say, a quote never closed): the feed is refused
// rather than buffered whole.
export const MAX_ROW_LENGTH = 1 << 20;

/** The feed's records from its rows' cells; `formatName` names the format in refusals. */
export async function* delimitedRecords(
  rows: AsyncIterable<string[]>,
  ignoredColumns: Set<string>,
  formatName: string,
): AsyncGenerator<FeedRecord> {
  let header: (FeedColumn | null)[] | null = null;
  let rowCount = 0;
  // csv-parse's own line count takes a quoted CRLF for two lines: count the LFs instead.
  let line = 1;
  try {
    for await (const cells of rows) {
      const lines = 1 + cells.reduce((sum, cell) => sum + newlineCount(cell), 0);
      if (cells.some((cell) => cell.trim() !== '')) {
        if (header === null) {
          header = headerColumns(cells, ignoredColumns);
        } else {
          rowCount += 1;
          yield recordOf(cells, header, line);
        }
      }
      line += lines;
    }
  } catch (error) {
    throw isCsvParseError(error)
      ? new FeedRejected('unparseable', `not parseable as ${formatName}: ${error.message}`)
      : error;
  }
  if (header === null) throw new FeedRejected('empty', 'the body is empty');
  if (rowCount === 0) throw new FeedRejected('empty', 'the feed has a header and no rows');
}

function newlineCount(cell: string): number {
  let count = 0;
  for (let at = cell.indexOf('\n'); at !== -1; at = cell.indexOf('\n', at + 1)) count += 1;
  return count;
}

function isCsvParseError(error: unknown): error is Error {
  return error instanceof Error && String((error as { code?: unknown }).code).startsWith('CSV_');
}

/** A header cell as a column name: Google's older spelling `image link` is `image_link`. */
function columnName(cell: string): string {
  return cell.trim().toLowerCase().replace(/\s+/g, '_');
}

/** Each cell's column when it is read, else null (and named among the ignored). */
function headerColumns(cells: string[], ignoredColumns: Set<string>): (FeedColumn | null)[] {
  const names = cells.map(columnName);
  const read = names.filter(isFeedColumn);
  if (read.length === 0) {
    throw new FeedRejected(
      'missing_columns',
      `the first line is not a header: it names none of the columns ${FEED_COLUMNS.join(', ')}`,
    );
  }
  const twice = read.find((name, index) => read.indexOf(name) !== index);
  if (twice) throw new FeedRejected('unparseable', `the header names the column ${twice} twice`);
  const missing = REQUIRED_COLUMNS.filter((column) => !read.includes(column));
  if (missing.length > 0) {
    throw new FeedRejected(
      'missing_columns',
      `the header lacks the required column${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
    );
  }
  for (const name of names) if (name !== '' && !isFeedColumn(name)) ignoredColumns.add(name);
  return names.map((name) => (isFeedColumn(name) ? name : null));
}

function recordOf(cells: string[], header: (FeedColumn | null)[], line: number): FeedRecord {
  const values: FeedRecord['values'] = {};
  header.forEach((column, index) => {
    if (column !== null && index < cells.length) values[column] = cells[index];
  });
  // Exports often end rows with empty cells; only cells with something in them are extra.
  const extraCells = cells.slice(header.length).filter((cell) => cell.trim() !== '').length;
  return extraCells > 0 ? { line, values, extraCells } : { line, values };
}
