import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  FIELDS_LIMITS,
  FieldsSyntaxError,
  fieldsDepth,
  formatFields,
  parseFields,
  type FieldSelection,
  type FieldsErrorReason,
} from '../../src/rest/fields.ts';
import { restRoutes } from '../../src/rest/routes/index.ts';
import { expectErrorBody, query, useRestCatalogue } from '../helpers/rest.ts';

const rest = useRestCatalogue();

/** A selection with `*` at its level and the given named fields. */
function withStar(children: Record<string, FieldSelection> = {}): FieldSelection {
  return { star: true, children: new Map(Object.entries(children)) };
}

/** A selection with only the given named fields. */
function only(children: Record<string, FieldSelection>): FieldSelection {
  return { star: false, children: new Map(Object.entries(children)) };
}

/** What a bare name selects: the field with its standard sub-fields. */
const bare = (): FieldSelection => withStar();

function errorOf(input: string): FieldsSyntaxError {
  try {
    parseFields(input);
  } catch (error) {
    if (error instanceof FieldsSyntaxError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(input)} to be rejected`);
}

describe('the examples of the specification and the decisions', () => {
  it('a list of names selects exactly those fields, each with its standard sub-fields', () => {
    expect(parseFields('id,name')).toEqual(only({ id: bare(), name: bare() }));
  });

  it('a dotted name keeps only the named sub-field', () => {
    expect(parseFields('price.regular')).toEqual(only({ price: only({ regular: bare() }) }));
  });

  it('dot and parenthesis forms are equivalent, and mix and merge', () => {
    const expected = only({ category: only({ id: bare(), name: bare() }) });
    expect(parseFields('category(id,name)')).toEqual(expected);
    expect(parseFields('category.id,category.name')).toEqual(expected);
    expect(parseFields('category.id,category(name)')).toEqual(expected);
    expect(parseFields('category(id),category(name)')).toEqual(expected);
  });

  it('"*" selects all standard fields of its level', () => {
    expect(parseFields('*')).toEqual(withStar());
    expect(parseFields('category(*,logo)')).toEqual(only({ category: withStar({ logo: bare() }) }));
  });

  it('a sub-resource alone selects only it, with its standard fields', () => {
    expect(parseFields('category')).toEqual(only({ category: bare() }));
  });

  it('"*,category" selects the standard fields plus the full sub-resource', () => {
    expect(parseFields('*,category')).toEqual(withStar({ category: bare() }));
  });

  it('merges as a union: a bare name already asked for the standard sub-fields', () => {
    expect(parseFields('category,category.id')).toEqual(
      only({ category: withStar({ id: bare() }) }),
    );
    expect(parseFields('category.id,category')).toEqual(parseFields('category,category.id'));
  });

  it('accepts duplicates', () => {
    expect(parseFields('id,id,name,id,*,*')).toEqual(withStar({ id: bare(), name: bare() }));
  });

  it('ignores white space around every token', () => {
    expect(parseFields(' id ,\tcategory ( id ,\r\n name ) , price . regular , * ')).toEqual(
      withStar({
        id: bare(),
        category: only({ id: bare(), name: bare() }),
        price: only({ regular: bare() }),
      }),
    );
  });

  it('keeps names case-sensitive and in order of first mention', () => {
    const selection = parseFields('name,id,ID,name');
    expect([...selection.children.keys()]).toEqual(['name', 'id', 'ID']);
  });
});

describe('formatFields', () => {
  it('prints "*" first, names sorted, nested selections in parenthesis form', () => {
    expect(formatFields(parseFields('price.regular,*,category(name,*,id),brand'))).toBe(
      '*,brand,category(*,id,name),price(regular)',
    );
  });

  it('prints equal selections equally, whatever form they were written in', () => {
    expect(formatFields(parseFields('category.id , category(name)'))).toBe(
      formatFields(parseFields('category(name,id)')),
    );
  });

  it('refuses a selection no expression stands for', () => {
    expect(() => formatFields(only({}))).toThrow(RangeError);
    expect(() => formatFields(only({ category: only({}) }))).toThrow(RangeError);
  });
});

describe('syntax errors', () => {
  // prettier-ignore
  const cases: [input: string, position: number, reason: FieldsErrorReason, message: string][] = [
    ['', 0, 'empty', 'fields: empty; name at least one field, or "*" for all standard fields'],
    [' \t ', 3, 'empty', 'fields: empty; name at least one field, or "*" for all standard fields'],
    ['id,,name', 3, 'syntax', 'fields: expected a field name at position 3, found ","'],
    ['price.regular,', 14, 'syntax', 'fields: expected a field name at position 14, found end of input'],
    [',id', 0, 'syntax', 'fields: expected a field name at position 0, found ","'],
    ['1a', 0, 'syntax', 'fields: expected a field name at position 0, found "1"'],
    ['a.', 2, 'syntax', 'fields: expected a field name at position 2, found end of input'],
    ['.a', 0, 'syntax', 'fields: expected a field name at position 0, found "."'],
    ['a..b', 2, 'syntax', 'fields: expected a field name at position 2, found "."'],
    ['a.1', 2, 'syntax', 'fields: expected a field name at position 2, found "1"'],
    ['a(', 2, 'syntax', 'fields: expected a field name at position 2, found end of input'],
    ['a(b', 3, 'syntax', 'fields: unbalanced parenthesis at position 3: the "(" at position 1 is never closed'],
    ['a(b(c)', 6, 'syntax', 'fields: unbalanced parenthesis at position 6: the "(" at position 1 is never closed'],
    ['a)', 1, 'syntax', 'fields: unbalanced parenthesis at position 1: a ")" without a "(" before it'],
    ['a(b)),c', 4, 'syntax', 'fields: unbalanced parenthesis at position 4: a ")" without a "(" before it'],
    ['a()', 2, 'syntax', 'fields: expected a field name at position 2, found ")"'],
    ['a( )', 3, 'syntax', 'fields: expected a field name at position 3, found ")"'],
    ['a(b,)', 4, 'syntax', 'fields: expected a field name at position 4, found ")"'],
    ['(a)', 0, 'syntax', 'fields: expected a field name at position 0, found "("'],
    ['a(b)(c)', 4, 'syntax', 'fields: expected "," or end of input at position 4, found "("'],
    ['a(b)c', 4, 'syntax', 'fields: expected "," or end of input at position 4, found "c"'],
    ['a(b c)', 4, 'syntax', 'fields: expected "," or ")" at position 4, found "c"'],
    ['a b', 2, 'syntax', 'fields: expected "," or end of input at position 2, found "b"'],
    ['a. b c', 5, 'syntax', 'fields: expected "," or end of input at position 5, found "c"'],
    ['*.a', 1, 'syntax', 'fields: expected "," or end of input at position 1, found "."'],
    ['*(a)', 1, 'syntax', 'fields: expected "," or end of input at position 1, found "("'],
    ['**', 1, 'syntax', 'fields: expected "," or end of input at position 1, found "*"'],
    // `*` is an item of its own; `a(*)` is how to ask for all standard fields of `a`.
    ['a.*', 2, 'syntax', 'fields: expected a field name at position 2, found "*"; "*" stands alone as an item, as in category(*)'],
    ['namé', 3, 'syntax', 'fields: unexpected character "é" at position 3; field names use only A-Z, a-z, 0-9 and _'],
    ['ñ', 0, 'syntax', 'fields: unexpected character "ñ" at position 0; field names use only A-Z, a-z, 0-9 and _'],
    ['id,😀', 3, 'syntax', 'fields: unexpected character "😀" at position 3; field names use only A-Z, a-z, 0-9 and _'],
    ['a-b', 1, 'syntax', 'fields: unexpected character "-" at position 1; field names use only A-Z, a-z, 0-9 and _'],
    // Only ASCII white space is ignored; a no-break space is a character like any other.
    ['a,\u00a0b', 2, 'syntax', 'fields: unexpected character "\u00a0" at position 2; field names use only A-Z, a-z, 0-9 and _'],
  ];

  it.each(cases)('rejects %j at position %i (%s)', (input, position, reason, message) => {
    const error = errorOf(input);
    expect({ position: error.position, reason: error.reason, message: error.message }).toEqual({
      position,
      reason,
      message,
    });
  });

  it('is an Error named FieldsSyntaxError with a detail for the REST error body', () => {
    const error = errorOf('a b');
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('FieldsSyntaxError');
    expect(error.toErrorDetail()).toEqual({ parameter: 'fields', reason: 'syntax' });
  });
});

describe('bounds', () => {
  const { maxLength, maxDepth, maxNames } = FIELDS_LIMITS;

  it('accepts 4096 characters and rejects 4097', () => {
    expect(parseFields('a'.repeat(maxLength))).toEqual(only({ ['a'.repeat(maxLength)]: bare() }));
    expect(parseFields(`${' '.repeat(maxLength - 2)}id`)).toEqual(only({ id: bare() }));
    const error = errorOf(`${' '.repeat(maxLength - 1)}id`);
    expect([error.reason, error.position, error.message]).toEqual([
      'too_long',
      4096,
      'fields: longer than 4096 characters',
    ]);
  });

  it('checks the length first, before anything else is wrong', () => {
    expect(errorOf(')'.repeat(maxLength + 1)).reason).toBe('too_long');
  });

  /** `a0.a1…`, `a0(a1(…))` and a mix of both, `depth` names deep. */
  const chains = (depth: number) => {
    const names = Array.from({ length: depth }, (_, index) => `a${index}`);
    const nested = names.reduceRight((inner, name) => (inner ? `${name}(${inner})` : name), '');
    const mixed = names.reduceRight(
      (inner, name, index) =>
        !inner ? name : index % 2 ? `${name}(${inner})` : `${name}.${inner}`,
      '',
    );
    return { dots: names.join('.'), nested, mixed };
  };

  it('accepts a depth of 8, with dots, parentheses or both', () => {
    for (const expression of Object.values(chains(maxDepth))) {
      expect(fieldsDepth(parseFields(expression))).toBe(maxDepth);
    }
    expect(fieldsDepth(parseFields(`${chains(maxDepth).dots}(*)`))).toBe(maxDepth);
  });

  it('rejects a depth of 9 at the ninth name, with dots, parentheses or both', () => {
    for (const expression of Object.values(chains(maxDepth + 1))) {
      const error = errorOf(expression);
      const ninth = expression.indexOf('a8');
      expect([error.reason, error.position, error.message]).toEqual([
        'too_deep',
        ninth,
        `fields: nesting deeper than 8 levels at position ${ninth}`,
      ]);
    }
  });

  it('measures depth per branch, not across the list', () => {
    const expression = `${chains(maxDepth).dots},${chains(maxDepth).nested},x(y)`;
    expect(fieldsDepth(parseFields(expression))).toBe(maxDepth);
  });

  it('accepts 200 names and rejects the 201st, duplicates and dotted names included', () => {
    const names = Array.from({ length: maxNames }, (_, index) => `n${index}`);
    expect(parseFields(names.join(',')).children.size).toBe(maxNames);
    const error = errorOf([...names, 'n200'].join(','));
    const position = names.join(',').length + 1;
    expect([error.reason, error.position, error.message]).toEqual([
      'too_many_names',
      position,
      `fields: more than 200 names (the next one at position ${position})`,
    ]);
    expect(
      errorOf(
        Array(maxNames + 1)
          .fill('id')
          .join(','),
      ).reason,
    ).toBe('too_many_names');
    expect(
      parseFields(
        Array(maxNames / 2)
          .fill('a.b')
          .join(','),
      ).children.size,
    ).toBe(1);
    expect(
      errorOf(
        `${Array(maxNames / 2)
          .fill('a.b')
          .join(',')},c`,
      ).reason,
    ).toBe('too_many_names');
  });
});

// --- Property-based tests ---------------------------------------------------------------------

const nameArbitrary = fc.oneof(
  // A few common names, so that merges of the same name happen often.
  fc.constantFrom('id', 'name', 'price', 'regular', 'a', 'A', '_', 'x1'),
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,7}$/),
);

/**
 * Normalised selection trees as parseFields builds them: every node below the root has `*` or
 * at least one child (a node with neither cannot be written). Bushy trees stay shallow...
 */
const { tree: bushyTree } = fc.letrec<{ tree: FieldSelection; branch: FieldSelection }>((tie) => ({
  tree: fc.oneof(
    { depthIdentifier: 'selection', maxDepth: FIELDS_LIMITS.maxDepth },
    fc.constant(null).map(bare),
    tie('branch'),
  ),
  branch: fc
    .record({
      star: fc.boolean(),
      entries: fc.uniqueArray(fc.tuple(nameArbitrary, tie('tree')), {
        minLength: 1,
        maxLength: 3,
        selector: ([name]) => name,
      }),
    })
    .map(({ star, entries }) => ({ star, children: new Map(entries) })),
}));

/** ...so deep trees come from a spine of up to 8 names, with `*` and a sibling here and there. */
const deepTree = fc
  .array(
    fc.record({ name: nameArbitrary, star: fc.boolean(), sibling: fc.option(nameArbitrary) }),
    { minLength: 1, maxLength: FIELDS_LIMITS.maxDepth },
  )
  .map((levels) =>
    levels.reduceRight((below, { name, star, sibling }) => {
      const level: FieldSelection = { star, children: new Map() };
      if (sibling !== null) level.children.set(sibling, bare());
      level.children.set(name, below); // after the sibling: the spine wins a clash of names
      return level;
    }, bare()),
  );

const treeArbitrary = fc.oneof(bushyTree, deepTree);

/** Names in an expression, counted without the parser (white space and punctuation part them). */
const nameTokens = (expression: string) =>
  (expression.match(/[A-Za-z_][A-Za-z0-9_]*/g) ?? []).length;

const withinBounds = (expression: string) =>
  expression.length <= FIELDS_LIMITS.maxLength && nameTokens(expression) <= FIELDS_LIMITS.maxNames;

/** A small seeded generator (mulberry32), so a failing case replays from its seed. */
function choicesFrom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const chance = (probability: number) => next() < probability;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const shuffle = <T>(items: T[]): T[] => {
    for (let index = items.length - 1; index > 0; index -= 1) {
      const other = Math.floor(next() * (index + 1));
      [items[index], items[other]] = [items[other]!, items[index]!];
    }
    return items;
  };
  const space = () => (chance(0.7) ? '' : pick([' ', '  ', '\t', ' \t ', '\n']));
  return { chance, pick, shuffle, space };
}
type Choices = ReturnType<typeof choicesFrom>;

/**
 * Writes a selection in a randomly chosen mix of the equivalent forms: dots or parentheses,
 * items split into several groups or repeated, any order, white space around tokens.
 */
function writeAnyForm(selection: FieldSelection, choices: Choices): string {
  return choices.space() + joinItems(itemsFor(selection, choices), choices) + choices.space();
}

/** Items whose union, at one level, is `selection`. */
function itemsFor(selection: FieldSelection, choices: Choices): string[] {
  const items = selection.star ? ['*'] : [];
  for (const [name, child] of selection.children) items.push(...itemsNaming(name, child, choices));
  if (choices.chance(0.15)) items.push(choices.pick(items));
  return choices.shuffle(items);
}

function itemsNaming(name: string, child: FieldSelection, choices: Choices): string[] {
  return splitIntoGroups(itemsFor(child, choices), choices).flatMap((group) => {
    if (group.length === 1 && group[0] === '*' && choices.chance(0.7)) return [name];
    if (choices.chance(0.5)) {
      const dot = `${choices.space()}.${choices.space()}`;
      return group.map((item) => (item === '*' ? name : `${name}${dot}${item}`));
    }
    const s = choices.space;
    return [`${name}${s()}(${s()}${joinItems(group, choices)}${s()})`];
  });
}

function splitIntoGroups(items: string[], choices: Choices): string[][] {
  const groups: string[][] = [];
  for (const item of items) {
    const last = groups.at(-1);
    if (last === undefined || choices.chance(0.3)) groups.push([item]);
    else last.push(item);
  }
  return groups;
}

function joinItems(items: string[], choices: Choices): string {
  return items.reduce((joined, item) => `${joined}${choices.space()},${choices.space()}${item}`);
}

/** Parses, and tells a FieldsSyntaxError apart from anything else thrown. */
function outcomeOf(input: string): FieldSelection | FieldsSyntaxError {
  try {
    return parseFields(input);
  } catch (error) {
    if (error instanceof FieldsSyntaxError) return error;
    throw error;
  }
}

function expectWellFormed(outcome: FieldSelection | FieldsSyntaxError, input: string): void {
  if (outcome instanceof FieldsSyntaxError) {
    expect(outcome.position).toBeGreaterThanOrEqual(0);
    expect(outcome.position).toBeLessThanOrEqual(input.length);
    expect(outcome.message).toMatch(/^fields: /);
    return;
  }
  expect(fieldsDepth(outcome)).toBeLessThanOrEqual(FIELDS_LIMITS.maxDepth);
  expect(parseFields(formatFields(outcome))).toEqual(outcome);
}

/** Mostly the grammar's own characters, parentheses most of all. */
const grammarCharacter = fc.oneof(
  { arbitrary: fc.constantFrom('(', ')'), weight: 4 },
  { arbitrary: fc.constantFrom('a', '_', '1', '.', ',', '*', ' ', '\t'), weight: 6 },
);

describe('properties', () => {
  it('generates trees across the whole range of depths', () => {
    const depths = new Set(
      fc.sample(treeArbitrary, { numRuns: 2000, seed: 1 }).map((tree) => fieldsDepth(tree)),
    );
    expect(Math.max(...depths)).toBe(FIELDS_LIMITS.maxDepth);
    expect(depths.size).toBe(FIELDS_LIMITS.maxDepth + 1);
  });

  it('parses any mix of forms back to the selection written', () => {
    fc.assert(
      fc.property(treeArbitrary, fc.integer(), (tree, seed) => {
        const expression = writeAnyForm(tree, choicesFrom(seed));
        fc.pre(withinBounds(expression));
        const parsed = parseFields(expression);
        expect(parsed).toEqual(tree);
        expect(formatFields(parsed)).toBe(formatFields(tree));
      }),
      { numRuns: 500 },
    );
  });

  it('formatFields is canonical: parsing it gives the same selection back', () => {
    fc.assert(
      fc.property(treeArbitrary, (tree) => {
        const canonical = formatFields(tree);
        fc.pre(withinBounds(canonical));
        expect(parseFields(canonical)).toEqual(tree);
        expect(formatFields(parseFields(canonical))).toBe(canonical);
      }),
      { numRuns: 500 },
    );
  });

  /** Valid expressions with one character inserted, removed or replaced: nearly right. */
  const nearlyValid = fc
    .tuple(treeArbitrary, fc.integer(), fc.nat(), grammarCharacter, fc.constantFrom(0, 1, 2))
    .map(([tree, seed, at, character, edit]) => {
      const valid = writeAnyForm(tree, choicesFrom(seed));
      const index = at % (valid.length + 1);
      const removed = edit === 0 ? 0 : 1;
      return valid.slice(0, index) + (edit === 1 ? '' : character) + valid.slice(index + removed);
    });

  const families: [description: string, strings: fc.Arbitrary<string>, runs: number][] = [
    ['printable ASCII', fc.string({ maxLength: 200 }), 500],
    ['any code points', fc.string({ unit: 'binary', maxLength: 200 }), 500],
    ['the grammar alphabet, parentheses first', fc.string({ unit: grammarCharacter }), 2000],
    ['valid expressions with one edit', nearlyValid, 2000],
    [
      'long strings of the grammar alphabet',
      fc.string({ unit: grammarCharacter, minLength: 3000, maxLength: 5000 }),
      50,
    ],
  ];

  it.each(families)(
    '%s either parse to a canonical fixed point or throw only FieldsSyntaxError',
    (_, strings, runs) => {
      fc.assert(
        fc.property(strings, (input) => expectWellFormed(outcomeOf(input), input)),
        { numRuns: runs },
      );
    },
  );

  it('rejects hostile nesting where it starts, without deep recursion', () => {
    // The parser stops at the first character past a bound, so hostile input costs work in
    // proportion to the bounds, not to its length (checked by position, not by a clock).
    expect(errorOf('('.repeat(10_240))).toMatchObject({ reason: 'too_long', position: 4096 });
    expect(errorOf('('.repeat(FIELDS_LIMITS.maxLength))).toMatchObject({ position: 0 });
    expect(errorOf('a('.repeat(2000))).toMatchObject({ reason: 'too_deep', position: 16 });
    expect(errorOf(`${'a.'.repeat(2000)}a`)).toMatchObject({ reason: 'too_deep', position: 16 });
    expect(errorOf(`${'a('.repeat(1000)}${')'.repeat(1000)}`)).toMatchObject({
      reason: 'too_deep',
      position: 16,
    });
  });
});

/** Names every plain object inherits: a lookup that is not an own-property check finds them. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'valueOf', 'hasOwnProperty'];

describe('names of Object.prototype', () => {
  it.each(PROTOTYPE_NAMES)('%s parses as an ordinary name', (name) => {
    const parsed = parseFields(`${name},category(${name})`);
    expect(parsed).toEqual(only({ [name]: bare(), category: only({ [name]: bare() }) }));
    expect(parseFields(formatFields(parsed))).toEqual(parsed);
  });

  /** A valid request to each route, by route id; the test fails when a route has none. */
  const SAMPLE_REQUESTS: Record<string, { path: string; params: Record<string, string> }> = {
    partnerSearchProducts: { path: '/partner-search/products', params: { ref: 'demo-ref' } },
    partnerSearchProduct: { path: '/partner-search/products/41', params: { ref: 'demo-ref' } },
    suggestions: { path: '/suggestions', params: {} },
    categories: { path: '/categories', params: { q: 'b' } },
    products: { path: '/products', params: {} },
    productsById: { path: '/products/41', params: {} },
    genericProducts: { path: '/v1/products', params: {} },
    genericProduct: { path: '/v1/products/41', params: {} },
    genericCategories: { path: '/v1/categories', params: {} },
    genericCategory: { path: '/v1/categories/1', params: {} },
    genericCategoryProducts: { path: '/v1/categories/1/products', params: {} },
  };

  it('has a sample request for every route', () => {
    expect(Object.keys(SAMPLE_REQUESTS).sort()).toEqual(restRoutes.map((r) => r.id).sort());
  });

  describe.each(restRoutes.map((route) => ({ id: route.id, route })))('$id', ({ route }) => {
    const sample = SAMPLE_REQUESTS[route.id]!;
    const nested = Object.entries(route.resource.fields).find(([, f]) => f.kind !== 'leaf')![0];

    it.each(PROTOTYPE_NAMES.flatMap((name) => [name, `${nested}.${name}`]))(
      'fields=%s is an unknown name, not a defect',
      async (fields) => {
        const path = `${sample.path}${query({ market: 'se', ...sample.params, fields })}`;
        const response = await (route.access === 'partner' ? rest.partner(path) : rest.get(path));
        const error = expectErrorBody(response, route.unknownNameStatus);
        expect(error.details).toEqual([{ parameter: 'fields', reason: 'unknown' }]);
        expect(error.message).toContain(`unknown field "${fields}"`);
      },
    );
  });
});
