/**
 * Request parameters, checked as the gateway checks them (src/rest/params.ts, common-params.ts)
 * as far as the bench's requests need: required, repeated, empty and out-of-range values are
 * 400s. Parameters the gateway knows but the baseline does not implement (filters, `fields`
 * other than the bench's) are 400s too, so the baseline never answers something else than
 * what it claims to.
 */

import type { TextSearchConfig } from '../../src/search/text-search-configs.ts';

export const MARKET_CODES = ['se', 'no', 'dk', 'fi', 'fr', 'gb', 'nz'] as const;
export type MarketCode = (typeof MARKET_CODES)[number];

/** Each market's text-search language (the `markets` rows of migration 0001). */
export const SEARCH_CONFIGS: Record<MarketCode, TextSearchConfig> = {
  se: 'swedish',
  no: 'norwegian',
  dk: 'danish',
  fi: 'finnish',
  fr: 'french',
  gb: 'english',
  nz: 'english',
};

export const MAX_INT = 2 ** 31 - 1;

/** A request the baseline refuses, with the status the gateway would answer. */
export class RequestError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'RequestError';
  }
}

const UNSIGNED = /^\d+$/;
// Control characters (and U+FFFD, what a broken %-escape decodes to): src/rest/params.ts.
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]/;
const REF = /^[A-Za-z0-9._~-]{1,64}$/;

export function isMarketCode(value: string): value is MarketCode {
  return (MARKET_CODES as readonly string[]).includes(value);
}

/** The query parameters of one route: every read is checked; unknown names are ignored. */
export class QueryParams {
  constructor(private readonly search: URLSearchParams) {}

  /** The value, or undefined; repeated, empty or unprintable values are refused. */
  private value(name: string): string | undefined {
    const all = this.search.getAll(name);
    if (all.length > 1) throw new RequestError(400, `${name} must be given at most once`);
    const [raw] = all;
    if (raw === undefined) return undefined;
    if (raw === '') throw new RequestError(400, `${name} must not be empty`);
    if (UNPRINTABLE.test(raw)) {
      throw new RequestError(400, `${name} contains characters that are not allowed`);
    }
    return raw;
  }

  private required(name: string): string {
    const value = this.value(name);
    if (value === undefined) throw new RequestError(400, `${name} is required`);
    return value;
  }

  market(): MarketCode {
    const value = this.required('market');
    if (!isMarketCode(value)) {
      throw new RequestError(400, `market must be one of ${MARKET_CODES.join(', ')}`);
    }
    return value;
  }

  integer(name: string, fallback: number, maximum: number): number {
    const value = this.value(name);
    if (value === undefined) return fallback;
    if (!UNSIGNED.test(value) || Number(value) > maximum) {
      throw new RequestError(400, `${name} must be an integer between 0 and ${maximum}`);
    }
    return Number(value);
  }

  /** `limit` (0 to `maximum`) and `offset` (0 to 1,000,000): common-params.ts pagingParams. */
  paging(defaultLimit: number, maximumLimit: number): { limit: number; offset: number } {
    return {
      limit: this.integer('limit', defaultLimit, maximumLimit),
      offset: this.integer('offset', 0, 1_000_000),
    };
  }

  ref(required: boolean): string | null {
    const value = required ? this.required('ref') : this.value('ref');
    if (value === undefined) return null;
    if (!REF.test(value)) throw new RequestError(400, `ref must match ${REF.source}`);
    return value;
  }

  /** Comma-separated ids (`pattern` bounds their count); ids beyond an Int are left out. */
  ids(name: string, pattern: RegExp): number[] {
    const value = this.required(name);
    if (!pattern.test(value)) throw new RequestError(400, `${name} must be comma-separated ids`);
    return value
      .split(',')
      .map(Number)
      .filter((id) => id >= 1 && id <= MAX_INT);
  }

  /** A text query: at most `maxLength` characters and `maxTerms` white-space separated terms. */
  text(name: string, maxLength: number, maxTerms: number): string {
    const value = this.required(name);
    if (value.length > maxLength) {
      throw new RequestError(400, `${name} must be at most ${maxLength} characters`);
    }
    const terms = value.trim().split(/\s+/).filter(Boolean);
    if (terms.length === 0) throw new RequestError(400, `${name} must not be blank`);
    if (terms.length > maxTerms) {
      throw new RequestError(400, `${name} must have at most ${maxTerms} terms`);
    }
    return value;
  }

  /** A parameter the baseline implements for one value only (the bench's). */
  only(name: string, expected: string): void {
    if (this.value(name) !== expected) {
      throw new RequestError(400, `the raw baseline answers ${name}=${expected} only`);
    }
  }

  /** Parameters the gateway accepts here but the baseline does not implement. */
  unsupported(...names: string[]): void {
    for (const name of names) {
      if (this.search.has(name)) {
        throw new RequestError(400, `the raw baseline does not implement ${name}`);
      }
    }
  }
}

/** A path segment that must be an id (src/rest/params.ts integer 1 to 2^31 − 1). */
export function pathId(name: string, raw: string): number {
  let value: string;
  try {
    value = decodeURIComponent(raw);
  } catch {
    throw new RequestError(400, `${name} is not valid percent-encoding`);
  }
  if (!UNSIGNED.test(value) || Number(value) < 1 || Number(value) > MAX_INT) {
    throw new RequestError(400, `${name} must be an integer between 1 and ${MAX_INT}`);
  }
  return Number(value);
}

/** A GraphQL Int variable (32-bit), as the document's `Int!` requires. */
export function intVariable(variables: Record<string, unknown>, name: string): number {
  const value = variables[name];
  if (typeof value !== 'number' || !Number.isInteger(value) || Math.abs(value) > MAX_INT) {
    throw new RequestError(400, `variable $${name} must be an Int`);
  }
  return value;
}

/** A GraphQL `Market` enum variable (`SE`), as its market code. */
export function marketVariable(variables: Record<string, unknown>): MarketCode {
  const value = variables.market;
  const code = typeof value === 'string' ? value.toLowerCase() : '';
  if (value !== code.toUpperCase() || !isMarketCode(code)) {
    throw new RequestError(400, 'variable $market must be a Market');
  }
  return code;
}
