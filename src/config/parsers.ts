/**
 * The parsers settings are declared with (settings.ts). Each reads its variables' values,
 * refuses a bad one with a message naming the variable and the value it got (a stand-in takes
 * its place, so that every problem is reported at once), and says for README's table what it
 * accepts and what it is when unset.
 */
import proxyaddr from 'proxy-addr';
import { MARKET_CODES, type MarketCode } from '../markets.ts';

/** What a parser reads from and reports to. */
export interface Source {
  /** A variable's value, trimmed; undefined when it is unset or empty. */
  value(name: string): string | undefined;
  /** NODE_ENV=production, which some defaults and checks depend on (read first for that). */
  production: boolean;
  refuse(problem: string): void;
}

export interface Parser<T> {
  /** The setting's value from its variables (one, but for a family such as SITE_URL_*). */
  read(names: readonly string[], source: Source): T;
  /** README's "accepts" cell, in Markdown. */
  accepts: string;
  /** README's "default" cell, in Markdown. */
  default: string;
}

/** A set value a parser does not take, and why. */
class Refusal {
  constructor(readonly problem: string) {}
}

interface Defaults<T> {
  default: T;
  /** The default when NODE_ENV=production, if it differs. */
  productionDefault?: T;
}

function code(value: unknown): string {
  return `\`${String(value)}\``;
}

function describeDefault<T>({ default: value, productionDefault }: Defaults<T>): string {
  if (productionDefault === undefined) return code(value);
  return `${code(value)}; ${code(productionDefault)} with \`NODE_ENV=production\``;
}

/** Several values as a Markdown phrase: `a`, `b` or `c`. */
function alternatives(values: readonly string[]): string {
  const quoted = values.map(code);
  return quoted.length < 2
    ? quoted.join('')
    : `${quoted.slice(0, -1).join(', ')} or ${quoted.at(-1)}`;
}

/**
 * A setting of one variable with a default: unset (or refused), it is the default; set, it
 * is what `parse` makes of the value.
 */
function scalar<T>(
  defaults: Defaults<T>,
  accepts: string,
  parse: (value: string, name: string) => T | Refusal,
): Parser<T> {
  const fallback = (source: Source) =>
    source.production && defaults.productionDefault !== undefined
      ? defaults.productionDefault
      : defaults.default;
  return {
    accepts,
    default: describeDefault(defaults),
    read([name = ''], source) {
      const value = source.value(name);
      if (value === undefined) return fallback(source);
      const parsed = parse(value, name);
      if (!(parsed instanceof Refusal)) return parsed;
      source.refuse(parsed.problem);
      return fallback(source);
    },
  };
}

/** A whole number from min to max; with `auto`, that word stands for what it returns. */
export function integer(
  options: { min: number; max: number; auto?: () => number } & Defaults<number>,
): Parser<number> {
  const { min, max, auto } = options;
  const accepts = `${min} to ${max}${auto ? ', or `auto`' : ''}`;
  return scalar(options, accepts, (value, name) => {
    if (auto && value.toLowerCase() === 'auto') return auto();
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      return new Refusal(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
    }
    return Number(value);
  });
}

/** A decimal number from 0 to 1. */
export function fraction(options: Defaults<number>): Parser<number> {
  return scalar(options, '0 to 1', (value, name) =>
    /^\d*\.?\d+$/.test(value) && Number(value) <= 1
      ? Number(value)
      : new Refusal(`${name} must be a number from 0 to 1, got "${value}"`),
  );
}

const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
const FALSE_WORDS = ['0', 'false', 'no', 'off'];

export function boolean(options: Defaults<boolean>): Parser<boolean> {
  const accepts = '`true` or `false` (also `1`/`0`, `yes`/`no`, `on`/`off`)';
  return scalar(options, accepts, (value, name) => {
    const word = value.toLowerCase();
    if (TRUE_WORDS.includes(word)) return true;
    if (FALSE_WORDS.includes(word)) return false;
    return new Refusal(`${name} must be true or false, got "${word}"`);
  });
}

export function oneOf<const Value extends string>(
  values: readonly Value[],
  options: Defaults<Value>,
): Parser<Value> {
  return scalar(options, alternatives(values), (value, name) =>
    (values as readonly string[]).includes(value)
      ? (value as Value)
      : new Refusal(`${name} must be one of ${values.join(', ')}, got "${value}"`),
  );
}

/** Any text, passed through `normalise` (the default as well, when it is read). */
export function text(options: {
  default: string;
  accepts: string;
  normalise?: (value: string) => string;
}): Parser<string> {
  const { normalise = (value: string) => value } = options;
  const raw = scalar({ default: options.default }, options.accepts, (value) => value);
  return { ...raw, read: (names, source) => normalise(raw.read(names, source)) };
}

