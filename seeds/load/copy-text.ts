/**
 * Rows in PostgreSQL's COPY text format: tab-separated, one line per row, \N for null.
 *
 * The product generator writes its rows through CopyBuffer without escaping, which holds
 * because every string it writes is composed from the vocabulary, checked once by
 * `assertCopySafe`; the small reference tables go through `copyLine`, which escapes.
 */
import type { Cell } from '../tables.ts';

/** COPY text's null. */
const NULL = '\\N';

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

function copyField(value: Cell): string {
  if (value === null) return NULL;
  if (typeof value === 'string') {
    return NEEDS_ESCAPE.test(value) ? value.replace(/[\\\t\n\r]/g, (c) => ESCAPES[c] ?? c) : value;
  }
  if (typeof value === 'boolean') return value ? 't' : 'f';
  return String(value);
}

export function copyLine(row: readonly Cell[]): string {
  return `${row.map(copyField).join('\t')}\n`;
}

/** Throws when a string would need escaping in COPY text, i.e. could not be written raw. */
export function assertCopySafe(text: string, where: string): void {
  if (NEEDS_ESCAPE.test(text))
    throw new Error(`${where}: "${text}" contains \\, a tab or a newline`);
}

/**
 * Splits COPY text back into rows of text fields (null for \N): the embedded database cannot
 * take COPY, so its loader sends these as array parameters instead.
 */
export function parseCopyText(text: string, columns: number): (string | null)[][] {
  const rows: (string | null)[][] = [];
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const fields = text.slice(start, end).split('\t');
    if (fields.length !== columns) {
      throw new Error(`COPY line has ${fields.length} fields, expected ${columns}`);
    }
    rows.push(
      fields.map((field) =>
        field === NULL
          ? null
          : field.includes('\\')
            ? field.replace(/\\(.)/g, (_, c: string) => UNESCAPES[c] ?? c)
            : field,
      ),
    );
    start = end + 1;
  }
  return rows;
}
