/**
 * Comma-separated feeds, as spreadsheets write them (RFC 4180): a value in double quotes may
 * hold commas, line breaks and doubled quotes. A stray quote inside an unquoted value (`27"`)
 * is taken as written, as spreadsheets do, rather than refusing the feed.
 */
import type { FormatReader } from './format-reader.ts';
import { delimitedRecords } from './delimited.ts';

export const csvRecords: FormatReader = (bytes, ignoredColumns) =>
  delimitedRecords(bytes, ignoredColumns, {
    name: 'CSV',
    options: { delimiter: ',', quote: '"', relax_quotes: true },
  });
