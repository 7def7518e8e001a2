/**
 * /graphql under fuzzed documents (issue 11): documents generated from the schema (random
 * selections, arguments right and wrong, aliases, fragments, variables of the wrong type,
 * directives), the example operations mutated token by token (deleted, repeated, swapped,
 * braces inserted, cut short, huge numbers, unknown fields, deep nesting, many aliases), sent
 * as POST JSON, GET, a GraphQL or form body; and bodies that are not what they claim. Whatever
 * is sent: no 5xx, no stack trace, source file or SQL in the body, a 4xx always with `errors`
 * each carrying `extensions.code`, a 200 with `data` (errors beside it coded too).
 *
 * A document is built from a "tape" of numbers fast-check generates and shrinks: every choice
 * reads the next number, and an exhausted tape chooses 0, the plainest option, so a failure
 * shrinks to a short document.
 *
 * FUZZ_RUNS=2000 runs the probe (its figures printed); FUZZ_SEED and FUZZ_PATH replay a
 * failure (test/fuzz/fuzzing.ts).
 */
import fc from 'fast-check';
import {
  getNamedType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  isUnionType,
  type GraphQLField,
  type GraphQLInputType,
  type GraphQLNamedType,
  type GraphQLObjectType,
} from 'graphql';
import { afterAll, describe, expect, it } from 'vitest';
import { ERROR_STATUS } from '../../src/errors.ts';
import { EXAMPLE_OPERATIONS } from '../../src/graph/graphiql.ts';
import { schema } from '../../src/graph/schema.ts';
import { takeMultipartParts } from '../helpers/incremental.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import {
  assertParameters,
  fuzzSettings,
  hostileText,
  leaksIn,
  NUMBER_JUNK,
  oddText,
  PROTOTYPE_NAMES,
  sometimes,
  StatusTally,
  timeAllowance,
} from './fuzzing.ts';

const catalogue = useSeededCatalogue({
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
  RATE_LIMIT_CLIENT_PER_MINUTE: '0',
});
const settings = fuzzSettings(250);

// ---------------------------------------------------------------------------------------
// The tape

/** Reads choices off a tape; past its end every choice is 0. */
class Tape {
  private at = 0;
  constructor(private readonly numbers: readonly number[]) {}

  /** 0 to n - 1. */
  pick(n: number): number {
    const next = this.numbers[this.at++] ?? 0;
    return n <= 1 ? 0 : next % n;
  }

  /** True with probability `p` (an exhausted tape says no). */
  chance(p: number): boolean {
    return this.pick(1000) >= 1000 * (1 - p);
  }

  one<T>(options: readonly T[]): T {
    return options[this.pick(options.length)]!;
  }
}

const tape = fc.array(fc.nat({ max: 0xffff }), { maxLength: 400, size: 'large' });

// ---------------------------------------------------------------------------------------
// Documents from the schema

/** Names no type of the schema has, those every JavaScript object has among them. */
const FIELD_NAMES = [
  'nope',
  'productz',
  'edge',
  'nodes',
  'Product',
  'id_',
  '_',
  ...PROTOTYPE_NAMES,
];
/** Numbers beyond Int, or not integers at all. */
const HUGE_NUMBERS = ['2147483648', '-2147483649', '99999999999999999999', '1e400', '-0', '0.5'];

/** Arguments that need a cursor from an earlier page (`last` needs `before`). */
const CURSOR_ARGUMENTS = ['after', 'before', 'last'];

/** A GraphQL string literal of `text` (JSON's escapes are GraphQL's). */
const literal = (text: string) => JSON.stringify(text);

interface Built {
  document: string;
  variables: Record<string, unknown>;
  operationName?: string;
}

/**
 * One document being written: the variables and fragments it needs, and a budget of fields.
 * A careful writer makes only valid documents (whose arguments may still find nothing, or
 * break a rule the schema cannot express); a hostile one makes mistakes of every kind.
 */
class DocumentWriter {
  private readonly variableDefinitions: string[] = [];
  readonly variables: Record<string, unknown> = {};
  private readonly fragments: string[] = [];
  private fieldsLeft = 40;
  private aliases = 0;
  private fragmentsNamed = 0;

  constructor(
    private readonly tape: Tape,
    private readonly maxDepth: number,
    private readonly hostile: boolean,
  ) {}

