/**
 * The REST `fields` parameter (docs/api.md, "`fields`"): parses an expression
 * such as `*,price.regular,category(id,name)` into one normalised selection tree, whatever mix
 * of dot and parenthesis forms the client used.
 *
 *   fields := item ("," item)*
 *   item   := "*" | path [ "(" fields ")" ]
 *   path   := name ("." name)*
 *   name   := [A-Za-z_][A-Za-z0-9_]*
 *
 * White space (space, tab, CR, LF) around tokens is ignored. The input comes straight from a
 * query string, so every bound is enforced while parsing: hostile input stops at the first
 * character beyond a limit, and recursion never goes deeper than the nesting limit.
 *
 * The module stands alone: it knows nothing about routes or which names exist; the caller
 * checks names against what each route declares.
 */

/** A selection at one level of the response. */
export interface FieldSelection {
  /** `*` at this level: all standard fields (a bare sub-resource name also means this). */
  star: boolean;
  /** Named fields at this level, each with its own selection, in order of first mention. */
  children: Map<string, FieldSelection>;
}

/** Bounds of an expression (docs/api.md, "`fields`"); beyond them the request is a 400. */
export const FIELDS_LIMITS = {
  /** In UTF-16 code units (`string.length`); any valid expression is ASCII, so also bytes. */
  maxLength: 4096,
  /** Names along one branch of the tree: `a.b.c(d(e))` has depth 5. */
  maxDepth: 8,
  /** Name tokens in the input, duplicates included (`*` is not a name). */
  maxNames: 200,
} as const;

export type FieldsErrorReason = 'syntax' | 'too_long' | 'too_deep' | 'too_many_names' | 'empty';

export class FieldsSyntaxError extends Error {
  override readonly name = 'FieldsSyntaxError';
  /** 0-based UTF-16 offset of the offending character, or the input length at its end. */
  readonly position: number;
  readonly reason: FieldsErrorReason;

  constructor(message: string, position: number, reason: FieldsErrorReason) {
    super(message);
    this.position = position;
    this.reason = reason;
  }

  /** The error as a detail of the REST error body (structurally an `ErrorDetail`). */
  toErrorDetail(): { parameter: 'fields'; reason: FieldsErrorReason } {
    return { parameter: 'fields', reason: this.reason };
  }
}

/** Parses a `fields` expression; throws {@link FieldsSyntaxError} on anything else. */
export function parseFields(input: string): FieldSelection {
  if (input.length > FIELDS_LIMITS.maxLength) {
    throw new FieldsSyntaxError(
      `fields: longer than ${FIELDS_LIMITS.maxLength} characters`,
      FIELDS_LIMITS.maxLength,
      'too_long',
    );
  }
  const parser = new Parser(input);
  parser.skipWhiteSpace();
  if (parser.atEnd()) {
    throw new FieldsSyntaxError(
      'fields: empty; name at least one field, or "*" for all standard fields',
      input.length,
      'empty',
    );
  }
  const root = emptySelection();
  parser.parseList(root, 0, null);
  return root;
}

/**
 * A canonical expression for a selection: `*` first, then names in code-unit order, nested
 * selections in parenthesis form. Equal selections print equal, so it serves as a cache key,
 * and `parseFields(formatFields(s))` gives back `s`.
 */
export function formatFields(selection: FieldSelection): string {
  if (!selection.star && selection.children.size === 0) {
    // parseFields never builds such a node, and no expression could stand for it.
    throw new RangeError('formatFields: a selection with neither "*" nor any field');
  }
  const items = selection.star ? ['*'] : [];
  const names = [...selection.children.keys()].sort();
  for (const name of names) items.push(formatChild(name, selection.children.get(name)!));
  return items.join(',');
}

/** The depth of a selection: the most names along one branch (`*` alone is depth 0). */
export function fieldsDepth(selection: FieldSelection): number {
  let deepest = 0;
  for (const child of selection.children.values()) {
    deepest = Math.max(deepest, 1 + fieldsDepth(child));
  }
  return deepest;
}

function formatChild(name: string, child: FieldSelection): string {
  const bare = child.star && child.children.size === 0;
  return bare ? name : `${name}(${formatFields(child)})`;
}

function emptySelection(): FieldSelection {
  return { star: false, children: new Map() };
}

/** The selection for `name` under `parent`, created on first mention: repeats merge. */
function childOf(parent: FieldSelection, name: string): FieldSelection {
  let child = parent.children.get(name);
  if (child === undefined) {
    child = emptySelection();
    parent.children.set(name, child);
  }
  return child;
}

const WHITE_SPACE = new Set([' ', '\t', '\r', '\n']);
/** Every character the grammar knows; anything else gets its own message. */
const KNOWN_PUNCTUATION = new Set([',', '.', '(', ')', '*']);

function isNameStart(char: string): boolean {
  return (char >= 'A' && char <= 'Z') || (char >= 'a' && char <= 'z') || char === '_';
}

function isNamePart(char: string): boolean {
  return isNameStart(char) || (char >= '0' && char <= '9');
}

