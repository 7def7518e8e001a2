/**
 * Bounded arguments (src/graph/argument-bounds.ts): an out-of-range page size or
 * `priceHistory(days:)`, nested or not, literal or in a variable, in an alias or a fragment,
 * fails the whole request before anything runs: a 400 whatever the client accepts,
 * BAD_USER_INPUT naming the argument and its bound, no `data`, no SQL. In range, it answers.
 */
import { describe, expect, it } from 'vitest';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();

/**
 * A request refused before execution answers as a GraphQL over HTTP request error, the same
 * as a document that does not validate: 400 for `application/graphql-response+json`, 200 for
 * a legacy `application/json` client; either way no `data`.
 */
const ACCEPTS = [
  { accept: 'application/graphql-response+json', refusedStatus: 400 },
  { accept: 'application/json', refusedStatus: 200 },
];

interface Answer {
  accept: string;
  status: number;
  body: {
    data?: unknown;
    errors?: { message: string; locations?: unknown; extensions?: Record<string, unknown> }[];
  };
}

async function ask(
  accept: string,
  query: string,
  variables?: Record<string, unknown>,
): Promise<Answer> {
  const response = await catalogue.post({ query, variables }, { accept });
  return { accept, status: response.status, body: (await response.json()) as Answer['body'] };
}

/** The refusal every out-of-range argument gets: the whole request, before any SQL. */
function expectRefused(answer: Answer, argument: string, min: number, max: number) {
  expect(answer.status).toBe(refusedStatusFor(answer.accept));
  expect(answer.body.data).toBeUndefined();
  expect(answer.body.errors).toEqual([
    {
      message: `${argument} must be between ${min} and ${max}`,
      locations: expect.any(Array),
      extensions: {
        code: 'BAD_USER_INPUT',
        details: [{ parameter: argument, reason: 'out_of_range' }],
      },
    },
  ]);
  expect(catalogue.statements).toEqual([]);
}

const OFFERS_LITERAL = '{ product(market: SE, id: 1) { name offers(first: 300) { totalCount } } }';
const OFFERS_VARIABLE = `query ($first: Int) {
  product(market: SE, id: 1) { name offers(first: $first) { totalCount } }
}`;
const HISTORY_LITERAL = '{ product(market: SE, id: 1) { name priceHistory(days: 1000) { date } } }';
const HISTORY_VARIABLE = `query ($days: Int) {
  product(market: SE, id: 1) { name priceHistory(days: $days) { date } }
}`;

const refusedStatusFor = (accept: string) =>
  ACCEPTS.find((candidate) => candidate.accept === accept)!.refusedStatus;

describe.each(ACCEPTS)('accepting $accept', ({ accept, refusedStatus }) => {
  it('refuses a nested page over its maximum, literal or in a variable', async () => {
    expectRefused(await ask(accept, OFFERS_LITERAL), 'first', 0, 250);
    expectRefused(await ask(accept, OFFERS_VARIABLE, { first: 300 }), 'first', 0, 250);
    expectRefused(await ask(accept, OFFERS_VARIABLE, { first: -1 }), 'first', 0, 250);
  });

  it('refuses priceHistory days out of range, literal or in a variable', async () => {
    expectRefused(await ask(accept, HISTORY_LITERAL), 'days', 1, 365);
    for (const days of [0, 366, 1000]) {
      expectRefused(await ask(accept, HISTORY_VARIABLE, { days }), 'days', 1, 365);
    }
  });

  it('refuses them in aliases and fragments', async () => {
    const aliased = `{
      product(market: SE, id: 1) {
        cheap: offers(first: 5) { totalCount }
        many: offers(first: 300) { totalCount }
      }
    }`;
    expectRefused(await ask(accept, aliased), 'first', 0, 250);
    const fragments = `query ($days: Int, $first: Int) {
      products(market: SE, first: 2) { edges { node { ...History } } }
    }
    fragment History on Product { history: priceHistory(days: $days) { date } ...Offers }
    fragment Offers on Product { offers(first: $first) { totalCount } }`;
    expectRefused(await ask(accept, fragments, { days: 7, first: 251 }), 'first', 0, 250);
    expectRefused(await ask(accept, fragments, { days: 400, first: 1 }), 'days', 1, 365);
    const inlineFragment = `{ product(market: SE, id: 1) { ... on Product { priceHistory(days: 0) { date } } } }`;
    expectRefused(await ask(accept, inlineFragment), 'days', 1, 365);
  });

  it('refuses top-level pages the same way', async () => {
    expectRefused(
      await ask(accept, '{ products(market: SE, first: 251) { totalCount } }'),
      'first',
      0,
      250,
    );
    expectRefused(
      await ask(
        accept,
        'query ($last: Int) { categories(market: SE, last: $last, before: "YXJyYXljb25uZWN0aW9uOjUw") { totalCount } }',
        { last: 101 },
      ),
      'last',
      0,
      100,
    );
    const categoryProducts = `{ category(market: SE, slug: "x") { products(first: 1000) { totalCount } } }`;
    expectRefused(await ask(accept, categoryProducts), 'first', 0, 250);
  });

  it('answers in-range values, the bounds themselves included', async () => {
    const offers = await ask(accept, OFFERS_VARIABLE, { first: 250 });
    expect(offers.status).toBe(200);
    expect(offers.body.errors).toBeUndefined();
    expect(offers.body.data).toMatchObject({
      product: { offers: { totalCount: expect.any(Number) } },
    });
    for (const days of [1, 365, null]) {
      const history = await ask(accept, HISTORY_VARIABLE, { days });
      expect(history.status).toBe(200);
      expect(history.body.errors).toBeUndefined();
      expect(history.body.data).toMatchObject({ product: { priceHistory: expect.any(Array) } });
    }
  });

  it('leaves a variable of the wrong type to execution’s own error', async () => {
    const { status, body } = await ask(accept, HISTORY_VARIABLE, { days: '1000' });
    expect(status).toBe(refusedStatus);
    expect(body.data).toBeUndefined();
    expect(body.errors).toHaveLength(1);
    expect(body.errors![0]!.message).toContain('Variable "$days" got invalid value "1000"');
  });
});