  /** A mistake here, with probability `p`, when the writer is hostile. */
  private mistake(p: number): boolean {
    return this.hostile && this.tape.chance(p);
  }

  /** The operation: mostly a query, sometimes what the API does not answer. */
  write(): Built {
    const { tape } = this;
    const selection = this.selectionSet(schema.getQueryType()!, 1);
    const kind = this.hostile
      ? tape.one(['query', 'query', 'query', '', 'mutation', 'subscription'])
      : tape.one(['query', '']);
    const name = tape.chance(0.5) ? tape.one(['Fuzz', 'A', '__proto__', 'query']) : '';
    const operationDirective = this.mistake(0.05) ? ' @include(if: true)' : '';
    const variables = this.variableDefinitions.length
      ? `(${this.variableDefinitions.join(', ')})`
      : '';
    const head = kind === '' && !variables && !name ? '' : `${kind || 'query'} ${name}${variables}`;
    const operations = [`${head}${operationDirective} ${selection}`];
    if (this.mistake(0.05)) {
      operations.push(tape.one(['query Other { __typename }', '{ markets { code } }']));
    }
    const operationName = this.mistake(0.1)
      ? tape.one(['Fuzz', 'Other', 'Missing', ''])
      : undefined;
    return {
      document: [...operations, ...this.fragments].join('\n'),
      variables: this.variables,
      ...(operationName === undefined ? {} : { operationName }),
    };
  }

  private selectionSet(type: GraphQLNamedType, depth: number): string {
    const { tape } = this;
    const count = 1 + tape.pick(3);
    const selections: string[] = [];
    for (let i = 0; i < count && this.fieldsLeft > 0; i++) {
      this.fieldsLeft -= 1;
      selections.push(this.selection(type, depth));
    }
    if (this.mistake(0.05)) {
      // Many aliases of one field: past the alias bound.
      const times = 10 + tape.pick(40);
      for (let i = 0; i < times; i++) selections.push(`a${i}: __typename`);
    }
    return `{ ${selections.join(' ')} }`;
  }

  private selection(type: GraphQLNamedType, depth: number): string {
    const { tape } = this;
    const fields =
      isObjectType(type) || isInterfaceType(type) ? Object.values(type.getFields()) : [];
    const deepEnough = depth >= this.maxDepth;
    const choice = tape.pick(20);
    if (fields.length > 0 && choice < 14) {
      const usable = deepEnough
        ? fields.filter((field) => isLeafType(getNamedType(field.type)))
        : fields;
      if (usable.length > 0) return this.field(tape.one(usable), depth);
    }
    if (choice === 14 && !deepEnough) return this.inlineFragment(type, depth);
    if (choice === 15 && !deepEnough) return this.fragmentSpread(type, depth);
    if (choice === 16 && this.hostile) {
      return `${tape.one(FIELD_NAMES)}${tape.chance(0.5) ? ' { id }' : ''}`;
    }
    return `__typename${this.directives()}`;
  }

  private field(field: GraphQLField<unknown, unknown>, depth: number): string {
    const { tape } = this;
    // Careful writers alias every field with arguments: the same field twice with other
    // arguments conflicts.
    const alias =
      tape.chance(0.15) || (field.args.length > 0 && !this.hostile)
        ? `${tape.one(['a', 'b', 'id', 'name', '__typename'])}${this.aliases++}: `
        : '';
    const args = this.arguments(field);
    const named = getNamedType(field.type);
    let below = '';
    if (isCompositeType(named)) {
      // Without a selection is an error; so is going on past a leaf.
      below = this.mistake(0.03) ? '' : ` ${this.selectionSet(named, depth + 1)}`;
    } else if (this.mistake(0.02)) {
      below = ' { id }';
    }
    return `${alias}${field.name}${args}${this.directives()}${below}`;
  }

  private arguments(field: GraphQLField<unknown, unknown>): string {
    const { tape } = this;
    const written: string[] = [];
    for (const arg of field.args) {
      const required = isNonNullType(arg.type) && arg.defaultValue === undefined;
      if (!required && !tape.chance(0.3)) continue;
      // Cursors come from earlier pages: a careful writer has none to give.
      if (!this.hostile && CURSOR_ARGUMENTS.includes(arg.name)) continue;
      if (required && this.mistake(0.03)) continue; // a required argument left out
      written.push(`${arg.name}: ${this.argumentValue(arg.name, arg.type)}`);
    }
    if (this.mistake(0.03)) written.push(`${tape.one(['nope', 'first', 'constructor'])}: 1`);
    return written.length ? `(${written.join(', ')})` : '';
  }

