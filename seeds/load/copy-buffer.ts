/**
 * COPY text written field by field straight into UTF-8 bytes.
 *
 * The large scale writes some 45 million rows. Building each as a JS string and encoding it
 * cost more than generating it (V8 strings built from many pieces are trees that must be
 * flattened, then encoded, then collected); writing the pieces' bytes into one growing buffer
 * costs a copy of each character and nothing else. Numbers are written digit by digit without
 * ever becoming strings.
 *
 * Every field method appends the value and a tab; `end()` turns the last tab into the newline.
 * Strings are written raw, without COPY escaping: the generator writes only strings composed
 * from the vocabulary, which frame.ts checks once for backslashes, tabs and newlines.
 */

const TAB = 9;
const NEWLINE = 10;
const ZERO = 48;
const DOT = 46;
/** COPY text's null. */
const NULL_BYTES = [92, 78]; // \N
/** Longer strings go through Buffer's native encoder, which beats a JS loop past this. */
const NATIVE_FROM = 48;

const encodings = new Map<string, Uint8Array>();

/**
 * The UTF-8 bytes of a string from a small, fixed set (vocabulary, market codes, statuses,
 * timestamps, shop URLs), encoded once and kept: copying bytes costs a third of encoding
 * characters. Not for per-product strings, which would make the cache grow with the scale.
 */
export function encoded(text: string): Uint8Array {
  let bytes = encodings.get(text);
  if (bytes === undefined) {
    bytes = Buffer.from(text, 'utf8');
    encodings.set(text, bytes);
  }
  return bytes;
}

export class CopyBuffer {
  private buffer: Buffer;
  private length = 0;
  /** Rows ended since the start, taken or not. */
  rows = 0;

  constructor(private readonly initialCapacity = 1 << 20) {
    this.buffer = Buffer.allocUnsafe(initialCapacity);
  }

  /** A string field (copy-safe, see above). */
  str(text: string): this {
    this.raw(text);
    this.buffer[this.length++] = TAB;
    return this;
  }

  /** A field of pre-encoded bytes: for strings written many times (see `encoded`). */
  bytes(encoded: Uint8Array): this {
    this.rawBytes(encoded);
    this.buffer[this.length++] = TAB;
    return this;
  }

  /** A string field, or null. */
  strOrNull(text: string | null | undefined): this {
    return text === null || text === undefined ? this.null() : this.str(text);
  }

  /** An integer field. */
  int(value: number): this {
    this.rawInt(value);
    this.buffer[this.length++] = TAB;
    return this;
  }

  /** A numeric(…, 2) field from whole cents: 12345 → 123.45. */
  cents(value: number): this {
    this.rawCents(value);
    this.buffer[this.length++] = TAB;
    return this;
  }

  /** A double precision field. */
  number(value: number): this {
    return Number.isInteger(value) ? this.int(value) : this.str(String(value));
  }

  bool(value: boolean): this {
    this.ensure(2);
    this.buffer[this.length++] = value ? 116 : 102; // t / f
    this.buffer[this.length++] = TAB;
    return this;
  }

  null(): this {
    this.ensure(3);
    this.buffer[this.length++] = NULL_BYTES[0] as number;
    this.buffer[this.length++] = NULL_BYTES[1] as number;
    this.buffer[this.length++] = TAB;
    return this;
  }

  /** Ends the row: its last field's tab becomes the newline. */
  end(): void {
    this.buffer[this.length - 1] = NEWLINE;
    this.rows++;
  }

  /** Appends a whole line of COPY text (reference tables, tests). */
  line(text: string): void {
    this.raw(text.endsWith('\n') ? text.slice(0, -1) : text);
    this.ensure(1);
    this.buffer[this.length++] = NEWLINE;
    this.rows++;
  }

  // Pieces of a field, for composite values such as array literals.

