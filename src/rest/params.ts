/**
 * REST parameters declared as data: each route lists its parameters once, and the same
 * declarations validate requests and describe the route in the OpenAPI document.
 */
import { distance } from 'fastest-levenshtein';
import type { ErrorDetail } from '../errors.ts';

export type ParamSchema =
  | { type: 'string'; pattern?: RegExp; maxLength?: number; maxTerms?: number }
  | { type: 'integer'; minimum: number; maximum: number; default?: number }
  | { type: 'number'; minimum: number; maximum: number }
  /** `upperCaseToo`: each value in upper case is taken for it (GraphQL's enum names are). */
  | { type: 'enum'; values: readonly string[]; upperCaseToo?: boolean }
  /** 1 to `maxItems` comma-separated unsigned integers. */
  | { type: 'idList'; maxItems: number };

export interface ParamSpec {
  name: string;
  in: 'query' | 'path';
  description: string;
  required?: boolean;
  /** Deprecated in favour of another parameter; using it adds a `Deprecation` header. */
  replacedBy?: string;
  schema: ParamSchema;
}

export type ParamValue = string | number | string[];
export type ParamValues = Record<string, ParamValue | undefined>;

export class ParamError extends Error {
  constructor(
    message: string,
    readonly details: ErrorDetail[],
  ) {
    super(message);
    this.name = 'ParamError';
  }
}

/** Decimal digits only: no sign, no exponent, no white space (so `-0`, `+1`, `1e3` fail). */
const UNSIGNED = /^\d+$/;
/** A negative integer: an integer still, out of every range here (they start at 0 or 1). */
const NEGATIVE = /^-0*[1-9]\d*$/;
const ID_LIST = /^\d+(,\d+)*$/;
const DECIMAL = /^-?\d{1,9}(\.\d{1,6})?$/;
// Control characters (and U+FFFD, what an invalid %-escape decodes to) are never meaningful;
// tab and line breaks are white space, which `fields` and text queries ignore.
const UNPRINTABLE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufffd]/;

function fail(spec: ParamSpec, reason: string, message: string): never {
  throw new ParamError(`${spec.name} ${message}`, [{ parameter: spec.name, reason }]);
}

function parseValue(spec: ParamSpec, raw: string): ParamValue {
  const { schema } = spec;
  if (raw === '') fail(spec, 'empty', 'must not be empty');
  if (UNPRINTABLE.test(raw))
    fail(spec, 'invalid_characters', 'contains characters that are not allowed');
  switch (schema.type) {
    case 'string': {
      if (schema.maxLength !== undefined && raw.length > schema.maxLength) {
        fail(spec, 'too_long', `must be at most ${schema.maxLength} characters`);
      }
      if (schema.pattern && !schema.pattern.test(raw)) {
        fail(spec, 'pattern', `must match ${schema.pattern.source}`);
      }
      if (schema.maxTerms !== undefined) {
        const terms = raw.trim().split(/\s+/).filter(Boolean);
        if (terms.length === 0) fail(spec, 'empty', 'must not be blank');
        if (terms.length > schema.maxTerms) {
          fail(spec, 'too_many_terms', `must have at most ${schema.maxTerms} terms`);
        }
      }
      return raw;
    }
    case 'integer': {
      const range = `must be an integer between ${schema.minimum} and ${schema.maximum}`;
      if (NEGATIVE.test(raw) && schema.minimum >= 0) fail(spec, 'out_of_range', range);
      if (!UNSIGNED.test(raw)) fail(spec, 'not_an_integer', range);
      const value = Number(raw);
      if (value < schema.minimum || value > schema.maximum) fail(spec, 'out_of_range', range);
      return value;
    }
    case 'number': {
      const range = `must be a number between ${schema.minimum} and ${schema.maximum}`;
      if (!DECIMAL.test(raw)) fail(spec, 'not_a_number', range);
      const value = Number(raw) + 0; // + 0 turns -0 into 0
      if (value < schema.minimum || value > schema.maximum) fail(spec, 'out_of_range', range);
      return value;
    }
    case 'enum': {
      const value = schema.values.find(
        (declared) => declared === raw || (schema.upperCaseToo && declared.toUpperCase() === raw),
      );
      if (value === undefined) {
        fail(spec, 'not_allowed', `must be one of ${schema.values.join(', ')}`);
      }
      return value;
    }
    case 'idList': {
      const message = `must be up to ${schema.maxItems} comma-separated numbers`;
      if (!ID_LIST.test(raw)) fail(spec, 'pattern', message);
      const ids = raw.split(',');
      if (ids.length > schema.maxItems) fail(spec, 'too_many', message);
      return ids;
    }
  }
}

