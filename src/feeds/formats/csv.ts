/**
 * Comma-separated feeds, as spreadsheets write them (RFC 4180): a value in double quotes may
 * hold commas, line breaks and doubled quotes. A stray quote inside an unquoted value (`27"`)
 * is taken as written, as spreadsheets do, rather than refusing the feed. csv-parse splits.
 */
import { Readable, pipeline } from 'node:stream';
import { parse } from 'csv-parse';
import type { FormatReader } from './format-reader.ts';
import { delimitedRecords, MAX_ROW_LENGTH } from './delimited.ts';

export const csvRecords: FormatReader = (bytes, ignoredColumns) => {
  const rows = parse({
    delimiter: ',',
    quote: '"',
    relax_quotes: true,
    bom: true,
    relax_column_count: true,
    max_record_size: MAX_ROW_LENGTH,
  });
  // pipeline hands a failing source's error to `rows`, and stops the source when the reader
  // of `rows` stops early.
  pipeline(Readable.from(bytes), rows, () => {});
  return delimitedRecords(rows as AsyncIterable<string[]>, ignoredColumns, 'CSV');
};
