/** Parameters most routes share, declared once (docs/api.md, "REST routes"). */
import { MARKET_CODES } from '../markets.ts';
import type { ParamSpec } from './params.ts';

export const marketParam: ParamSpec = {
  name: 'market',
  in: 'query',
  required: true,
  description:
    'The market: se, no, dk, fi, fr, gb or nz (or in upper case, as GraphQL writes it); answers write it in lower case.',
  schema: { type: 'enum', values: MARKET_CODES, upperCaseToo: true },
};

/** The partner id added to offer URLs (docs/api.md, "Markets and scoping"); its characters as the graph accepts. */
export function refParam(required: boolean): ParamSpec {
  return {
    name: 'ref',
    in: 'query',
    required,
    description: 'Referral partner id added as `ref` to every offer URL.',
    schema: { type: 'string', pattern: /^[A-Za-z0-9._~-]{1,64}$/ },
  };
}

export function limitParam(defaultLimit: number, maximum: number): ParamSpec {
  return {
    name: 'limit',
    in: 'query',
    description: `Maximum number of results, 0 to ${maximum} (default ${defaultLimit}).`,
    schema: { type: 'integer', minimum: 0, maximum, default: defaultLimit },
  };
}

export const offsetParam: ParamSpec = {
  name: 'offset',
  in: 'query',
  description: 'Number of results to skip (default 0).',
  schema: { type: 'integer', minimum: 0, maximum: 1_000_000, default: 0 },
};

export const fieldsParam: ParamSpec = {
  name: 'fields',
  in: 'query',
  description:
    'Fields to return: a comma-separated list, nested with dots or parentheses, `*` for all standard fields (e.g. `id,name,category(id,name)`).',
  schema: { type: 'string', maxLength: 4096 },
};

export function pagingParams(defaultLimit: number, maximum: number): ParamSpec[] {
  return [limitParam(defaultLimit, maximum), offsetParam];
}