/** Path segments arrive still percent-encoded; a broken escape is the client's error. */
function decodePathSegment(spec: ParamSpec, raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined;
  try {
    return decodeURIComponent(raw);
  } catch {
    return fail(spec, 'invalid_encoding', 'is not valid percent-encoding');
  }
}

/**
 * How many edits (Levenshtein distance, letter case aside) a name may be away from a declared
 * one and still be taken for a misspelling of it. Short names get less: one edit from `q` is
 * any one-letter name (`_`, the usual cache buster), and two edits from a three- or
 * four-letter name reach unrelated words (`key` from `ref`).
 */
export function misspellingAllowance(declared: string): number {
  if (declared.length <= 2) return 0;
  if (declared.length <= 4) return 1;
  return 2;
}

/**
 * The declared name `given` most likely misspells, if any: the same name in other letter case,
 * with or without a plural `s`, or within the declared name's allowance (the nearest wins, the
 * first declared on a tie).
 */
export function likelyMeant(given: string, declared: readonly string[]): string | undefined {
  const name = given.toLowerCase();
  let best: { name: string; edits: number } | undefined;
  for (const candidate of declared) {
    const target = candidate.toLowerCase();
    const plural = name === `${target}s` || target === `${name}s`;
    const edits = plural ? 0 : distance(name, target);
    if (edits > misspellingAllowance(candidate)) continue;
    if (best === undefined || edits < best.edits) best = { name: candidate, edits };
  }
  return best?.name;
}

const quoted = (names: string[]) => names.map((name) => `"${name}"`).join(', ');

/**
 * A misspelled parameter would otherwise be ignored like any unknown one, and the answer would
 * look right while answering another question (`gtins` for `gtin`: the popular products).
 */
function rejectMisspellings(specs: readonly ParamSpec[], query: URLSearchParams): void {
  const declared = specs.filter((spec) => spec.in === 'query').map((spec) => spec.name);
  const given: string[] = [];
  const meant: string[] = [];
  for (const name of new Set(query.keys())) {
    if (declared.includes(name)) continue;
    const candidate = likelyMeant(name, declared);
    if (candidate === undefined) continue;
    given.push(name);
    meant.push(candidate);
  }
  if (given.length === 0) return;
  const plural = given.length > 1 ? 's' : '';
  throw new ParamError(
    `unknown parameter${plural} ${quoted(given)}; did you mean ${quoted(meant)}?`,
    given.map((parameter) => ({ parameter, reason: 'unknown_parameter' })),
  );
}

/**
 * Validates a request's parameters against the declarations. Unknown parameters are ignored
 * (legacy clients send cache busters and tracking parameters) unless they look like a
 * misspelling of a declared one; a repeated one is an error, since which value was meant
 * cannot be known.
 */
export function readParams(
  specs: readonly ParamSpec[],
  query: URLSearchParams,
  pathParams: Record<string, string>,
): ParamValues {
  rejectMisspellings(specs, query);
  const values: ParamValues = {};
  for (const spec of specs) {
    let raw: string | undefined;
    if (spec.in === 'path') {
      raw = decodePathSegment(spec, pathParams[spec.name]);
    } else {
      const all = query.getAll(spec.name);
      if (all.length > 1) fail(spec, 'repeated', 'must be given at most once');
      raw = all[0];
    }
    if (raw === undefined) {
      if (spec.required) fail(spec, 'missing', 'is required');
      if (spec.schema.type === 'integer' && spec.schema.default !== undefined) {
        values[spec.name] = spec.schema.default;
      }
      continue;
    }
    values[spec.name] = parseValue(spec, raw);
  }
  return values;
}

/** The value of one of two parameters that mean the same; both given is a conflict. */
export function exclusive(
  values: ParamValues,
  first: string,
  second: string,
): ParamValue | undefined {
  if (values[first] !== undefined && values[second] !== undefined) {
    throw new ParamError(`give ${first} or ${second}, not both`, [
      { parameter: first, reason: 'conflict' },
      { parameter: second, reason: 'conflict' },
    ]);
  }
  return values[first] ?? values[second];
}
