/**
 * Google Merchant Center's tab-separated feed. It has no quoting: a `"` is part of the value
 * (a title like `27" skärm` stays whole), and a value cannot hold a tab or a line break.
 */
import type { FormatReader } from './format-reader.ts';
import { delimitedRecords } from './delimited.ts';

export const tsvRecords: FormatReader = (bytes, ignoredColumns) =>
  delimitedRecords(bytes, ignoredColumns, {
    name: 'TSV',
    options: { delimiter: '\t', quote: false },
  });
