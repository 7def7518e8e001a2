/**
 * What the fuzz tests share: how many runs and which seed (FUZZ_RUNS, FUZZ_SEED: the suite
 * runs a few; the probes of issue 11 run 20,000 REST requests and 2,000 GraphQL documents on
 * demand; FUZZ_SEED with FUZZ_PATH, both printed with a failure, replay its counterexample),
 * hostile text, and what no answer may show: a stack trace, a source file, SQL.
 */
import fc from 'fast-check';

export interface FuzzSettings {
  /** Generated cases per property (fast-check's numRuns). */
  runs: number;
  /** Printed by fast-check with any failure; FUZZ_SEED replays it. */
  seed: number;
  /** fast-check's path to one case, printed with a failure: FUZZ_PATH replays just that. */
  path: string | undefined;
  /** True when FUZZ_RUNS was given: a probe, which prints its figures. */
  probe: boolean;
}

function integer(name: string, text: string, minimum: number): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new Error(
      `${name} must be an integer of at least ${minimum}, not ${JSON.stringify(text)}`,
    );
  }
  return value;
}

/** `suiteRuns` unless FUZZ_RUNS says otherwise; FUZZ_SEED fixes the seed. */
export function fuzzSettings(suiteRuns: number): FuzzSettings {
  const { FUZZ_RUNS: runs, FUZZ_SEED: seed, FUZZ_PATH: path } = process.env;
  return {
    runs: runs ? integer('FUZZ_RUNS', runs, 1) : suiteRuns,
    // fast-check's seeds are 32-bit integers, as it prints them.
    seed: seed
      ? integer('FUZZ_SEED', seed, -(2 ** 31)) | 0
      : Date.now() ^ (Math.random() * 2 ** 31),
    path: path || undefined,
    probe: Boolean(runs),
  };
}

/** fast-check's parameters for a property of `settings` (its runs scaled by `share`). */
export function assertParameters(settings: FuzzSettings, share = 1): fc.Parameters<unknown> {
  return {
    numRuns: Math.max(1, Math.round(settings.runs * share)),
    seed: settings.seed,
    ...(settings.path === undefined ? {} : { path: settings.path }),
  };
}

/** A test's time allowance for `runs` requests, at a pessimistic pace on a loaded machine. */
export function timeAllowance(runs: number, millisecondsEach: number): number {
  return 60_000 + runs * millisecondsEach;
}

/** Answers by status, for the probe's figures. */
export class StatusTally {
  private readonly counts = new Map<number, number>();
  total = 0;

  record(status: number): void {
    this.counts.set(status, (this.counts.get(status) ?? 0) + 1);
    this.total += 1;
  }

  /** `2,000 requests: 200 × 512, 400 × 1,301, …` */
  toString(): string {
    const statuses = [...this.counts].sort(([a], [b]) => a - b);
    const each = statuses.map(([status, count]) => `${status} × ${count.toLocaleString('en')}`);
    return `${this.total.toLocaleString('en')}: ${each.join(', ')}`;
  }
}

// ---------------------------------------------------------------------------------------
// What no answer may show

