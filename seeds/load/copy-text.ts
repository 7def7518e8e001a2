/**
 * Rows in PostgreSQL's COPY text format: tab-separated, one line per row, \N for null.
 *
 * The product generator writes lines directly with template strings (tens of millions of rows:
 * building an array per row and joining it cost more than generating the row). It can skip
 * escaping because every string it writes is composed from the vocabulary, which
 * `assertCopySafe` checks once; the reference tables go through `copyLine`, which escapes.
 */
import type { Cell } from '../tables.ts';

/** COPY text's null. */
export const NULL = '\\N';

const NEEDS_ESCAPE = /[\\\t\n\r]/;
const ESCAPES: Record<string, string> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r' };
const UNESCAPES: Record<string, string> = { '\\': '\\', t: '\t', n: '\n', r: '\r' };

/**
 * Buffer's own UTF-8 writer without `write`'s argument juggling, which costs more than the
 * encoding for lines this short; `write` where a runtime lacks it.
 */
type Utf8Writer = (text: string, offset: number) => number;
const nativeUtf8Write = (Buffer.prototype as unknown as { utf8Write?: Utf8Writer }).utf8Write;
const writeUtf8: (buffer: Buffer, text: string, offset: number) => number = nativeUtf8Write
  ? (buffer, text, offset) => nativeUtf8Write.call(buffer, text, offset)
  : (buffer, text, offset) => buffer.write(text, offset);

export interface LineSink {
  add(line: string): void;
}

/**
 * The COPY text of one table, encoded to UTF-8 as lines arrive: appending to one JS string
 * builds a rope of millions of pieces that the garbage collector then spends most of its time
 * on; bytes in a growing buffer cost one copy each.
 */
export class TableText implements LineSink {
  private buffer: Buffer;
  private length = 0;
  private pending = 0;
  /** Rows added since the start, taken or not. */
  rows = 0;

  constructor(private readonly initialCapacity = 1 << 16) {
    this.buffer = Buffer.allocUnsafe(initialCapacity);
  }

  add(line: string): void {
    // A UTF-8 character takes at most 3 bytes per UTF-16 unit.
    if (this.length + line.length * 3 > this.buffer.length) this.grow(line.length * 3);
    this.length += writeUtf8(this.buffer, line, this.length);
    this.pending++;
    this.rows++;
  }

  get pendingRows(): number {
    return this.pending;
  }

  get pendingBytes(): number {
    return this.length;
  }

  /** The bytes added since the last take; the buffer is handed over, never reused. */
  take(): Buffer {
    const taken = this.buffer.subarray(0, this.length);
    this.buffer = Buffer.allocUnsafe(Math.max(this.initialCapacity, this.length));
    this.length = 0;
    this.pending = 0;
    return taken;
  }

  private grow(atLeast: number): void {
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + atLeast));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}

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
