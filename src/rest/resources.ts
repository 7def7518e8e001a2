/**
 * REST resources declared as data: each REST field names the GraphQL it needs (paths from
 * the resource's GraphQL object) and how to read its value back. The same declarations
 * compile a `fields` selection into a GraphQL selection, reshape results, and describe the
 * resource in the OpenAPI document.
 */
import type { JsonSchema } from '../openapi/vocabulary.ts';
import type { FieldSelection } from './fields.ts';

interface FieldBase {
  description: string;
  /** Part of the resource's default shape (and of `*`); otherwise only on request. */
  standard: boolean;
}

export interface LeafField extends FieldBase {
  kind: 'leaf';
  /** GraphQL paths (from the resource's object) this value needs, e.g. `brand.name`. */
  select: string[];
  read: (item: GraphqlObject) => unknown;
  schema: JsonSchema;
}

export interface ObjectField extends FieldBase {
  kind: 'object';
  fields: Resource;
  /** A GraphQL path whose null makes this REST object null (e.g. `lowestPrice`). */
  nullIf?: string;
  /** `nullIf`'s response keys, split once rather than per reshaped item. */
  nullIfKeys?: string[];
}

export interface ListField extends FieldBase {
  kind: 'list';
  /** GraphQL path to the list's elements, e.g. `offers(first: 100).edges.node`. */
  at: string;
  /** `at`'s response keys, split once rather than per reshaped item. */
  atKeys: string[];
  item: Resource;
}

export type RestField = LeafField | ObjectField | ListField;

export interface Resource {
  /** Component name in the OpenAPI document. */
  name: string;
  fields: Record<string, RestField>;
}

export type GraphqlObject = Record<string, unknown>;

// ---------------------------------------------------------------------------------------
// Declaring fields

type FieldOptions = { description?: string; standard?: boolean };

/** A value read at a GraphQL path, optionally converted. */
export function leaf(
  path: string,
  schema: JsonSchema,
  options: FieldOptions & { convert?: (value: unknown) => unknown } = {},
): LeafField {
  const responsePath = responseKeys(path);
  const convert = options.convert ?? ((value: unknown) => value);
  return {
    kind: 'leaf',
    select: [path],
    read: (item) => {
      const value = valueAt(item, responsePath);
      return value === null || value === undefined ? null : convert(value);
    },
    schema,
    description: options.description ?? '',
    standard: options.standard ?? true,
  };
}

/** A value computed from several GraphQL paths. */
export function computed(
  select: string[],
  read: (item: GraphqlObject) => unknown,
  schema: JsonSchema,
  options: FieldOptions = {},
): LeafField {
  return {
    kind: 'leaf',
    select,
    read,
    schema,
    description: options.description ?? '',
    standard: options.standard ?? true,
  };
}

export function object(
  name: string,
  fields: Record<string, RestField>,
  options: FieldOptions & { nullIf?: string } = {},
): ObjectField {
  return {
    kind: 'object',
    fields: { name, fields },
    ...(options.nullIf === undefined
      ? {}
      : { nullIf: options.nullIf, nullIfKeys: responseKeys(options.nullIf) }),
    description: options.description ?? '',
    standard: options.standard ?? true,
  };
}

export function list(at: string, item: Resource, options: FieldOptions = {}): ListField {
  return {
    kind: 'list',
    at,
    atKeys: responseKeys(at),
    item,
    description: options.description ?? '',
    standard: options.standard ?? true,
  };
}

// ---------------------------------------------------------------------------------------
// Paths

/** Splits `a(x: 1).b.c` into its segments, keeping arguments with their field. */
export function pathSegments(path: string): string[] {
  const segments: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < path.length; i++) {
    const char = path[i];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === '.' && depth === 0) {
      segments.push(path.slice(start, i));
      start = i + 1;
    }
  }
  segments.push(path.slice(start));
  return segments;
}

/** The keys a path's fields have in the response (arguments stripped, aliases honoured). */
export function responseKeys(path: string): string[] {
  return pathSegments(path).map((segment) => {
    const name = segment.replace(/\(.*\)$/s, '').trim();
    const alias = name.indexOf(':');
    return alias === -1 ? name : name.slice(0, alias).trim();
  });
}

/** The value at a response path; lists along the way are mapped (and flattened). */
export function valueAt(value: unknown, keys: readonly string[]): unknown {
  let current = value;
  for (const key of keys) {
    if (Array.isArray(current)) {
      current = current.flatMap((element) => {
        const next = (element as GraphqlObject | null)?.[key];
        return next === undefined ? [] : [next];
      });
    } else if (current !== null && typeof current === 'object') {
      current = (current as GraphqlObject)[key];
    } else {
      return null;
    }
  }
  return current;
}

