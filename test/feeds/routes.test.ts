/**
 * Feeds over HTTP (docs/api.md, "Feeds over HTTP"), through the app as a shop's client calls
 * it: a token from the token endpoint, a full feed, pushed items and a withdrawn item, each a
 * run that is stored, queued and applied; the runs read back; the refusals (whose shop, which
 * format, too large, stalled, malformed) changing nothing. What the graph and REST answer
 * afterwards is compared with what the feed said.
 */
import { gzipSync } from 'node:zlib';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { FeedItem } from '../../src/feeds/feed-item.ts';
import { databaseKind } from '../helpers/database.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { clientToken, shopToken } from './shop-client.ts';
import { feedOfShop, itemsTsv } from './shop-feed.ts';

const BASE = 'http://test';
const STALL_SECONDS = 1;
const MAX_BYTES = 200_000;

const SHOP_OFFERS = `query($shopId: Int!) {
  shop(id: $shopId) {
    offers(first: 250) { totalCount edges { node { itemId price { value } product { productId } } } }
  }
}`;

describe(`feeds over HTTP on ${databaseKind}`, () => {
  const catalogue = useSeededCatalogue({ RESPONSE_CACHE_TTL_SECONDS: '0' });
  let app: App;
  const tokens = new Map<number, string>();
  let swedishShops: number[] = [];

  beforeAll(async () => {
    app = createApp({
      config: loadConfig({
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
        RATE_LIMIT_CLIENT_PER_MINUTE: '0',
        RESPONSE_CACHE_TTL_SECONDS: '0',
        FEED_STALL_SECONDS: String(STALL_SECONDS),
        FEED_MAX_BYTES: String(MAX_BYTES),
      }),
      database: catalogue.database,
      logger: pino({ level: 'silent' }),
    });
    const shops = await catalogue.database.db
      .selectFrom('shops')
      .select('id')
      .where('market', '=', 'se')
      .orderBy('id')
      .execute();
    swedishShops = shops.map((shop) => shop.id);
  });
  afterAll(() => app?.dispose());

  const send = (path: string, init: RequestInit = {}) =>
    app.fetch(new Request(`${BASE}${path}`, init));

  /** A shop's client, made as the `clients` command makes one, and its token from the endpoint. */
  async function tokenOf(shopId: number): Promise<string> {
    const known = tokens.get(shopId);
    if (known) return known;
    const token = await shopToken(catalogue.database.db, send, shopId);
    tokens.set(shopId, token);
    return token;
  }

  async function putFeed(
    shopId: number,
    body: Uint8Array | string | ReadableStream<Uint8Array>,
    options: { headers?: Record<string, string>; wait?: boolean; token?: string } = {},
  ) {
    return send(`/feeds/shops/${shopId}${options.wait === false ? '' : '?wait=true'}`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${options.token ?? (await tokenOf(shopId))}`,
        'content-type': 'text/tab-separated-values',
        ...options.headers,
      },
      body: body as BodyInit,
      ...({ duplex: 'half' } as object),
    });
  }

  async function servedOffers(shopId: number): Promise<Map<string, number>> {
    const body = await catalogue.graphql(SHOP_OFFERS, { shopId });
    expect(body.errors).toBeUndefined();
    const edges = body.data.shop.offers.edges as {
      node: { itemId: string; price: { value: number } };
    }[];
    return new Map(edges.map(({ node }) => [node.itemId, node.price.value]));
  }

  /** The shop's feed of its offers not on sale, as the catalogue holds them. */
  async function plainFeed(shopId: number): Promise<FeedItem[]> {
    const items = (await feedOfShop(catalogue.database.db, shopId)).filter(
      (item) =>
        item.sale === null && item.shippingPrice === null && item.availability === 'in_stock',
    );
    expect(items.length).toBeGreaterThan(4);
    return items;
  }

  const pricesOf = (items: FeedItem[]) => new Map(items.map((item) => [item.itemId, item.price]));

  it('applies a full feed: 200 with the report, and the graph serves exactly the feed', async () => {
    const shopId = swedishShops[0]!;
    const items = (await plainFeed(shopId))
      .slice(0, 6)
      .map((item, index) => (index < 2 ? { ...item, price: item.price + 10 } : item));
    const response = await putFeed(shopId, itemsTsv(items, 'SEK'));
    expect(response.status).toBe(200);
    const report = await response.json();
    expect(response.headers.get('location')).toBe(`/feeds/runs/${report.runId}`);
    expect(report).toMatchObject({
      shopId,
      kind: 'full',
      format: 'tsv',
      state: 'applied',
      reason: null,
      counts: { rows: 6, rejected: 0, unmatched: 0 },
      ignoredColumns: ['custom_label_0'],
    });
    expect(Object.keys(report.counts)).toEqual([
      'rows',
      'created',
      'updated',
      'unchanged',
      'withdrawn',
      'rejected',
      'unmatched',
    ]);
    expect(report.counts.updated).toBeGreaterThanOrEqual(2);
    expect(report.counts.withdrawn).toBeGreaterThan(0);
    expect(await servedOffers(shopId)).toEqual(pricesOf(items));

    // The same feed again changes nothing.
    const again = await (await putFeed(shopId, itemsTsv(items, 'SEK'))).json();
    expect(again.counts).toMatchObject({ created: 0, updated: 0, withdrawn: 0, unchanged: 6 });
    const metrics = await (await send('/metrics')).text();
    expect(metrics).toMatch(/^catalogue_feed_runs_total\{kind="full",state="applied"\} 2$/m);
    expect(metrics).toMatch(/^catalogue_feed_run_seconds_count\{kind="full"\} 2$/m);
  });

  it('answers 202 with the queued run at once, and the run by its Location', async () => {
    const shopId = swedishShops[1]!;
    const items = (await plainFeed(shopId)).slice(0, 3);
    const response = await putFeed(shopId, itemsTsv(items, 'SEK'), { wait: false });
    expect(response.status).toBe(202);
    const queued = await response.json();
    expect(['queued', 'running', 'applied']).toContain(queued.state);
    const token = await tokenOf(shopId);
    const run = await send(`${response.headers.get('location')}?wait=true`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(run.status).toBe(200);
    expect(await run.json()).toMatchObject({ runId: queued.runId, state: 'applied' });
    expect(await servedOffers(shopId)).toEqual(pricesOf(items));
  });

  it('applies two feeds of one shop in the order received', async () => {
    const shopId = swedishShops[2]!;
    const items = (await plainFeed(shopId)).slice(0, 4);
    const first = items.map((item) => ({ ...item, price: item.price + 1 }));
    const second = items.map((item) => ({ ...item, price: item.price + 2 }));
    const [a, b] = [
      await putFeed(shopId, itemsTsv(first, 'SEK'), { wait: false }),
      await putFeed(shopId, itemsTsv(second, 'SEK'), { wait: false }),
    ];
    const token = await tokenOf(shopId);
    const done = await Promise.all(
      [a, b].map(async (response) => {
        const run = await send(`${response.headers.get('location')}?wait=true`, {
          headers: { authorization: `Bearer ${token}` },
        });
        return run.json();
      }),
    );
    expect(done.map((run) => run.state)).toEqual(['applied', 'applied']);
    expect(Date.parse(done[0].finishedAt)).toBeLessThanOrEqual(Date.parse(done[1].startedAt));
    expect(await servedOffers(shopId)).toEqual(pricesOf(second));
  });

  it('pushes items and withdraws one; the graph follows, rejected items reported', async () => {
    const shopId = swedishShops[3]!;
    const [kept, withdrawn] = await plainFeed(shopId);
    const token = await tokenOf(shopId);
    const push = await send(`/feeds/shops/${shopId}/items?wait=true`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify([
        {
          id: kept!.itemId,
          title: kept!.title,
          link: kept!.link,
          price: `${(kept!.price + 5).toFixed(2)} SEK`,
          availability: 'in_stock',
          gtin: kept!.gtin,
          brand: kept!.brand,
          mpn: kept!.mpn,
          custom_label_0: 'x',
        },
        { id: 'bad-1', title: 'x', link: 'ftp://x', price: '1.00 SEK', availability: 'in_stock' },
      ]),
    });
    expect(push.status).toBe(200);
    const report = await push.json();
    expect(report).toMatchObject({
      kind: 'push',
      format: 'json',
      state: 'applied',
      counts: { rows: 2, updated: 1, rejected: 1, withdrawn: 0 },
      rejectedRows: [{ line: 2, itemId: 'bad-1', field: 'link' }],
      ignoredColumns: ['custom_label_0'],
    });
    expect((await servedOffers(shopId)).get(kept!.itemId)).toBe(kept!.price + 5);

    const withdrawal = await send(
      `/feeds/shops/${shopId}/items/${encodeURIComponent(withdrawn!.itemId)}?wait=true`,
      { method: 'DELETE', headers: { authorization: `Bearer ${token}` } },
    );
    expect(withdrawal.status).toBe(200);
    expect((await withdrawal.json()).counts).toMatchObject({ withdrawn: 1 });
    expect((await servedOffers(shopId)).has(withdrawn!.itemId)).toBe(false);
  });

  it('lists a shop’s runs newest first, a page at a time', async () => {
    const shopId = swedishShops[2]!;
    const token = await tokenOf(shopId);
    const first = await send(`/feeds/shops/${shopId}/runs?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(first.status).toBe(200);
    const page = await first.json();
    expect(page.runs).toHaveLength(1);
    expect(page.links.next).toMatch(/before=/);
    const rest = await (
      await send(page.links.next, { headers: { authorization: `Bearer ${token}` } })
    ).json();
    expect(rest.runs).toHaveLength(1);
    expect(Date.parse(rest.runs[0].receivedAt)).toBeLessThanOrEqual(
      Date.parse(page.runs[0].receivedAt),
    );
    expect(rest.links.next).toBeNull();
  });

  it('reads gzip-compressed CSV', async () => {
    const shopId = swedishShops[4]!;
    const items = (await plainFeed(shopId)).slice(0, 3);
    const csv = itemsTsv(items, 'SEK').toString('utf8').replaceAll('\t', ',');
    const response = await putFeed(shopId, gzipSync(csv), {
      headers: { 'content-type': 'text/csv', 'content-encoding': 'gzip' },
    });
    expect(response.status).toBe(200);
    expect((await response.json()).format).toBe('csv');
    expect(await servedOffers(shopId)).toEqual(pricesOf(items));
  });

  describe('refuses, and changes nothing', () => {
    const shopId = () => swedishShops[5]!;

    async function unchanged<T>(work: () => Promise<T>): Promise<T> {
      const before = await servedOffers(shopId());
      const runsBefore = await catalogue.database.db
        .selectFrom('feed_runs')
        .select((eb) => eb.fn.countAll<number>().as('runs'))
        .executeTakeFirstOrThrow();
      const result = await work();
      expect(await servedOffers(shopId())).toEqual(before);
      const runsAfter = await catalogue.database.db
        .selectFrom('feed_runs')
        .select((eb) => eb.fn.countAll<number>().as('runs'))
        .executeTakeFirstOrThrow();
      expect(Number(runsAfter.runs)).toBe(Number(runsBefore.runs));
      return result;
    }

    it('without a token (401), with a partner’s (403) or another shop’s (403)', async () => {
      const body = itemsTsv((await plainFeed(shopId())).slice(0, 1), 'SEK');
      await unchanged(async () => {
        const anonymous = await send(`/feeds/shops/${shopId()}`, {
          method: 'PUT',
          body: body as BodyInit,
        });
        expect(anonymous.status).toBe(401);
        const partnerToken = await partnerTokenOf();
        expect((await putFeed(shopId(), body, { token: partnerToken })).status).toBe(403);
        const other = await tokenOf(swedishShops[0]!);
        expect((await putFeed(shopId(), body, { token: other })).status).toBe(403);
      });
      const runOfOther = await send(`/feeds/shops/${swedishShops[0]}/runs?limit=1`, {
        headers: { authorization: `Bearer ${await tokenOf(swedishShops[0]!)}` },
      });
      const { runs } = await runOfOther.json();
      const asked = await send(`/feeds/runs/${runs[0].runId}`, {
        headers: { authorization: `Bearer ${await tokenOf(shopId())}` },
      });
      expect(asked.status).toBe(403);
    });

    it('a format it does not read (415), a body past FEED_MAX_BYTES (413)', async () => {
      await unchanged(async () => {
        const json = await putFeed(shopId(), '[]', {
          headers: { 'content-type': 'application/json' },
        });
        expect(json.status).toBe(415);
        const brotli = await putFeed(shopId(), 'x', { headers: { 'content-encoding': 'br' } });
        expect(brotli.status).toBe(415);
        const huge = Buffer.alloc(MAX_BYTES + 1, 'a');
        expect((await putFeed(shopId(), huge)).status).toBe(413);
        // Sent in pieces with no length given: refused once past the bound.
        const pieces = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let i = 0; i < 5; i++) controller.enqueue(Buffer.alloc(MAX_BYTES / 4, 'a'));
            controller.close();
          },
        });
        expect((await putFeed(shopId(), pieces)).status).toBe(413);
      });
    });

    it('an upload that stops arriving (408)', async () => {
      const head = itemsTsv((await plainFeed(shopId())).slice(0, 2), 'SEK');
      await unchanged(async () => {
        const stalled = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(head);
            // Never closed: the client went quiet.
          },
        });
        const response = await putFeed(shopId(), stalled);
        expect(response.status).toBe(408);
        expect((await response.json()).error.message).toMatch(/stopped arriving/);
      });
    });

    it('an upload whose body fails mid-way, as when the client goes (400)', async () => {
      const head = itemsTsv((await plainFeed(shopId())).slice(0, 2), 'SEK');
      await unchanged(async () => {
        const broken = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(head);
            controller.error(new Error('connection reset'));
          },
        });
        const response = await putFeed(shopId(), broken);
        expect(response.status).toBe(400);
        expect((await response.json()).error.message).toMatch(/could not be read/);
      });
    });

    it('a push that is not a JSON array of up to 1,000 items (400, 415)', async () => {
      const token = await tokenOf(shopId());
      const push = (body: string, type = 'application/json') =>
        send(`/feeds/shops/${shopId()}/items`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': type },
          body,
        });
      await unchanged(async () => {
        expect((await push('{')).status).toBe(400);
        expect((await push('{}')).status).toBe(400);
        expect((await push('[]')).status).toBe(400);
        expect((await push('[{"id": 12}]')).status).toBe(400);
        const many = JSON.stringify(Array.from({ length: 1001 }, (_, i) => ({ id: `i${i}` })));
        expect((await push(many)).status).toBe(400);
        expect((await push('[]', 'text/plain')).status).toBe(415);
      });
    });

    it('a feed broken whole is a rejected run (422) that changes nothing', async () => {
      const before = await servedOffers(shopId());
      const empty = await putFeed(shopId(), '');
      expect(empty.status).toBe(422);
      expect(await empty.json()).toMatchObject({ state: 'rejected', reason: expect.any(String) });
      expect(await servedOffers(shopId())).toEqual(before);
    });
  });

  const partnerTokenOf = () => clientToken(send, DEMO_CLIENT.id, DEMO_CLIENT.secret);
});