  /** A literal, or a variable of the argument's type (or not) with a value (or not). */
  private argumentValue(name: string, type: GraphQLInputType): string {
    const { tape } = this;
    if (tape.chance(0.15)) {
      const variable = `v${this.variableDefinitions.length}`;
      const declared = this.mistake(0.15)
        ? tape.one(['Int', 'String!', '[Int]', 'Boolean', 'Nope', 'Market'])
        : String(type);
      if (!this.mistake(0.05)) this.variableDefinitions.push(`$${variable}: ${declared}`);
      if (!this.mistake(0.1)) this.variables[variable] = this.jsonValue(name, type);
      return `$${variable}`;
    }
    return this.mistake(0.15) ? this.oddLiteral() : this.validLiteral(name, type);
  }

  private validLiteral(name: string, type: GraphQLInputType): string {
    const { tape } = this;
    if (isNonNullType(type)) return this.validLiteral(name, type.ofType);
    if (isListType(type)) {
      const items = Array.from({ length: 1 + tape.pick(3) }, () =>
        this.validLiteral(name, type.ofType),
      );
      return `[${items.join(', ')}]`;
    }
    if (isEnumType(type)) return tape.one(type.getValues()).name;
    if (isInputObjectType(type)) {
      const fields = Object.values(type.getFields()).filter(() => tape.chance(0.6));
      return `{ ${fields.map((field) => `${field.name}: ${this.validLiteral(field.name, field.type)}`).join(', ')} }`;
    }
    const value = this.scalarValue(name, type.name);
    return typeof value === 'string' ? literal(value) : String(value);
  }

  /** The JSON value of a variable: right for its type, unless the writer errs. */
  private jsonValue(name: string, type: GraphQLInputType): unknown {
    const { tape } = this;
    if (this.mistake(0.15)) {
      return tape.one<unknown>([
        null,
        'x',
        2147483648,
        -1,
        1.5,
        [],
        {},
        true,
        '9'.repeat(30),
        { __proto__: 1 },
      ]);
    }
    if (isNonNullType(type)) return this.jsonValue(name, type.ofType);
    if (isListType(type))
      return Array.from({ length: 1 + tape.pick(3) }, () => this.jsonValue(name, type.ofType));
    if (isEnumType(type)) return tape.one(type.getValues()).name;
    if (isInputObjectType(type)) {
      return Object.fromEntries(
        Object.values(type.getFields()).map((field) => [
          field.name,
          this.jsonValue(field.name, field.type),
        ]),
      );
    }
    return this.scalarValue(name, type.name);
  }

  /** A value of a scalar, small where it is a page size (large pages are slow, not wrong). */
  private scalarValue(argument: string, scalar: string): string | number | boolean {
    const { tape } = this;
    switch (scalar) {
      case 'Int':
        if (['first', 'last', 'days', 'limit'].includes(argument)) {
          return tape.chance(0.05) ? tape.one([0, 20, 100, 250, 251, -1]) : 1 + tape.pick(4);
        }
        return tape.chance(0.05) ? tape.one([0, -1, 2147483647]) : 1 + tape.pick(300);
      case 'Float':
        return tape.one([1.5, -100, 0, 99.99]);
      case 'Boolean':
        return tape.chance(0.5);
      case 'ID': {
        const id = `${tape.one(['Product:se:', 'Category:se:', 'Brand:', 'Shop:'])}${1 + tape.pick(300)}`;
        const valid = Buffer.from(id).toString('base64');
        return this.hostile ? tape.one([valid, 'x', '', '1', id, '%%%', 'UHJvZHVjdDox']) : valid;
      }
      case 'String':
        if (CURSOR_ARGUMENTS.includes(argument))
          return tape.one(['YXJyYXljb25uZWN0aW9uOjA=', 'x', '', 'MTA=']);
        if (argument === 'ref') return tape.one(['demo-ref', 'other', 'a b', '']);
        if (argument === 'market') return 'se';
        return tape.one([
          'b',
          'phone',
          'tv',
          'a b c d e f g h i',
          '',
          ' ',
          'É中😀',
          'x'.repeat(300),
        ]);
      default:
        // Date, DateTime and the like: their forms and some that are not.
        return tape.one(['2024-01-01', '2024-01-01T00:00:00Z', 'yesterday', '', '2024-13-45']);
    }
  }

