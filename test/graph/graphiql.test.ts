/**
 * GraphiQL at /graphql: a small page carrying the examples and loading GraphiQL's files from
 * this service only, each under a content-hashed path cached for good; and every example runs
 * on a seeded catalogue as its tab shows it, the live one last, subscribing over SSE as GraphiQL
 * does. (test/browser/ runs them in Chromium, the live one with a push whose event it shows.)
 */
import { describe, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS, GRAPHIQL_OPTIONS, LIVE_EXAMPLE } from '../../src/graph/graphiql.ts';
import { mergedParts, readParts } from '../helpers/incremental.ts';
import { useSeededCatalogue, type GraphQLBody } from '../helpers/seeded.ts';
import { sseEvents, waitUntil } from '../live/live-pushes.ts';

const catalogue = useSeededCatalogue();

async function get(path: string, headers: Record<string, string> = {}): Promise<Response> {
  return catalogue.app.fetch(new Request(`http://test${path}`, { headers }));
}

async function graphiqlPage(): Promise<string> {
  const response = await get('/graphql', { accept: 'text/html' });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/html/);
  return response.text();
}

/** Every URL the page refers to, in src and href attributes. */
function references(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((match) => match[1]!);
}

const CONTENT_TYPES: Record<string, RegExp> = {
  js: /^text\/javascript; charset=utf-8$/,
  css: /^text\/css; charset=utf-8$/,
  svg: /^image\/svg\+xml$/,
};

function expectCachedForGood(response: Response) {
  const cacheControl = response.headers.get('cache-control') ?? '';
  expect(cacheControl).toMatch(/\bimmutable\b/);
  expect(Number(/\bmax-age=(\d+)/.exec(cacheControl)?.[1])).toBeGreaterThanOrEqual(31_536_000);
}

/** Paths of what an example must show but does not: a null root field, an empty page. */
function gaps(value: unknown, path = 'data'): string[] {
  if (Array.isArray(value)) {
    if (value.length === 0 && /\.(edges|marketPrices)$/.test(path)) return [path];
    return value.flatMap((item, index) => gaps(item, `${path}[${index}]`));
  }
  if (value === null) return path.split('.').length <= 2 ? [path] : [];
  if (typeof value === 'object') {
    return Object.entries(value).flatMap(([key, item]) => gaps(item, `${path}.${key}`));
  }
  return [];
}

function expectShown(body: GraphQLBody) {
  expect(body.errors).toBeUndefined();
  expect(body.data).toBeTruthy();
  expect(gaps(body.data)).toEqual([]);
}

