/**
 * Which format a feed is in, from its request's content type or its file's name, and the
 * reader for each (docs/api.md, "Feeds").
 */
import type { FeedFormat, RunFormat } from '../feed-record.ts';
import { csvRecords } from './csv.ts';
import type { FormatReader } from './format-reader.ts';
import { jsonItemRecords } from './json-items.ts';
import { rssRecords } from './rss.ts';
import { tsvRecords } from './tsv.ts';

export const FORMAT_READERS: Record<RunFormat, FormatReader> = {
  tsv: tsvRecords,
  csv: csvRecords,
  xml: rssRecords,
  json: jsonItemRecords,
};

const FORMAT_OF_CONTENT_TYPE: Record<string, FeedFormat> = {
  'text/tab-separated-values': 'tsv',
  'text/csv': 'csv',
  'application/xml': 'xml',
  'application/rss+xml': 'xml',
  'text/xml': 'xml',
};

// Google Merchant Center names its tab-separated files `.txt`.
const FORMAT_OF_EXTENSION: Record<string, FeedFormat> = {
  tsv: 'tsv',
  txt: 'tsv',
  csv: 'csv',
  xml: 'xml',
};

/** The format of a `Content-Type` (parameters such as `charset` aside), or null. */
export function formatOfContentType(contentType: string): FeedFormat | null {
  const mediaType = contentType.split(';')[0]!.trim().toLowerCase();
  return FORMAT_OF_CONTENT_TYPE[mediaType] ?? null;
}

/** A file's format from its extension, and whether a `.gz` after it says gzip; or null. */
export function formatOfFileName(fileName: string): { format: FeedFormat; gzip: boolean } | null {
  const parts = fileName.toLowerCase().split('.');
  const gzip = parts.at(-1) === 'gz' && parts.length > 2;
  const extension = parts.at(gzip ? -2 : -1);
  const format = parts.length > 1 && extension ? FORMAT_OF_EXTENSION[extension] : undefined;
  return format ? { format, gzip } : null;
}