  private oddLiteral(): string {
    return this.tape.one([
      ...HUGE_NUMBERS,
      'null',
      '"x"',
      '""',
      '[]',
      '{}',
      'true',
      'NOPE',
      '$undeclared',
      '"""block\nstring"""',
      '"\\u0000"',
      '"\\uD800"',
      literal('x'.repeat(5000)),
      '[[[[1]]]]',
      '{ a: { b: { c: 1 } } }',
    ]);
  }

  private directives(): string {
    const { tape } = this;
    if (!tape.chance(0.08)) return '';
    const valid = ['@include(if: true)', '@skip(if: false)', '@include(if: false)'];
    if (!this.hostile) return ` ${tape.one(valid)}`;
    return ` ${tape.one([
      ...valid,
      '@skip(if: true) @skip(if: true)',
      '@include',
      '@include(if: "yes")',
      '@nope',
      '@deprecated',
      '@specifiedBy(url: "x")',
      '@include(if: $undeclared)',
    ])}`;
  }

  private inlineFragment(type: GraphQLNamedType, depth: number): string {
    const on = this.fragmentType(type);
    return `... on ${on.name}${this.directives()} ${this.selectionSet(on, depth)}`;
  }

  /** A named fragment, defined (or not), sometimes spreading itself. */
  private fragmentSpread(type: GraphQLNamedType, depth: number): string {
    const name = `F${this.fragmentsNamed++}`;
    const mistake = this.mistake(0.2) ? this.tape.one(['undefined', 'cyclic']) : undefined;
    if (mistake === 'undefined') return `...Undefined`;
    const on = this.fragmentType(type);
    const body = this.selectionSet(on, depth);
    const cyclic = mistake === 'cyclic' ? ` ...${name}` : '';
    this.fragments.push(`fragment ${name} on ${on.name} { ${body.slice(2, -2)}${cyclic} }`);
    return `...${name}`;
  }

  /** The type itself, one of its possible types, or one it cannot be. */
  private fragmentType(type: GraphQLNamedType): GraphQLObjectType | GraphQLNamedType {
    const { tape } = this;
    if ((isInterfaceType(type) || isUnionType(type)) && tape.chance(0.8)) {
      return tape.one(schema.getPossibleTypes(type));
    }
    if (this.mistake(0.1)) return tape.one([schema.getType('Shop')!, schema.getType('Money')!]);
    return type;
  }
}

function generatedDocument(numbers: readonly number[]): Built {
  const choices = new Tape(numbers);
  return new DocumentWriter(choices, 2 + choices.pick(12), choices.chance(0.5)).write();
}

// ---------------------------------------------------------------------------------------
// The example operations, mutated

const TOKEN =
  /"""[\s\S]*?"""|"(?:[^"\\\n]|\\.)*"|#[^\n]*|\.\.\.|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?|[_A-Za-z]\w*|\s+|[^]/g;

const INSERTIONS = [
  '{',
  '}',
  '(',
  ')',
  '[',
  ']',
  '"',
  '...',
  '@',
  '$',
  ':',
  '!',
  '=',
  '|',
  '&',
  '#',
  '\\',
  '\u0000',
  '😀',
  ' query ',
  ' fragment ',
];

