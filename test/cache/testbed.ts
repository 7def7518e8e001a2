/**
 * What every response cache test file needs: the file's seeded catalogue with an uncached
 * reference app on it, apps with the cache settings under test, requests that record the SQL
 * they ran, and the behaviours every cache (in process or in Redis) must have.
 *
 * A hit is proven by the SQL it ran (none), never by timing.
 */
import { pino, type Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { issueToken } from '../../src/auth/tokens.ts';
import { loadConfig } from '../../src/config.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { insertPartnerClient, tokenSubjectOf } from '../helpers/clients.ts';
import type { TestDatabase } from '../helpers/database.ts';
import { scrape, valueOf } from '../helpers/prometheus.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  /** The SQL statements this request ran. */
  statements: string[];
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** A bearer token: 'demo' for the demo partner's, or the token itself. */
  token?: string;
}

export interface CacheTestbed {
  /** The app built from the file's cache settings (one per file, built once). */
  readonly app: App;
  /** An app on the same catalogue with the response cache off: the reference answers. */
  readonly uncached: App;
  /** Builds another app on the catalogue with the file's settings plus `env`. */
  build(env?: Record<string, string>, logger?: Logger): Promise<App>;
  /** Builds an app whose cache holds nothing yet (in Redis: under a key prefix of its own). */
  fresh(): Promise<App>;
  get(app: App, path: string, options?: CallOptions): Promise<Answer>;
  graphql(
    app: App,
    query: string,
    variables?: Record<string, unknown>,
    headers?: Record<string, string>,
  ): Promise<Answer>;
  /** The demo partner's token (it owns `demo-ref`). */
  readonly demoToken: string;
  /** A token of another client, owning `other-ref` only. */
  readonly otherToken: string;
  /** Product ids of the seeded catalogue sold in Sweden. */
  readonly productIds: number[];
  /** The file's catalogue, for tests that change it (feed runs) or name it to a command. */
  readonly database: TestDatabase;
}

const NO_RATE_LIMIT = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0', RATE_LIMIT_CLIENT_PER_MINUTE: '0' };

/** Registers the catalogue and apps for a file; `settings` is read once its beforeAll ran. */
export function useCacheTestbed(settings: () => Record<string, string>): CacheTestbed {
  const catalogue = useSeededCatalogue({ ...NO_RATE_LIMIT, RESPONSE_CACHE_TTL_SECONDS: '0' });
  const built: App[] = [];
  let app: App | undefined;
  let demoToken = '';
  let otherToken = '';
  let productIds: number[] = [];

  async function call(target: App, request: Request): Promise<Answer> {
    catalogue.statements.length = 0;
    const response = await target.fetch(request);
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      statements: [...catalogue.statements],
    };
  }

  function get(target: App, path: string, options: CallOptions = {}) {
    const headers: Record<string, string> = { ...options.headers };
    if (options.token !== undefined) {
      headers.authorization = `Bearer ${options.token === 'demo' ? demoToken : options.token}`;
    }
    return call(target, new Request(`http://test${path}`, { headers }));
  }

  function graphql(
    target: App,
    query: string,
    variables: Record<string, unknown> = {},
    headers: Record<string, string> = {},
  ) {
    return call(
      target,
      new Request('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...headers },
        body: JSON.stringify({ query, variables }),
      }),
    );
  }

  async function build(env: Record<string, string> = {}, logger?: Logger): Promise<App> {
    const created = createApp({
      config: loadConfig({ ...NO_RATE_LIMIT, ...settings(), ...env }),
      database: catalogue.database,
      logger: logger ?? pino({ level: 'silent' }),
    });
    built.push(created);
    // Runs committed from now on are heard (what feed-run tests change must be followed).
    await created.listening;
    // Each app reads the markets once; read them now, so no request under test counts that.
    // The failing (nullable) field keeps this answer out of the cache: a shared cache would
    // otherwise answer it, and the markets would stay unread.
    const warmUp = await created.fetch(
      new Request('http://test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          query: '{ markets { code } product(market: SE, id: 1, ref: "!") { name } }',
        }),
      }),
    );
    const { data, errors } = (await warmUp.json()) as {
      data?: { markets?: unknown[] };
      errors?: unknown[];
    };
    if (data?.markets?.length !== 7 || errors?.length !== 1) {
      throw new Error(`the warm-up answered ${JSON.stringify({ data, errors })}`);
    }
    return created;
  }

  let freshApps = 0;
  function fresh(): Promise<App> {
    const prefix = settings().REDIS_KEY_PREFIX ?? 'catalogue:';
    return build({ REDIS_KEY_PREFIX: `${prefix}fresh-${++freshApps}:` });
  }

  beforeAll(async () => {
    const config = loadConfig({});
    const { db } = catalogue.database;
    demoToken = (await issueToken(config, await tokenSubjectOf(db, DEMO_CLIENT.id))).access_token;
    const other = { id: 'other-partner', secret: 'other-secret', refs: ['other-ref'] };
    otherToken = (await issueToken(config, await insertPartnerClient(db, other))).access_token;
    const listing = await catalogue.graphql(
      '{ products(market: SE, first: 6) { edges { node { productId } } } }',
    );
    productIds = listing.data.products.edges.map(
      (edge: { node: { productId: number } }) => edge.node.productId,
    );
    app = await build();
  });
  afterAll(async () => {
    for (const each of built) await each.dispose();
  });

  return {
    get app() {
      if (!app) throw new Error('the testbed is used outside a test');
      return app;
    },
    get uncached() {
      return catalogue.app;
    },
    build,
    fresh,
    get,
    graphql,
    get demoToken() {
      return demoToken;
    },
    get otherToken() {
      return otherToken;
    },
    get productIds() {
      return productIds;
    },
    get database() {
      return catalogue.database;
    },
  };
}

