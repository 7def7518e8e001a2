/**
 * Live prices (docs/api.md, "Live updates"), end to end: a shop pushes items through the feed
 * routes, and subscribers see what the push changed, over SSE (the stream read from
 * `app.fetch`) and over graphql-ws (a real client against a real node:http server with the
 * upgrade handler); `priceDropped` filters by category and by the size of the fall; a
 * subscriber on one app hears a push made through another app on the same database (the
 * NOTIFY crosses); the bounds per connection and per client address, and a subscriber that
 * does not read, closed with an error once its buffer is full; the metrics of each.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createClient, type Client } from 'graphql-ws';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { databaseKind } from '../helpers/database.ts';
import { scrape, valueOf } from '../helpers/prometheus.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { feedOfShop } from '../feeds/shop-feed.ts';
import { feedPusher, send, sseEvents, waitUntil } from './live-pushes.ts';

const QUIET = pino({ level: 'silent' });
const UNLIMITED = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0', RATE_LIMIT_CLIENT_PER_MINUTE: '0' };

const LOWEST_PRICE_CHANGED = `subscription($ids: [Int!]!) {
  lowestPriceChanged(market: SE, productIds: $ids) {
    product { productId name }
    lowestOffer { offerId price { value } }
    previous { value currency }
    current { value currency }
    dropPercent
    offerCount
    changedAt
  }
}`;

const OFFER_CHANGED = `subscription($id: Int!) {
  offerChanged(market: SE, productId: $id, ref: "partner-7") {
    offerId kind changedAt
    offer { offerId url price { value } }
    product { productId }
  }
}`;

const PRICE_DROPPED = `subscription($category: String, $least: Float) {
  priceDropped(market: SE, category: $category, minDropPercent: $least) {
    product { productId } previous { value } current { value } dropPercent
  }
}`;

describe(`live prices on ${databaseKind}`, () => {
  const catalogue = useSeededCatalogue({ ...UNLIMITED, RESPONSE_CACHE_TTL_SECONDS: '0' });
  let app: App;
  let other: App;
  const { nextTarget, push } = feedPusher(catalogue);

  beforeAll(async () => {
    app = createApp({
      config: loadConfig({ ...UNLIMITED, RESPONSE_CACHE_TTL_SECONDS: '0' }),
      database: catalogue.database,
      logger: QUIET,
    });
    other = createApp({
      config: loadConfig({ ...UNLIMITED, RESPONSE_CACHE_TTL_SECONDS: '0' }),
      database: catalogue.database,
      logger: QUIET,
    });
    await Promise.all([app.listening, other.listening]);
  });
  afterAll(async () => {
    await app?.dispose();
    await other?.dispose();
  });

  function subscribe(query: string, variables: Record<string, unknown>, through: App = app) {
    return send(through, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({ query, variables }),
    });
  }

  it('SSE: a push gives lowestPriceChanged and offerChanged with what it changed', async () => {
    const target = await nextTarget();
    const delivered = async () =>
      valueOf(await scrape(app), 'catalogue_live_events_delivered_total');
    const deliveredBefore = await delivered();
    const lowest = await subscribe(LOWEST_PRICE_CHANGED, { ids: [target.productId] });
    expect(lowest.status).toBe(200);
    expect(lowest.headers.get('content-type')).toMatch(/text\/event-stream/);
    const offers = await subscribe(OFFER_CHANGED, { id: target.productId });
    const lowestEvents = sseEvents(lowest);
    const offerEvents = sseEvents(offers);

    const newPrice = Math.max(1, Math.floor(target.lowest / 2));
    await push(target, newPrice, app);

    const change = await lowestEvents.next();
    expect(change.event).toBe('next');
    expect(change.data.errors).toBeUndefined();
    expect(change.data.data.lowestPriceChanged).toMatchObject({
      product: { productId: target.productId },
      lowestOffer: { offerId: target.offerId, price: { value: newPrice } },
      previous: { value: target.lowest, currency: 'SEK' },
      current: { value: newPrice, currency: 'SEK' },
      offerCount: target.offerCount,
    });
    expect(change.data.data.lowestPriceChanged.dropPercent).toBeCloseTo(
      ((target.lowest - newPrice) / target.lowest) * 100,
      1,
    );
    const offer = await offerEvents.next();
    expect(offer.data.data.offerChanged).toMatchObject({
      offerId: target.offerId,
      kind: 'UPDATED',
      product: { productId: target.productId },
      offer: { offerId: target.offerId, price: { value: newPrice } },
    });
    // The partner ref is applied as queries apply it.
    expect(new URL(offer.data.data.offerChanged.offer.url).searchParams.get('ref')).toBe(
      'partner-7',
    );
    expect(await delivered()).toBe(deliveredBefore + 2);
    expect(valueOf(await scrape(app), 'catalogue_live_subscriptions')).toBe(2);
    await Promise.all([lowestEvents.cancel(), offerEvents.cancel()]);
    await waitUntil(() => openSubscriptions(app) === 0);
    expect(valueOf(await scrape(app), 'catalogue_live_subscriptions')).toBe(0);
  });

  it('graphql-ws: a real client over a real server gets the same event', async () => {
    const server: Server = createServer(app).on('upgrade', app.upgrade);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const client: Client = createClient({
      url: `ws://127.0.0.1:${port}/graphql`,
      webSocketImpl: WebSocket,
      retryAttempts: 0,
    });
    try {
      const target = await nextTarget();
      const events = client.iterate({
        query: LOWEST_PRICE_CHANGED,
        variables: { ids: [target.productId] },
      });
      const first = events.next();
      // The subscription is open once the server counts it.
      await waitUntil(() => openSubscriptions(app) > 0);
      const newPrice = Math.max(1, Math.floor(target.lowest / 3));
      await push(target, newPrice, app);
      const { value } = await first;
      expect((value as any).data.lowestPriceChanged).toMatchObject({
        product: { productId: target.productId },
        previous: { value: target.lowest },
        current: { value: newPrice },
        lowestOffer: { offerId: target.offerId },
      });
      await events.return?.();
    } finally {
      await client.dispose();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('priceDropped keeps falls within the category and of at least minDropPercent', async () => {
    const target = await nextTarget();
    const parent = await catalogue.database.db
      .selectFrom('categories')
      .select(['parent_id'])
      .where('id', '=', target.categoryId)
      .executeTakeFirstOrThrow();
    // The category above the product's: the subtree is included.
    const inCategory = sseEvents(
      await subscribe(PRICE_DROPPED, {
        category: String(parent.parent_id ?? target.categoryId),
        least: 40,
      }),
    );
    const elsewhere = await catalogue.database.db
      .selectFrom('categories')
      .select('slug')
      .where('id', '<>', target.categoryId)
      .where('parent_id', 'is not', null)
      .where((eb) => eb.not(eb('id', '=', parent.parent_id ?? -1)))
      .orderBy('id')
      .executeTakeFirstOrThrow();
    const otherCategory = sseEvents(await subscribe(PRICE_DROPPED, { category: elsewhere.slug }));

    // A fall of about 10 %: under the bound.
    const small = Math.round(target.lowest * 0.9 * 100) / 100;
    await push(target, small, app);
    // A fall of more than half.
    const large = Math.max(1, Math.floor(small / 3));
    await push(target, large, app);

    const { data } = await inCategory.next();
    expect(data.data.priceDropped).toMatchObject({
      product: { productId: target.productId },
      previous: { value: small },
      current: { value: large },
    });
    expect(data.data.priceDropped.dropPercent).toBeGreaterThanOrEqual(40);

    // A fall in the other category is the first thing its subscriber sees.
    const there = await catalogue.database.db
      .selectFrom('offers')
      .innerJoin('products', 'products.id', 'offers.product_id')
      .innerJoin('categories', 'categories.id', 'products.category_id')
      .select(['offers.shop_id', 'offers.item_id', 'offers.product_id'])
      .where('categories.slug', '=', elsewhere.slug)
      .where('offers.market', '=', 'se')
      .where('offers.withdrawn_at', 'is', null)
      .executeTakeFirst();
    if (there) {
      const item = (await feedOfShop(catalogue.database.db, there.shop_id)).find(
        (candidate) => candidate.itemId === there.item_id,
      );
      if (item) {
        await push(
          {
            shopId: there.shop_id,
            item,
            offerId: 0,
            productId: there.product_id,
            categoryId: 0,
            lowest: 0,
            offerCount: 0,
          },
          1,
          app,
        );
        const seen = await otherCategory.next();
        expect(seen.data.data.priceDropped.product.productId).toBe(there.product_id);
      }
    }
    await Promise.all([inCategory.cancel(), otherCategory.cancel()]);
  });

  it('a subscriber on one app hears a push made through another on the same database', async () => {
    const target = await nextTarget();
    const events = sseEvents(await subscribe(LOWEST_PRICE_CHANGED, { ids: [target.productId] }));
    const newPrice = Math.max(1, Math.floor(target.lowest / 2));
    await push(target, newPrice, other);
    const { data } = await events.next();
    expect(data.data.lowestPriceChanged).toMatchObject({
      product: { productId: target.productId },
      current: { value: newPrice },
    });
    await events.cancel();
  });

  it('executes an event once for the subscribers with one document and variables', async () => {
    const target = await nextTarget();
    const counters = async () => {
      const metrics = await scrape(app);
      return {
        executed: valueOf(metrics, 'catalogue_live_event_executions_total'),
        delivered: valueOf(metrics, 'catalogue_live_events_delivered_total'),
      };
    };
    const before = await counters();
    // Three watching alike (the third names the product twice: other variables, the same
    // watch and events) and one under a ref (another document, other events).
    const alike = await Promise.all(
      [[target.productId], [target.productId], [target.productId, target.productId]].map(
        async (ids) => sseEvents(await subscribe(LOWEST_PRICE_CHANGED, { ids })),
      ),
    );
    const withRef = LOWEST_PRICE_CHANGED.replace('productIds: $ids', 'productIds: $ids, ref: "p"');
    const tagged = sseEvents(await subscribe(withRef, { ids: [target.productId] }));
    const newPrice = Math.max(1, Math.floor(target.lowest / 2));
    await push(target, newPrice, app);
    const answers = await Promise.all([...alike, tagged].map((events) => events.next()));
    for (const { data } of answers) {
      expect(data.errors).toBeUndefined();
      expect(data.data.lowestPriceChanged).toMatchObject({
        product: { productId: target.productId },
        current: { value: newPrice },
      });
    }
    // The first two share their document and variables; the third's variables differ.
    expect(answers[0]!.data).toEqual(answers[1]!.data);
    expect(answers[0]!.data).toEqual(answers[2]!.data);
    expect(await counters()).toEqual({
      executed: before.executed + 3,
      delivered: before.delivered + 4,
    });
    await Promise.all([...alike, tagged].map((events) => events.cancel()));
  });

  describe('bounds', () => {
    let bounded: App;
    beforeAll(async () => {
      bounded = createApp({
        config: loadConfig({
          ...UNLIMITED,
          LIVE_SUBSCRIPTIONS_PER_CONNECTION: '2',
          LIVE_SUBSCRIPTIONS_PER_CLIENT_IP: '3',
          LIVE_BUFFER_EVENTS: '1',
          // A subscription outlives the request deadline: its stream is no request's answer.
          REQUEST_TIMEOUT_MS: '300',
        }),
        database: catalogue.database,
        logger: QUIET,
      });
      await bounded.listening;
    });
    afterAll(() => bounded?.dispose());

    it('keeps a subscription past REQUEST_TIMEOUT_MS, where an answer in parts would stop', async () => {
      const target = await nextTarget();
      const events = sseEvents(
        await subscribe(LOWEST_PRICE_CHANGED, { ids: [target.productId] }, bounded),
      );
      await new Promise((resolve) => setTimeout(resolve, 600));
      const newPrice = Math.max(1, Math.floor(target.lowest / 2));
      await push(target, newPrice, bounded);
      const { data } = await events.next();
      expect(data.data.lowestPriceChanged).toMatchObject({ current: { value: newPrice } });
      await events.cancel();
    });

    it('refuses a subscription past the per-connection bound (graphql-ws)', async () => {
      const server = createServer(bounded).on('upgrade', bounded.upgrade);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      const client = createClient({
        url: `ws://127.0.0.1:${port}/graphql`,
        webSocketImpl: WebSocket,
        retryAttempts: 0,
        lazy: false,
      });
      try {
        const open = [1, 2].map((id) =>
          client.iterate({ query: OFFER_CHANGED, variables: { id } }),
        );
        const pending = open.map((events) => events.next());
        await waitUntil(() => openSubscriptions(bounded) === 2);
        const third = client.iterate({ query: OFFER_CHANGED, variables: { id: 3 } });
        const refused = await third.next().then(
          (result) => result.value as any,
          (errors: unknown) => ({ errors }),
        );
        expect(JSON.stringify(refused)).toMatch(/RATE_LIMITED|per connection/);
        await Promise.all(open.map((events) => events.return?.()));
        void pending;
      } finally {
        await client.dispose();
        await new Promise((resolve) => server.close(resolve));
      }
    });

    it('refuses a subscription past the per-address bound (SSE: 429)', async () => {
      const streams = [];
      for (const id of [1, 2, 3]) {
        const response = await subscribe(OFFER_CHANGED, { id }, bounded);
        expect(response.status).toBe(200);
        streams.push(sseEvents(response));
      }
      const refused = await subscribe(OFFER_CHANGED, { id: 4 }, bounded);
      expect(refused.status).toBe(429);
      expect(await refused.text()).toMatch(/RATE_LIMITED/);
      await Promise.all(streams.map((stream) => stream.cancel()));
      await waitUntil(() => openSubscriptions(bounded) === 0);
    });

    it('closes a subscriber that falls behind its buffer with an error', async () => {
      const fellBehind = async () =>
        valueOf(await scrape(bounded), 'catalogue_live_subscribers_fell_behind_total');
      const fellBehindBefore = await fellBehind();
      const targets = [await nextTarget(), await nextTarget(), await nextTarget()];
      const response = await subscribe(PRICE_DROPPED, {}, bounded);
      // Not read while three falls arrive: the first waits in the response's stream, the
      // second in the subscription's buffer (one event), the third overflows it.
      for (const target of targets) {
        await push(target, Math.max(1, Math.floor(target.lowest / 2)), bounded);
      }
      const events = sseEvents(response);
      let seen = await events.next();
      while (seen.event === 'next' && !seen.data.errors) seen = await events.next();
      expect(seen.data.errors[0].extensions).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        details: [{ parameter: 'subscription', reason: 'slow_consumer' }],
      });
      expect((await events.next()).event).toBe('complete');
      expect(await fellBehind()).toBe(fellBehindBefore + 1);
    });
  });
});

function openSubscriptions(app: App): number {
  return app.liveSubscriptions();
}