const LEAKS: [string, RegExp][] = [
  // A V8 stack frame: `at fn (file:1:2)`, `at file:1:2`, `at async fn (…)`.
  ['stack trace', /\bat (?:async )?(?:[\w$.<>[\]]+ \(|[\w/\\.:-]+:\d+:\d+)/],
  ['source file', /\/work\/|node_modules|\.[cm]?[jt]sx?:\d+|file:\/\//],
  ['exception name', /\b(?:Type|Reference|Range|Syntax|Internal)Error\b/],
  // Kysely's SQL quotes every identifier and numbers its parameters.
  ['SQL', /\bselect\s[\s\S]{0,300}?\bfrom\s+"|\b(?:where|join|into|update)\s+"\w+"|=\s*\$\d/i],
  [
    'database error',
    /syntax error at or near|relation "[^"]*" does not exist|column "[^"]*" does not exist|violates \w+ constraint|invalid input syntax for|out of range for type|\bpg_\w+|kysely/i,
  ],
];

/** The kinds of leak in a body (none for a clean one). */
export function leaksIn(text: string): string[] {
  return LEAKS.filter(([, pattern]) => pattern.test(text)).map(([kind]) => kind);
}

// ---------------------------------------------------------------------------------------
// Hostile text

/** Names every plain object inherits: a lookup by request-given name must not find them. */
export const PROTOTYPE_NAMES = [
  'constructor',
  '__proto__',
  'toString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  'prototype',
] as const;

/** Percent-encoding that decodes to nothing valid, or to something surprising. */
export const PERCENT_JUNK = [
  '%',
  '%%',
  '%z',
  '%zz',
  '%0',
  '%00',
  '%FF',
  '%C0%AF',
  '%E0%A4%A',
  '%ED%A0%80',
  '%F4%90%80%80',
  '%2e%2e%2f',
  '%252e',
  '%u0041',
  '%0d%0a',
  '%26',
  '%3D',
  '%23',
  '%2C',
  '%20',
] as const;

/** Text that looks like the numbers parameters take, and is not (or is at their edges). */
export const NUMBER_JUNK = [
  '0',
  '1',
  '-1',
  '-0',
  '+1',
  '00',
  '007',
  '1.5',
  '-1.5',
  '1e3',
  '1E-3',
  '.5',
  '5.',
  '0x10',
  '0b1',
  '1_000',
  ' 1',
  '1 ',
  'NaN',
  'Infinity',
  '-Infinity',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '9007199254740993',
  '99999999999999999999999999',
  '1'.repeat(400),
  '１２', // full-width digits
  '٣', // an Arabic-Indic digit
] as const;

/** Characters a parser may choke on: controls, separators, quotes, surrogates, emoji. */
const ODD_CHARACTERS = [
  '\u0000',
  '\u0001',
  '\u0008',
  '\t',
  '\n',
  '\r',
  '\u001b',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u00ad',
  '\u200b',
  '\u200e',
  '\u2028',
  '\u2029',
  '\ufeff',
  '\ufffd',
  '\ud800',
  '\udfff',
  '😀',
  '👨‍👩‍👧',
  'é',
  'ß',
  'İ',
  'ﬃ',
  '中',
  '\\',
  '"',
  "'",
  '`',
  '<',
  '>',
  '&',
  '=',
  '?',
  '#',
  '/',
  ';',
  ',',
  '.',
  '(',
  ')',
  '[',
  ']',
  '{',
  '}',
  '*',
  ' ',
  '+',
  '$',
] as const;

/** A string of odd characters, printable ASCII and full Unicode mixed. */
export const oddText: fc.Arbitrary<string> = fc
  .array(
    fc.oneof(
      fc.constantFrom(...ODD_CHARACTERS),
      fc.string({ unit: 'grapheme-ascii', maxLength: 4 }),
      fc.string({ unit: 'binary', maxLength: 3 }),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

/** Injection-shaped text (SQL, template, JSON): harmless, and never echoed as SQL. */
const INJECTION_SHAPED = [
  "' OR '1'='1",
  '1;DROP TABLE products',
  '1) OR (1=1',
  '${7*7}',
  '{{7*7}}',
  '<script>alert(1)</script>',
  '{"a":1}',
  '[1,2]',
  'null',
  'undefined',
  'true',
  '../../etc/passwd',
  '..%2f..%2f',
  '\\u0000',
] as const;

/** Any hostile value: empty, blank, huge, odd, injection-shaped, number-shaped, prototype. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom('', ' ', '   ', '\t', ',', ',,', '.', '*'),
  fc.constantFrom(...NUMBER_JUNK),
  fc.constantFrom(...PROTOTYPE_NAMES),
  fc.constantFrom(...INJECTION_SHAPED),
  oddText,
  fc.string({ maxLength: 30 }),
  fc
    .tuple(
      fc.constantFrom('a', 'é', '1', ' ', '(', '😀', '%'),
      fc.integer({ min: 200, max: 20_000 }),
    )
    .map(([unit, times]) => unit.repeat(times)),
);

/** `arbitrary`'s value in about `share` of the cases, else undefined. */
export function sometimes<T>(
  arbitrary: fc.Arbitrary<T>,
  share: number,
): fc.Arbitrary<T | undefined> {
  const weight = Math.max(1, Math.round((1 - share) / share));
  return fc.oneof({ weight, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary });
}

/** A header value fetch accepts (no controls, no line breaks, nothing beyond Latin-1). */
export function headerSafe(text: string): string {
  return text.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').trim();
}