/**
 * The distinct statements, sorted. On a server, concurrent connections may split one batch in
 * two (test/graph/statements.test.ts says when): which statements ran is stable, how often not.
 */
export function distinct(statements: string[]): string[] {
  return [...new Set(statements)].sort();
}

/** A product page with offers and shops: several statements on a miss. */
export const PRODUCT_PAGE = /* GraphQL */ `
  query ProductPage($id: Int!, $market: Market!, $ref: String) {
    product(market: $market, id: $id, ref: $ref) {
      productId
      name
      brand {
        name
      }
      lowestPrice {
        price {
          value
          currency
        }
      }
      offers(first: 5) {
        totalCount
        edges {
          node {
            url
            price {
              value
            }
            shop {
              name
            }
          }
        }
      }
    }
  }
`;

/** REST requests covering the route kinds: listing, search, by id, partner search, generic. */
export function restPaths(ids: number[]): { path: string; partner?: boolean }[] {
  return [
    { path: '/products?market=se&limit=5' },
    { path: '/suggestions?market=se&limit=3' },
    { path: `/products/${ids[0]},${ids[1]}?market=se` },
    { path: `/v1/products/${ids[0]}?market=se&fields=*,offers` },
    {
      path: `/partner-search/products?market=se&ref=${DEMO_CLIENT.ref}&productIds=${ids.join(',')}`,
      partner: true,
    },
  ];
}