// ---------------------------------------------------------------------------------------
// Compiling a `fields` selection

/** The REST fields chosen at one level, each with what was chosen below it. */
export interface ChosenFields {
  resource: Resource;
  fields: Map<string, ChosenFields | null>;
}

export class UnknownFieldError extends Error {
  constructor(
    readonly path: string,
    readonly allowed: string[],
  ) {
    super(
      allowed.length === 0
        ? `fields: ${path} has no sub-fields`
        : `fields: unknown field "${path}"; allowed here: ${allowed.join(', ')}`,
    );
    this.name = 'UnknownFieldError';
  }
}

/**
 * The field a resource declares under a name from a request. Own properties only: the
 * declarations are plain objects, so an inherited name (`constructor`, `__proto__`,
 * `toString`) would otherwise find Object.prototype's members instead of nothing.
 */
function declaredField(resource: Resource, name: string): RestField | undefined {
  return Object.hasOwn(resource.fields, name) ? resource.fields[name] : undefined;
}

function standardFields(resource: Resource): ChosenFields {
  const fields = new Map<string, ChosenFields | null>();
  for (const [name, field] of Object.entries(resource.fields)) {
    if (field.standard) fields.set(name, choiceBelow(field, undefined));
  }
  return { resource, fields };
}

function choiceBelow(field: RestField, selection: FieldSelection | undefined): ChosenFields | null {
  if (field.kind === 'leaf') return null;
  const resource = field.kind === 'object' ? field.fields : field.item;
  return selection === undefined ? standardFields(resource) : choose(resource, selection);
}

/** Applies a parsed `fields` selection to a resource; undefined means the default shape. */
export function choose(
  resource: Resource,
  selection: FieldSelection | undefined,
  prefix = '',
): ChosenFields {
  if (selection === undefined) return standardFields(resource);
  const chosen = selection.star ? standardFields(resource) : { resource, fields: new Map() };
  for (const [name, below] of selection.children) {
    const field = declaredField(resource, name);
    const path = prefix + name;
    if (!field) throw new UnknownFieldError(path, Object.keys(resource.fields));
    if (field.kind === 'leaf') {
      if (below.children.size > 0)
        throw new UnknownFieldError(`${path}.${[...below.children.keys()][0]}`, []);
      chosen.fields.set(name, null);
    } else {
      const sub = field.kind === 'object' ? field.fields : field.item;
      chosen.fields.set(name, choose(sub, below, `${path}.`));
    }
  }
  return chosen;
}

/** A canonical text of a choice: the cache key of the GraphQL document built for it. */
export function choiceKey(chosen: ChosenFields): string {
  return [...chosen.fields]
    .map(([name, below]) => (below ? `${name}(${choiceKey(below)})` : name))
    .sort()
    .join(',');
}

/** The GraphQL paths a choice needs, from the resource's object. */
export function selectedPaths(chosen: ChosenFields, prefix = ''): string[] {
  const paths: string[] = [];
  for (const [name, below] of chosen.fields) {
    const field = chosen.resource.fields[name]!;
    if (field.kind === 'leaf') {
      paths.push(...field.select.map((path) => prefix + path));
    } else if (field.kind === 'object') {
      if (field.nullIf) paths.push(`${prefix}${field.nullIf}.__typename`);
      paths.push(...selectedPaths(below!, prefix));
    } else {
      paths.push(`${prefix}${field.at}.__typename`);
      paths.push(...selectedPaths(below!, `${prefix}${field.at}.`));
    }
  }
  return paths;
}

/** Builds the REST value of a choice from a GraphQL result object. */
export function reshape(chosen: ChosenFields, item: GraphqlObject): Record<string, unknown> {
  const result: Record<string, unknown> = {};
  for (const [name, below] of chosen.fields) {
    const field = chosen.resource.fields[name]!;
    if (field.kind === 'leaf') {
      result[name] = field.read(item);
    } else if (field.kind === 'object') {
      const absent = field.nullIfKeys !== undefined && valueAt(item, field.nullIfKeys) == null;
      result[name] = absent ? null : reshape(below!, item);
    } else {
      const elements = valueAt(item, field.atKeys);
      result[name] = Array.isArray(elements)
        ? elements.map((element) => reshape(below!, element as GraphqlObject))
        : [];
    }
  }
  return result;
}