/** Hides a password in a URL so it never reaches a log or an error message. */
export function redactUrl(value: string): string {
  return value.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

function protocolOf(value: string): string | undefined {
  try {
    return new URL(value).protocol;
  } catch {
    return undefined;
  }
}

/**
 * An optional URL of one of `protocols` (`http:`), passed through `normalise`, which may refuse
 * it as well. A refused URL stands as unset.
 */
export function url(options: {
  protocols: readonly string[];
  normalise?: (url: URL, value: string, name: string) => string | Refusal;
}): Parser<string | undefined> {
  const { protocols, normalise = (_url: URL, value: string) => value } = options;
  const accepts = `${alternatives(protocols.map((protocol) => `${protocol}//`))} URL`;
  return {
    ...scalar<string | undefined>({ default: undefined }, accepts, (value, name) => {
      const protocol = protocolOf(value);
      if (protocol === undefined) {
        return new Refusal(`${name} must be a URL, got "${redactUrl(value)}"`);
      }
      if (!protocols.includes(protocol)) {
        return new Refusal(`${name} must use ${protocols.join(' or ')}, got "${redactUrl(value)}"`);
      }
      return normalise(new URL(value), value, name);
    }),
    default: 'unset',
  };
}

/** A URL without its trailing slashes. */
export function withoutTrailingSlash(_url: URL, value: string): string {
  return value.replace(/\/+$/, '');
}

/**
 * The scheme, host and optional path of a URL, without a trailing slash: one with credentials,
 * a query or a fragment is refused.
 */
export function baseOnly(url: URL, value: string, name: string): string | Refusal {
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    return new Refusal(
      `${name} must be a scheme, host and optional path, without credentials, query ` +
        `or fragment, got "${redactUrl(value)}"`,
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/**
 * A comma-separated list (empty entries skipped), each entry refused by name unless `accepts`
 * takes it; `expected` names what entries must be, in the message and README.
 */
export function list(options: {
  entry: (entry: string) => boolean;
  expected: string;
  /** How a refused entry is shown (a URL's password hidden). */
  shown?: (entry: string) => string;
}): Parser<string[]> {
  const { entry: accepted, expected, shown = (entry: string) => entry } = options;
  return {
    accepts: `comma-separated ${expected}`,
    default: 'none',
    read([name = ''], source) {
      const entries = (source.value(name) ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      return entries.filter((entry) => {
        if (accepted(entry)) return true;
        source.refuse(`${name} entries must be ${expected}, got "${shown(entry)}"`);
        return false;
      });
    },
  };
}

/** A list entry proxy-addr takes: an address, a CIDR range or one of its presets. */
export function isTrustedProxy(entry: string): boolean {
  try {
    proxyaddr.compile(entry);
    return true;
  } catch {
    return false;
  }
}

/** A list entry that is a URL of one of `protocols`. */
export function hasProtocol(protocols: readonly string[]) {
  return (entry: string) => protocols.includes(protocolOf(entry) ?? '');
}

/**
 * A family of variables, one per market (SITE_URL_SE, …), each read by `parser`: the setting
 * maps each market whose variable is set to its value.
 */
export function perMarket<T>(
  variable: (market: MarketCode) => string,
  parser: Parser<T | undefined>,
) {
  return {
    names: MARKET_CODES.map(variable),
    parse: {
      accepts: parser.accepts,
      default: parser.default,
      read(_names: readonly string[], source: Source): Partial<Record<MarketCode, T>> {
        const values: Partial<Record<MarketCode, T>> = {};
        for (const market of MARKET_CODES) {
          const value = parser.read([variable(market)], source);
          if (value !== undefined) values[market] = value;
        }
        return values;
      },
    },
  };
}

/** NODE_ENV: only `production` means anything to the service. */
export function productionMode(): Parser<boolean> {
  return {
    accepts: '`production`, or anything else',
    default: 'unset',
    read: ([name = ''], source) => source.value(name) === 'production',
  };
}

/**
 * Signing secrets, comma-separated, each of at least `minLength` characters: the first signs,
 * every one verifies, so a secret is rotated by putting the new one first and removing the
 * old one later. Required in production, where the ones published with the code (by where
 * they are published) are refused. Outside production `development` stands in, so a fresh
 * clone starts as it is.
 */
export function secrets(options: {
  minLength: number;
  development: string;
  published: ReadonlyMap<string, string>;
}): Parser<string[]> {
  const { minLength, development, published } = options;
  return {
    accepts: `comma-separated secrets of at least ${minLength} characters each`,
    default: 'a development-only secret',
    read([name = ''], source) {
      const entries = (source.value(name) ?? '')
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');
      if (entries.length === 0) {
        if (source.production) source.refuse(`${name} is required when NODE_ENV=production`);
        return [development];
      }
      entries.forEach((entry, index) => {
        // Which secret of several, never its text: a refusal is printed and logged.
        const which =
          entries.length === 1 ? name : `${name}'s secret ${index + 1} of ${entries.length}`;
        if (entry.length < minLength) {
          source.refuse(`${which} must be at least ${minLength} characters long`);
        } else if (source.production && published.has(entry)) {
          source.refuse(
            `${which} is ${published.get(entry)}, published with the code: set a secret of your ` +
              `own (${minLength}+ random characters, e.g. \`openssl rand -hex 32\`; Docker ` +
              'Compose reads it from .env)',
          );
        }
      });
      return entries;
    },
  };
}