function mutatedDocument(numbers: readonly number[]): Built {
  const choices = new Tape(numbers);
  const example = choices.one(EXAMPLE_OPERATIONS);
  const tokens = example.document.match(TOKEN) ?? [];
  const at = () => choices.pick(tokens.length + 1);
  const mutations = 1 + choices.pick(4);
  for (let i = 0; i < mutations; i++) {
    switch (choices.pick(12)) {
      case 0:
        tokens.splice(at(), 1);
        break;
      case 1: {
        const index = at();
        tokens.splice(index, 0, tokens[index] ?? '}');
        break;
      }
      case 2: {
        const [a, b] = [at(), at()];
        [tokens[a], tokens[b]] = [tokens[b] ?? '', tokens[a] ?? ''];
        break;
      }
      case 3:
        tokens.splice(at(), 0, choices.one(INSERTIONS));
        break;
      case 4:
        tokens.length = at();
        break;
      case 5: {
        const numbers = tokens.flatMap((token, index) => (/^-?\d/.test(token) ? [index] : []));
        if (numbers.length)
          tokens[choices.one(numbers)] = choices.one([
            ...HUGE_NUMBERS,
            ...NUMBER_JUNK.filter((n) => /^-?\d+$/.test(n)),
          ]);
        else tokens.splice(at(), 0, '(first: 99999999999)');
        break;
      }
      case 6: {
        const names = tokens.flatMap((token, index) => (/^[_A-Za-z]/.test(token) ? [index] : []));
        if (names.length) tokens[choices.one(names)] = choices.one(FIELD_NAMES);
        break;
      }
      case 7: {
        // Nesting: braces (the parser descends per level) or a field chain.
        const levels = choices.one([10, 50, 200, 1000, 3000]);
        const nest = choices.chance(0.5)
          ? `${'{'.repeat(levels)}${'}'.repeat(levels)}`
          : `${'product(market: SE, id: 1) { category { '.repeat(Math.min(levels, 200))}name${' } }'.repeat(Math.min(levels, 200))}`;
        tokens.splice(at(), 0, nest);
        break;
      }
      case 8: {
        const count = choices.one([16, 100, 1000, 5000]);
        tokens.splice(
          at(),
          0,
          Array.from({ length: count }, (_, n) => `a${n}: __typename`).join(' '),
        );
        break;
      }
      case 9:
        tokens.splice(
          at(),
          0,
          literal(choices.one(['x'.repeat(70_000), 'é'.repeat(1000), '\u0000\u0001'])),
        );
        break;
      case 10:
        tokens.splice(
          at(),
          0,
          ` ${choices.one(['__typename', 'nope', '__schema { types { name } }', '__type(name: "Product") { name }', 'constructor'])} `,
        );
        break;
      default:
        tokens.splice(
          at(),
          0,
          `@${choices.one(['include(if: true)', 'skip', 'nope', 'include(if: $x)'])}`,
        );
    }
  }
  const variables = choices.chance(0.2)
    ? choices.one<Record<string, unknown>>([
        { market: 'XX' },
        { id: 'one' },
        { first: 1e12 },
        { market: null },
        {},
      ])
    : { ...example.variables };
  return { document: tokens.join(''), variables };
}

// ---------------------------------------------------------------------------------------
// Sending

type Transport = 'post-json' | 'get' | 'post-graphql' | 'post-form';

interface GraphQLCase {
  transport: Transport;
  accept: string;
  authorization?: string;
  built: Built;
}

const ACCEPTS = [
  'application/graphql-response+json',
  'application/json',
  'application/graphql-response+json, application/json;q=0.9',
  '*/*',
  '',
];

const graphqlCase = (documents: fc.Arbitrary<Built>) =>
  fc
    .record({
      built: documents,
      transport: fc.constantFrom<Transport>(
        'post-json',
        'post-json',
        'post-json',
        'get',
        'get',
        'post-graphql',
        'post-form',
      ),
      accept: fc.constantFrom(...ACCEPTS),
      authorization: sometimes(
        fc.constantFrom('Bearer junk', 'Bearer', 'Basic eDp5', 'Bearer a.b.c'),
        0.07,
      ),
    })
    .map(({ authorization, ...rest }): GraphQLCase => ({
      ...rest,
      ...(authorization ? { authorization } : {}),
    }));

function requestOf(testCase: GraphQLCase): Request {
  const { built, accept } = testCase;
  const headers: Record<string, string> = {};
  if (accept) headers.accept = accept;
  if (testCase.authorization) headers.authorization = testCase.authorization;
  const url = 'http://test/graphql';
  const params = {
    query: built.document,
    ...(Object.keys(built.variables).length ? { variables: JSON.stringify(built.variables) } : {}),
    ...(built.operationName === undefined ? {} : { operationName: built.operationName }),
  };
  switch (testCase.transport) {
    case 'get':
      return new Request(`${url}?${new URLSearchParams(params)}`, { headers });
    case 'post-graphql':
      return new Request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/graphql' },
        body: built.document,
      });
    case 'post-form':
      return new Request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(params).toString(),
      });
    case 'post-json':
      return new Request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({
          query: built.document,
          variables: built.variables,
          operationName: built.operationName,
        }),
      });
  }
}

