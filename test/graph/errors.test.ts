/**
 * Errors a client can act on carry a code (decisions section 3) and say what was wrong;
 * anything unexpected is masked: a generic message, no stack, no SQL.
 */
import { describe, expect, it } from 'vitest';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();

const GRAPHQL_RESPONSE = { accept: 'application/graphql-response+json' };

/** The status and the single error of a request that must fail. */
async function failing(
  query: string,
  variables?: Record<string, unknown>,
  headers: Record<string, string> = GRAPHQL_RESPONSE,
) {
  const response = await catalogue.post({ query, variables }, headers);
  const body = (await response.json()) as {
    data?: unknown;
    errors?: { message: string; path?: unknown[]; extensions?: Record<string, unknown> }[];
  };
  expect(body.errors).toHaveLength(1);
  return { status: response.status, body, error: body.errors![0]! };
}

describe('a query the schema does not accept', () => {
  it('answers an unknown market with a validation error and status 400', async () => {
    const { status, body, error } = await failing('{ product(market: XX, id: 1) { name } }');
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(error.message).toBe('Value "XX" does not exist in "Market" enum.');
    expect(error.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('keeps status 200 for a legacy application/json client (GraphQL over HTTP)', async () => {
    const { status, error } = await failing('{ product(market: XX, id: 1) { name } }', undefined, {
      accept: 'application/json',
    });
    expect(status).toBe(200);
    expect(error.extensions).toMatchObject({ code: 'GRAPHQL_VALIDATION_FAILED' });
  });

  it('answers an unknown market in a variable as an input error', async () => {
    const { status, error } = await failing(
      'query ($market: Market!) { product(market: $market, id: 1) { name } }',
      { market: 'xx' },
    );
    expect(status).toBe(400);
    expect(error.message).toContain('Value "xx" does not exist in "Market" enum.');
  });
});

describe('BAD_USER_INPUT', () => {
  // Raised while executing: the operation ran (`data` is there, null at the root field), so
  // the answer is a 200 for either media type (GraphQL over HTTP), the code says what failed.
  const badInput = async (query: string, message: string, path: (string | number)[]) => {
    const { status, body, error } = await failing(query);
    expect(status).toBe(200);
    expect(body).toHaveProperty('data');
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
    expect(error.message).toBe(message);
    expect(error.path).toEqual(path);
    return error;
  };

  it('for a global id that is not one', async () => {
    await badInput('{ node(id: "not-base64!") { id } }', 'Invalid global ID: not-base64!', [
      'node',
    ]);
    // In `nodes`, the bad id's own position (the other ids resolve: connection-spec.test.ts).
    await badInput(
      `{ nodes(ids: ["${btoa('Product:se:1')}", "zz"]) { id } }`,
      'Invalid global ID: zz',
      ['nodes', 1],
    );
  });

  it('for a product global id naming no market and product', async () => {
    const error = await badInput(
      `{ node(id: "${btoa('Product:xx:1')}") { id } }`,
      'not a product id',
      ['node'],
    );
    expect(error.extensions!.details).toEqual([{ parameter: 'id', reason: 'malformed_id' }]);
  });

  it('for a global id of an unknown type', async () => {
    const { status, error } = await failing(`{ node(id: "${btoa('Nope:1')}") { id } }`);
    expect(status).toBe(200);
    expect(error.extensions).toMatchObject({ code: 'BAD_USER_INPUT' });
  });

  it('for a ref outside its pattern', async () => {
    const error = await badInput(
      '{ product(market: SE, id: 1, ref: "has space") { name } }',
      'ref must be 1–64 characters of A–Z a–z 0–9 . _ ~ -',
      ['product'],
    );
    expect(error.extensions!.details).toEqual([{ parameter: 'ref', reason: 'pattern' }]);
  });

  it('for a page larger than the maximum, before execution (no path, no data)', async () => {
    const { status, body, error } = await failing(
      '{ products(market: SE, first: 1000) { totalCount } }',
    );
    expect(status).toBe(400);
    expect(body.data).toBeUndefined();
    expect(error).toEqual({
      message: 'first must be between 0 and 250',
      locations: [{ line: 1, column: 24 }],
      extensions: {
        code: 'BAD_USER_INPUT',
        details: [{ parameter: 'first', reason: 'out_of_range' }],
      },
    });
  });

  it('for an unknown category filter', async () => {
    const error = await badInput(
      '{ products(market: SE, category: "no-such-category") { totalCount } }',
      'unknown category "no-such-category"',
      ['products'],
    );
    expect(error.extensions!.details).toEqual([{ parameter: 'category', reason: 'unknown' }]);
  });

  // No Postgres text holds U+0000: the server refuses the value (found by the GraphQL fuzz).
  it.each([
    ['{ products(market: DK, category: "\\u0000") { totalCount } }', ['products']],
    ['{ category(market: DK, slug: "a\\u0000") { name } }', ['category']],
    ['{ products(market: DK, gtins: ["\\u0000"]) { totalCount } }', ['products']],
  ])('for text with a NUL character: %s', async (query, path) => {
    await badInput(query, 'text arguments must not contain the NUL character (U+0000)', path);
  });

  it('but a category looked up by an unknown slug is simply null', async () => {
    const body = await catalogue.graphql(
      '{ category(market: SE, slug: "no-such-category") { name } }',
    );
    expect(body).toEqual({ data: { category: null } });
  });
});

describe('an unexpected error', () => {
  it('is masked: a generic message, INTERNAL_SERVER_ERROR, no stack, no SQL', async () => {
    const { db } = catalogue.database;
    const id = (
      await db
        .selectFrom('products')
        .select('id')
        .where('brand_id', 'is not', null)
        .executeTakeFirstOrThrow()
    ).id;
    // A column the code expects is not there (a missing table would be a 503, the database
    // unavailable): the product's statement, which joins its brand, fails (compiled, the root
    // field is one statement: src/graph/compile).
    await db.schema.alterTable('brands').renameColumn('id', 'id_away').execute();
    try {
      const response = await catalogue.post(
        { query: `{ product(market: SE, id: ${id}) { name brand { name } } }` },
        GRAPHQL_RESPONSE,
      );
      const text = await response.text();
      expect(response.status).toBe(500);
      expect(JSON.parse(text)).toEqual({
        data: { product: null },
        errors: [
          {
            message: 'Unexpected error.',
            locations: [{ line: 1, column: expect.any(Number) }],
            path: ['product'],
            extensions: { code: 'INTERNAL_SERVER_ERROR' },
          },
        ],
      });
      expect(text).not.toMatch(/brands|relation|select|stack|at /i);
    } finally {
      await db.schema.alterTable('brands').renameColumn('id_away', 'id').execute();
    }
  });
});