  raw(text: string): this {
    const size = text.length;
    this.ensure(size * 3 + 1);
    if (size >= NATIVE_FROM) {
      this.length += this.buffer.write(text, this.length);
      return this;
    }
    // ASCII, the common case, in a loop small enough for V8 to optimise well; anything else
    // leaves for the general encoder below.
    const bytes = this.buffer;
    let at = this.length;
    for (let i = 0; i < size; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x80) {
        this.length = at;
        return this.rawNonAscii(text, i);
      }
      bytes[at++] = code;
    }
    this.length = at;
    return this;
  }

  private rawNonAscii(text: string, from: number): this {
    this.length += this.buffer.write(text.slice(from), this.length);
    return this;
  }

  rawBytes(encoded: Uint8Array): this {
    const size = encoded.length;
    this.ensure(size + 1);
    // A plain loop beats `set` for the short pieces written here.
    const bytes = this.buffer;
    let at = this.length;
    for (let i = 0; i < size; i++) bytes[at++] = encoded[i] as number;
    this.length = at;
    return this;
  }

  rawByte(byte: number): this {
    this.ensure(1);
    this.buffer[this.length++] = byte;
    return this;
  }

  rawInt(value: number): this {
    this.ensure(24);
    if (value < 0 || value > 0x7fff_ffff || !Number.isInteger(value)) {
      this.length += this.buffer.write(String(value), this.length);
      return this;
    }
    const bytes = this.buffer;
    // Small integer arithmetic (| 0) keeps V8 on its fast integer path.
    const digits =
      value < 10
        ? 1
        : value < 100
          ? 2
          : value < 1000
            ? 3
            : value < 10_000
              ? 4
              : value < 100_000
                ? 5
                : value < 1_000_000
                  ? 6
                  : value < 10_000_000
                    ? 7
                    : value < 100_000_000
                      ? 8
                      : value < 1_000_000_000
                        ? 9
                        : 10;
    let at = this.length + digits;
    this.length = at;
    let rest = value | 0;
    do {
      const next = (rest / 10) | 0;
      bytes[--at] = ZERO + rest - next * 10;
      rest = next;
    } while (rest > 0);
    return this;
  }

  rawCents(value: number): this {
    const whole = Math.floor(value / 100);
    const fraction = value - whole * 100;
    this.rawInt(whole);
    // The point, two digits, and the tab a field method adds.
    this.ensure(4);
    const bytes = this.buffer;
    bytes[this.length++] = DOT;
    bytes[this.length++] = ZERO + Math.floor(fraction / 10);
    bytes[this.length++] = ZERO + (fraction % 10);
    return this;
  }

  /** Where the next byte goes: with `repeatSince`, writes a piece once and copies it. */
  mark(): number {
    return this.length;
  }

  /** Repeats the bytes written since `start` until they appear `times` times in all. */
  repeatSince(start: number, times: number): this {
    const size = this.length - start;
    if (times <= 1 || size === 0) return this;
    this.ensure(size * (times - 1));
    // Doubling: log2(times) copies instead of times − 1.
    for (let copies = 1; copies < times;) {
      const more = Math.min(copies, times - copies);
      this.buffer.copyWithin(this.length, start, start + more * size);
      this.length += more * size;
      copies += more;
    }
    return this;
  }

  /** Drops the last `count` bytes (a trailing separator). */
  drop(count: number): this {
    this.length -= count;
    return this;
  }

  /** The bytes since the last take; the buffer is handed over, never written again. */
  take(): Buffer {
    const taken = this.buffer.subarray(0, this.length);
    this.buffer = Buffer.allocUnsafe(
      Math.max(this.initialCapacity, this.length + (this.length >> 2)),
    );
    this.length = 0;
    return taken;
  }

  private ensure(extra: number): void {
    if (this.length + extra <= this.buffer.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buffer.length * 2, this.length + extra));
    this.buffer.copy(grown, 0, 0, this.length);
    this.buffer = grown;
  }
}