describe('GraphiQL', () => {
  it('serves a page with its title and one tab per example', async () => {
    const html = await graphiqlPage();
    expect(html).toContain(`<title>${GRAPHIQL_OPTIONS.title}</title>`);
    const options = /<script id="graphiql-options" type="application\/json">(.*?)<\/script>/s.exec(
      html,
    )?.[1];
    expect(JSON.parse(options!)).toEqual(GRAPHIQL_OPTIONS);
    expect(EXAMPLE_OPERATIONS.map((example) => example.name)).toEqual([
      'ProductPage',
      'DeferredProductPage',
      'Search',
      'Deals',
      'CategoryBrowse',
      'CrossMarketComparison',
    ]);
  });

  it('refers to no other host: every file is a path of this service', async () => {
    const html = await graphiqlPage();
    expect(html).not.toMatch(/:\/\//);
    const urls = references(html);
    expect(urls.length).toBeGreaterThanOrEqual(4);
    for (const url of urls) expect(url).toMatch(/^\/graphiql\/[0-9a-f]{16}\/[\w.-]+$/);
    // Scripts from this origin only, so nothing the page is given can load another host's.
    expect(html).toMatch(/http-equiv="Content-Security-Policy" content="[^"]*script-src 'self';/);
  });

  it('serves each file the page and its editor workers load, with its type, cached for good', async () => {
    const html = await graphiqlPage();
    const urls = references(html);
    const start = await get(urls.find((url) => url.endsWith('/start.js'))!);
    const workerFiles = Object.values(
      JSON.parse(/workerFiles = (\{.*?\});/.exec(await start.text())![1]!) as Record<
        string,
        string
      >,
    );
    expect(workerFiles).toHaveLength(3);
    const directory = urls[0]!.replace(/[^/]+$/, '');
    for (const url of [...urls, ...workerFiles.map((file) => directory + file)]) {
      const response = await get(url);
      expect(response.status, url).toBe(200);
      const extension = url.replace(/^.*\./, '');
      expect(response.headers.get('content-type'), url).toMatch(CONTENT_TYPES[extension]!);
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expectCachedForGood(response);
      expect((await response.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
    }
  });

  it('answers 404 for a file under another hash, 405 for a method other than GET and HEAD', async () => {
    const [script] = references(await graphiqlPage()).filter((url) => url.endsWith('.js'));
    const otherHash = script!.replace(/\/[0-9a-f]{16}\//, '/0123456789abcdef/');
    expect((await get(otherHash)).status).toBe(404);
    expect((await get(script!.replace(/[^/]+$/, 'missing.js'))).status).toBe(404);
    const post = await catalogue.app.fetch(new Request(`http://test${script}`, { method: 'POST' }));
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });

  describe.each(EXAMPLE_OPERATIONS.map((example) => [example.name, example] as const))(
    'the %s example',
    (name, example) => {
      it('reads as an editor shows it: its comment, then the operation, not indented', () => {
        expect(example.document).toMatch(/^# /);
        expect(example.document).toMatch(new RegExp(`^query ${name}\\b`, 'm'));
      });

      it('runs from its tab with the variables the tab shows', async () => {
        const tab = GRAPHIQL_OPTIONS.defaultTabs.find(
          (candidate) => candidate.query === example.document,
        )!;
        expectShown(await catalogue.graphql(tab.query, JSON.parse(tab.variables)));
      });
    },
  );

  it('ends with the live example, which subscribes from its tab over SSE as GraphiQL does', async () => {
    const tab = GRAPHIQL_OPTIONS.defaultTabs.at(-1)!;
    expect(tab.query).toBe(LIVE_EXAMPLE.document);
    expect(LIVE_EXAMPLE.document).toMatch(/^# /);
    expect(LIVE_EXAMPLE.document).toMatch(/^subscription PriceDrops\b/m);
    const response = await catalogue.post(
      { query: tab.query, variables: JSON.parse(tab.variables) },
      { accept: 'text/event-stream' },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const events = sseEvents(response);
    await waitUntil(() => catalogue.app.liveSubscriptions() === 1);
    await events.cancel();
    await waitUntil(() => catalogue.app.liveSubscriptions() === 0);
  });

  it('answers the deferred example in parts to GraphiQL, the product first', async () => {
    const example = EXAMPLE_OPERATIONS.find(
      (candidate) => candidate.name === 'DeferredProductPage',
    )!;
    // What GraphiQL's fetcher accepts: it reads a multipart/mixed answer part by part.
    const response = await catalogue.post(
      { query: example.document, variables: example.variables },
      { accept: 'application/graphql-response+json, application/json, multipart/mixed' },
    );
    expect(response.headers.get('content-type')).toMatch(/^multipart\/mixed/);
    const parts = await readParts(response, 'multipart/mixed');
    expect(parts.length).toBeGreaterThan(1);
    expect(parts[0]!.data).toMatchObject({ product: { name: expect.any(String) } });
    expect((parts[0]!.data as any).product).not.toHaveProperty('offers');
    const merged = mergedParts(parts);
    expect(merged.errors).toEqual([]);
    expect(merged.data).toEqual(
      (await catalogue.graphql(example.document, example.variables)).data,
    );
  });

  it('compares a product across markets in their own currencies', async () => {
    const example = EXAMPLE_OPERATIONS.find(
      (candidate) => candidate.name === 'CrossMarketComparison',
    )!;
    const body = await catalogue.graphql<{
      product: { marketPrices: { market: string; lowestPrice: { currency: string } }[] };
    }>(example.document, example.variables);
    const prices = body.data!.product.marketPrices;
    expect(prices.length).toBeGreaterThanOrEqual(2);
    expect(new Set(prices.map((price) => price.market)).size).toBe(prices.length);
  });
});