/** Bodies that are not what they claim, or claim to be something the API does not take. */
const brokenRequest = fc.record({
  method: fc.constantFrom(
    'POST',
    'POST',
    'POST',
    'GET',
    'PUT',
    'DELETE',
    'PATCH',
    'OPTIONS',
    'HEAD',
  ),
  contentType: fc.option(
    fc.constantFrom(
      'application/json',
      'application/json',
      'application/json; charset=utf-16',
      'application/graphql',
      'text/plain',
      'multipart/form-data; boundary=x',
      'application/x-www-form-urlencoded',
      'application/xml',
      'application/json, text/plain',
      '',
    ),
    { nil: undefined, freq: 8 },
  ),
  accept: fc.constantFrom(...ACCEPTS, 'text/event-stream', 'text/html'),
  body: fc.option(
    fc.oneof(
      fc.constantFrom(
        '',
        'null',
        '{}',
        '[]',
        '"x"',
        '1',
        '{"query":null}',
        '{"query":1}',
        '{"query":["{ __typename }"]}',
        '{"query":{}}',
        '{"query":""}',
        '{"query":"{ __typename }","variables":"x"}',
        '{"query":"{ __typename }","variables":[1]}',
        '{"query":"{ __typename }","operationName":5}',
        '{"query":"{ __typename }","extensions":{"persistedQuery":{"version":1,"sha256Hash":"x"}}}',
        '{"query":"{ __typename }"',
        '{"query":"{ __typename }"}}',
        '\ufeff{"query":"{ __typename }"}',
        '{"query":"{ __typename }","query":"{ markets { code } }"}',
        '{"__proto__":{"query":"{ __typename }"}}',
        '{"constructor":{"prototype":{"query":1}}}',
        '[{"query":"{ __typename }"},{"query":"{ markets { code } }"}]',
        'query=%7B__typename%7D',
        'query=%7B__typename%7D&variables=%7B',
        '--x\r\nContent-Disposition: form-data; name="operations"\r\n\r\n{}\r\n--x--',
      ),
      fc
        .integer({ min: 1000, max: 60_000 })
        .map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
      fc
        .integer({ min: 1000, max: 30_000 })
        .map(
          (depth) =>
            `{"query":"{ __typename }","variables":${'{"a":'.repeat(depth)}1${'}'.repeat(depth + 1)}`,
        ),
      fc.constant(`{"query":"${'a'.repeat(200_000)}"}`),
      oddText,
      hostileText,
      fc.string({ unit: 'binary', maxLength: 60 }),
    ),
    { nil: undefined, freq: 12 },
  ),
  search: sometimes(
    fc.constantFrom(
      '?query=',
      '?query=%7B',
      '?query=%zz',
      '?variables=%7B',
      '?query=%7B__typename%7D&variables=x',
      '?query=%7B__typename%7D&extensions=x',
      '?query=%7B__typename%7D&query=%7Bmarkets%7Bcode%7D%7D',
      '?query=mutation%7B__typename%7D',
    ),
    0.3,
  ),
});

// ---------------------------------------------------------------------------------------
// Checking

/**
 * Ours, and yoga's own: for a document it cannot parse or validate (test/graph/errors.test.ts),
 * and for several operations without an `operationName` naming one of them.
 */
const CODES = [
  ...Object.keys(ERROR_STATUS),
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'OPERATION_RESOLUTION_FAILURE',
];
const tally = new StatusTally();
const counts = { generated: 0, mutated: 0, broken: 0 };
afterAll(() => {
  if (settings.probe) {
    console.info(
      `GraphQL fuzz, seed ${settings.seed}: ${counts.generated} generated, ${counts.mutated} mutated, ${counts.broken} broken requests; statuses ${tally}`,
    );
  }
});