/** The behaviours every response cache has, whichever store holds it. */
export function describeCacheBehaviour(name: string, bed: CacheTestbed): void {
  describe(`${name}: the behaviours of every response cache`, () => {
    it('answers a repeated GraphQL query from the cache: no SQL, the same bytes', async () => {
      const variables = { id: bed.productIds[0], market: 'SE' };
      const first = await bed.graphql(bed.app, PRODUCT_PAGE, variables);
      const second = await bed.graphql(bed.app, PRODUCT_PAGE, variables);
      expect(first.status).toBe(200);
      expect(JSON.parse(first.text).errors).toBeUndefined();
      expect(first.statements.length).toBeGreaterThan(0);
      expect(second.statements).toEqual([]);
      expect(second.text).toBe(first.text);
    });

    it('answers a repeated REST request from the cache: no SQL, the same bytes and ETag', async () => {
      for (const { path, partner } of restPaths(bed.productIds)) {
        const options = partner ? { token: 'demo' } : {};
        const first = await bed.get(bed.app, path, options);
        const second = await bed.get(bed.app, path, options);
        expect(first.status, `${path}: ${first.text}`).toBe(200);
        expect(first.statements.length, path).toBeGreaterThan(0);
        expect(second.statements, path).toEqual([]);
        expect(second.text, path).toBe(first.text);
        expect(second.headers.get('etag'), path).toBe(first.headers.get('etag'));
      }
    });

    it('gives the bytes an uncached app gives, and runs the same SQL on a miss', async () => {
      const app = await bed.fresh();
      for (const { path, partner } of restPaths(bed.productIds)) {
        const options = partner ? { token: 'demo' } : {};
        const reference = await bed.get(bed.uncached, path, options);
        const miss = await bed.get(app, path, options);
        const hit = await bed.get(app, path, options);
        expect(miss.text, path).toBe(reference.text);
        expect(hit.text, path).toBe(reference.text);
        expect(hit.headers.get('etag'), path).toBe(reference.headers.get('etag'));
        // The cache's rewriting of documents (a __typename in each selection) costs no SQL.
        expect(distinct(miss.statements), path).toEqual(distinct(reference.statements));
      }
      const variables = { id: bed.productIds[1], market: 'SE', ref: 'demo-ref' };
      const reference = await bed.graphql(bed.uncached, PRODUCT_PAGE, variables);
      const miss = await bed.graphql(app, PRODUCT_PAGE, variables);
      const hit = await bed.graphql(app, PRODUCT_PAGE, variables);
      expect(miss.text).toBe(reference.text);
      expect(hit.text).toBe(reference.text);
      expect(distinct(miss.statements)).toEqual(distinct(reference.statements));
    });

    it('misses for other variables, markets, refs and fields', async () => {
      const [first, second] = bed.productIds;
      const variants = [
        { id: first, market: 'SE' },
        { id: second, market: 'SE' },
        { id: first, market: 'NO' },
        { id: first, market: 'SE', ref: 'a' },
        { id: first, market: 'SE', ref: 'b' },
      ];
      for (const variables of variants) await bed.graphql(bed.app, PRODUCT_PAGE, variables);
      for (const variables of variants) {
        const again = await bed.graphql(bed.app, PRODUCT_PAGE, variables);
        expect(again.statements, JSON.stringify(variables)).toEqual([]);
      }
      const fresh = [
        { id: second, market: 'NO' },
        { id: first, market: 'DK' },
        { id: first, market: 'SE', ref: 'c' },
      ];
      for (const variables of fresh) {
        const answer = await bed.graphql(bed.app, PRODUCT_PAGE, variables);
        expect(answer.statements.length, JSON.stringify(variables)).toBeGreaterThan(0);
      }

      // REST: the market and `fields` are part of what is executed; the ref too where the
      // answer has offer URLs (below), and only there (`url(ref:)`).
      const base = `/v1/products/${first}?market=se`;
      await bed.get(bed.app, base);
      for (const path of [
        `/v1/products/${first}?market=no`,
        `/v1/products/${first}?market=se&fields=id,name,brand`,
      ]) {
        const answer = await bed.get(bed.app, path);
        expect(answer.statements.length, path).toBeGreaterThan(0);
      }
      // A ref changes every offer URL of the answer.
      const [withRef, withOtherRef] = [
        await bed.get(bed.app, `/v1/products/${first}?market=se&ref=x&fields=offers`),
        await bed.get(bed.app, `/v1/products/${first}?market=se&ref=y&fields=offers`),
      ];
      expect(withOtherRef.statements.length).toBeGreaterThan(0);
      expect(withRef.text).toContain('ref=x');
      expect(withOtherRef.text).toContain('ref=y');
      expect(withOtherRef.text).not.toContain('ref=x');
    });

    it('never stores an answer with errors', async () => {
      // The product is found (SQL), the second field fails as it runs (an out-of-range page
      // would be refused before execution): a partial answer with an error.
      const query = `query Partial($id: Int!) {
        product(market: SE, id: $id) { name }
        invalid: product(market: SE, id: 0) { name }
      }`;
      const before = await scrape(bed.app);
      const first = await bed.graphql(bed.app, query, { id: bed.productIds[2] });
      const second = await bed.graphql(bed.app, query, { id: bed.productIds[2] });
      for (const answer of [first, second]) {
        const body = JSON.parse(answer.text);
        expect(body.errors?.[0]?.extensions?.code).toBe('BAD_USER_INPUT');
        expect(body.data.product.name).toEqual(expect.any(String));
        expect(answer.statements.length).toBeGreaterThan(0);
        expect(answer.headers.get('etag')).toBeNull();
      }
      const after = await scrape(bed.app);
      const hits = (exposition: typeof before) =>
        valueOf(exposition, 'catalogue_response_cache_hits_total');
      expect(hits(after)).toBe(hits(before));

      // REST: an answer made from a GraphQL error (here an unknown category, looked up in the
      // database first) is never reused.
      const unknownCategory = '/suggestions?market=se&filter[category]=no-such-category';
      for (let i = 0; i < 2; i++) {
        const answer = await bed.get(bed.app, unknownCategory);
        expect(answer.status, answer.text).toBe(422);
        expect(answer.statements.length).toBeGreaterThan(0);
      }
    });

    it('checks partner access before any cached answer', async () => {
      const path = restPaths(bed.productIds).find((each) => each.partner)!.path;
      const cached = await bed.get(bed.app, path, { token: 'demo' });
      expect(cached.status).toBe(200);
      expect((await bed.get(bed.app, path, { token: 'demo' })).statements).toEqual([]);

      const anonymous = await bed.get(bed.app, path);
      expect(anonymous.status).toBe(401);
      expect(anonymous.headers.get('www-authenticate')).toMatch(/^Bearer /);
      const foreign = await bed.get(bed.app, path, { token: bed.otherToken });
      expect(foreign.status).toBe(403);
      const withoutRef = await bed.get(bed.app, path.replace(/ref=[^&]*&/, ''), {
        token: 'demo',
      });
      expect(withoutRef.status).toBe(400);
      const ownRefElsewhere = await bed.get(bed.app, path.replace('demo-ref', 'other-ref'), {
        token: 'demo',
      });
      expect(ownRefElsewhere.status).toBe(403);
      for (const refused of [anonymous, foreign, withoutRef, ownRefElsewhere]) {
        expect(refused.text).not.toContain('"data"');
      }
    });

    it('answers 304 on /graphql for a matching If-None-Match, and 200 for any other tag', async () => {
      const variables = { id: bed.productIds[3], market: 'FI' };
      const first = await bed.graphql(bed.app, PRODUCT_PAGE, variables);
      const tag = first.headers.get('etag');
      expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);

      const revalidated = await bed.graphql(bed.app, PRODUCT_PAGE, variables, {
        'if-none-match': tag!,
      });
      expect(revalidated.status).toBe(304);
      expect(revalidated.text).toBe('');
      expect(revalidated.headers.get('etag')).toBe(tag);
      expect(revalidated.statements).toEqual([]);
      const weak = await bed.graphql(bed.app, PRODUCT_PAGE, variables, {
        'if-none-match': `"other", W/${tag}`,
      });
      expect(weak.status).toBe(304);

      // The tag of another operation's answer does not stand for this one.
      const other = await bed.graphql(bed.app, PRODUCT_PAGE, { ...variables, market: 'SE' });
      const mismatched = await bed.graphql(
        bed.app,
        PRODUCT_PAGE,
        { ...variables, market: 'SE' },
        { 'if-none-match': tag! },
      );
      expect(mismatched.status).toBe(200);
      expect(mismatched.text).toBe(other.text);

      // REST answers 304 from the cache as well.
      const path = `/v1/products/${bed.productIds[3]}?market=fi`;
      const rest = await bed.get(bed.app, path);
      const restRevalidated = await bed.get(bed.app, path, {
        headers: { 'if-none-match': rest.headers.get('etag')! },
      });
      expect(restRevalidated.status).toBe(304);
      expect(restRevalidated.statements).toEqual([]);
    });

    it('counts hits and misses in /metrics', async () => {
      const app = await bed.fresh();
      const before = await scrape(app);
      const path = `/v1/products/${bed.productIds[4]}?market=se`;
      await bed.get(app, path);
      await bed.get(app, path);
      await bed.get(app, path);
      const after = await scrape(app);
      const delta = (name: string) => valueOf(after, name) - valueOf(before, name);
      expect(delta('catalogue_response_cache_misses_total')).toBe(1);
      expect(delta('catalogue_response_cache_hits_total')).toBe(2);
    });
  });
}