/**
 * A recursive-descent parser that builds straight into the result tree, so merging costs
 * nothing extra. Recursion happens only at "(", after the path before it has passed the depth
 * check, so the stack never holds more than `maxDepth` + 1 lists.
 */
class Parser {
  private readonly input: string;
  private position = 0;
  private names = 0;

  constructor(input: string) {
    this.input = input;
  }

  atEnd(): boolean {
    return this.position >= this.input.length;
  }

  skipWhiteSpace(): void {
    while (!this.atEnd() && WHITE_SPACE.has(this.input[this.position]!)) this.position += 1;
  }

  /**
   * Items separated by commas, into `target` at `depth` names deep. `openedAt` is the position
   * of the "(" this list is inside, or null at the top level; the caller consumes the ")".
   */
  parseList(target: FieldSelection, depth: number, openedAt: number | null): void {
    for (;;) {
      this.parseItem(target, depth);
      this.skipWhiteSpace();
      if (this.atEnd()) {
        if (openedAt !== null) throw this.unclosed(openedAt);
        return;
      }
      const char = this.input[this.position]!;
      if (char === ',') {
        this.position += 1;
      } else if (char === ')') {
        if (openedAt === null) throw this.unbalanced('a ")" without a "(" before it');
        return;
      } else {
        throw this.unexpected(openedAt === null ? '"," or end of input' : '"," or ")"');
      }
    }
  }

  /** `*`, or a path with an optional parenthesised list: the last name of a bare path gets `*`. */
  private parseItem(target: FieldSelection, depth: number): void {
    this.skipWhiteSpace();
    if (this.input[this.position] === '*') {
      this.position += 1;
      target.star = true;
      return;
    }
    let node = target;
    let nodeDepth = depth;
    for (;;) {
      nodeDepth += 1;
      node = childOf(node, this.readName(nodeDepth));
      this.skipWhiteSpace();
      if (this.input[this.position] !== '.') break;
      this.position += 1;
      this.skipWhiteSpace();
    }
    if (this.input[this.position] === '(') {
      this.parseParenthesised(node, nodeDepth);
    } else {
      node.star = true;
    }
  }

  private parseParenthesised(node: FieldSelection, depth: number): void {
    const openedAt = this.position;
    this.position += 1;
    this.parseList(node, depth, openedAt);
    this.position += 1; // parseList returns inside parentheses only when it stands on ")"
  }

  /** A name at `depth`, checked against the bounds before anything is built from it. */
  private readName(depth: number): string {
    const start = this.position;
    if (this.atEnd() || !isNameStart(this.input[start]!)) throw this.expectedName();
    if (depth > FIELDS_LIMITS.maxDepth) {
      throw new FieldsSyntaxError(
        `fields: nesting deeper than ${FIELDS_LIMITS.maxDepth} levels at position ${start}`,
        start,
        'too_deep',
      );
    }
    this.names += 1;
    if (this.names > FIELDS_LIMITS.maxNames) {
      throw new FieldsSyntaxError(
        `fields: more than ${FIELDS_LIMITS.maxNames} names (the next one at position ${start})`,
        start,
        'too_many_names',
      );
    }
    this.position += 1;
    while (!this.atEnd() && isNamePart(this.input[this.position]!)) this.position += 1;
    return this.input.slice(start, this.position);
  }

  private expectedName(): FieldsSyntaxError {
    // `a.*` is the one tempting form the grammar leaves out; say how to write it instead.
    const hint =
      this.input[this.position] === '*' ? '; "*" stands alone as an item, as in category(*)' : '';
    return this.unexpected('a field name', hint);
  }

  private unexpected(expected: string, hint = ''): FieldsSyntaxError {
    const at = this.position;
    if (this.atEnd()) {
      return this.syntax(`expected ${expected} at position ${at}, found end of input${hint}`);
    }
    const found = this.characterAt(at);
    if (!this.isKnownCharacter(found)) {
      return this.syntax(
        `unexpected character ${JSON.stringify(found)} at position ${at}; ` +
          'field names use only A-Z, a-z, 0-9 and _',
      );
    }
    return this.syntax(
      `expected ${expected} at position ${at}, found ${JSON.stringify(found)}${hint}`,
    );
  }

  private unclosed(openedAt: number): FieldsSyntaxError {
    return this.unbalanced(`the "(" at position ${openedAt} is never closed`);
  }

  private unbalanced(explanation: string): FieldsSyntaxError {
    return this.syntax(`unbalanced parenthesis at position ${this.position}: ${explanation}`);
  }

  private syntax(description: string): FieldsSyntaxError {
    return new FieldsSyntaxError(`fields: ${description}`, this.position, 'syntax');
  }

  /** The whole code point at `at`, so an emoji shows as itself rather than half a pair. */
  private characterAt(at: number): string {
    return String.fromCodePoint(this.input.codePointAt(at)!);
  }

  private isKnownCharacter(char: string): boolean {
    return isNamePart(char) || KNOWN_PUNCTUATION.has(char) || WHITE_SPACE.has(char);
  }
}