function expectCoded(errors: unknown, context: string) {
  expect(Array.isArray(errors) && errors.length > 0, context).toBe(true);
  for (const error of errors as { message?: unknown; extensions?: { code?: unknown } }[]) {
    expect(typeof error.message, context).toBe('string');
    expect(CODES, context).toContain(error.extensions?.code);
  }
}

/** The GraphQL answers of an event stream (`data:` lines). */
function streamedResults(text: string): unknown[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('data:') && line.length > 'data:'.length + 1)
    .map((line) => JSON.parse(line.slice('data:'.length)) as unknown);
}

async function sendAndCheck(request: Request, description: string) {
  const method = request.method;
  const response = await catalogue.app.fetch(request);
  const text = await response.text();
  tally.record(response.status);
  const context = `${method} ${description.slice(0, 600)} → ${response.status}: ${text.slice(0, 600)}`;
  expect(response.status, context).toBeLessThan(500);
  expect(leaksIn(text), context).toEqual([]);
  expect(response.headers.get('x-request-id'), context).toBeTruthy();
  if (method === 'HEAD' || text === '') {
    expect(response.status, context).not.toBe(200);
    return;
  }
  const type = response.headers.get('content-type') ?? '';
  if (type.startsWith('text/html')) {
    // GraphiQL, for a browser's GET.
    expect([method, response.status], context).toEqual(['GET', 200]);
    return;
  }
  if (type.startsWith('text/event-stream') || type.startsWith('multipart/mixed')) {
    // An event stream, or @defer/@stream's parts: every part's own errors coded.
    const results = type.startsWith('multipart/mixed')
      ? takeMultipartParts(text).complete
      : streamedResults(text);
    type Part = { data?: unknown; errors?: unknown; incremental?: { errors?: unknown }[] };
    for (const result of results as Part[]) {
      const answers = 'data' in result || result.incremental !== undefined;
      if (result.errors !== undefined || !answers) expectCoded(result.errors, context);
      for (const patch of result.incremental ?? []) {
        if (patch.errors !== undefined) expectCoded(patch.errors, context);
      }
    }
    return;
  }
  const body = JSON.parse(text) as { data?: unknown; errors?: unknown };
  if (response.status >= 400 || !('data' in body)) {
    // A request error: for an `application/json` client a 200 without `data` (GraphQL over
    // HTTP), else a 4xx; either way coded errors only.
    expectCoded(body.errors, context);
    if (response.status === 200) expect(type, context).toMatch(/^application\/json/);
    return;
  }
  expect(response.status, context).toBe(200);
  if (body.errors !== undefined) expectCoded(body.errors, context);
}

const describeCase = (testCase: GraphQLCase) =>
  `${testCase.transport} accept=${testCase.accept || '-'} ${JSON.stringify(testCase.built)}`;

const DOCUMENTS = [
  { kind: 'generated', title: 'documents generated from the schema', made: generatedDocument },
  { kind: 'mutated', title: 'the example operations mutated', made: mutatedDocument },
] as const;

describe('/graphql under fuzzed documents', () => {
  for (const { kind, title, made } of DOCUMENTS) {
    it(
      `answers ${title} below 500, coded, with nothing internal`,
      async () => {
        await fc.assert(
          fc.asyncProperty(graphqlCase(tape.map(made)), async (testCase) => {
            counts[kind] += 1;
            await sendAndCheck(requestOf(testCase), describeCase(testCase));
          }),
          assertParameters(settings),
        );
      },
      timeAllowance(settings.runs, 150),
    );
  }

  it(
    'answers broken bodies, wrong content types and methods below 500, coded',
    async () => {
      await fc.assert(
        fc.asyncProperty(brokenRequest, async ({ method, contentType, accept, body, search }) => {
          counts.broken += 1;
          const headers: Record<string, string> = {};
          if (contentType !== undefined) headers['content-type'] = contentType;
          if (accept) headers.accept = accept;
          const withBody = body !== undefined && method !== 'GET' && method !== 'HEAD';
          const request = new Request(`http://test/graphql${search ?? ''}`, {
            method,
            headers,
            ...(withBody ? { body } : {}),
          });
          await sendAndCheck(
            request,
            `${search ?? ''} ${contentType} ${JSON.stringify(body)?.slice(0, 300)}`,
          );
        }),
        assertParameters(settings, 0.5),
      );
    },
    timeAllowance(settings.runs * 0.5, 100),
  );
});
