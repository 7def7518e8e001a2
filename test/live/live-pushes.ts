/**
 * What the live tests share: a shop's item pushed at a new price through the feed routes of an
 * app (as a shop's client would), the item chosen so that the push changes what subscribers
 * watch; an SSE response read event by event; and waiting for a condition.
 */
import { expect } from 'vitest';
import type { App } from '../../src/app.ts';
import type { FeedItem } from '../../src/feeds/feed-item.ts';
import type { SeededCatalogue } from '../helpers/seeded.ts';
import { shopToken } from '../feeds/shop-client.ts';
import { feedOfShop, swedishShops } from '../feeds/shop-feed.ts';

const BASE = 'http://test';

/** An item of a shop's feed with its offer and product, and the product's state before. */
export interface Target {
  shopId: number;
  item: FeedItem;
  offerId: number;
  productId: number;
  categoryId: number;
  lowest: number;
  offerCount: number;
}

export const send = (through: App, path: string, init: RequestInit = {}) =>
  through.fetch(new Request(`${BASE}${path}`, init));

/** Pushes of the seeded catalogue's Swedish shops' items, each shop in turn. */
export function feedPusher(catalogue: SeededCatalogue) {
  let shops: number[] | undefined;
  const tokens = new Map<number, string>();
  let used = 0;

  return {
    /** A fresh in-stock item of the next shop whose product has an offer at another shop. */
    async nextTarget(): Promise<Target> {
      shops ??= await swedishShops(catalogue.database.db);
      for (;;) {
        const shopId = shops[used++ % shops.length]!;
        const items = (await feedOfShop(catalogue.database.db, shopId)).filter(
          (item) => item.availability === 'in_stock' && item.sale === null,
        );
        for (const item of items.slice(0, 3)) {
          const offer = await catalogue.database.db
            .selectFrom('offers')
            .innerJoin('products', 'products.id', 'offers.product_id')
            .select(['offers.id', 'offers.product_id', 'products.category_id'])
            .where('offers.shop_id', '=', shopId)
            .where('offers.item_id', '=', item.itemId)
            .executeTakeFirstOrThrow();
          const { data } = await catalogue.graphql(
            `query($id: Int!) { product(market: SE, id: $id) {
               offerSummary { offerCount } lowestOffer { price { value } } } }`,
            { id: offer.product_id },
          );
          const product = data.product;
          if (!product?.lowestOffer || product.offerSummary.offerCount < 1) continue;
          return {
            shopId,
            item,
            offerId: offer.id,
            productId: offer.product_id,
            categoryId: offer.category_id,
            lowest: product.lowestOffer.price.value,
            offerCount: product.offerSummary.offerCount,
          };
        }
      }
    },

    /** Pushes the item at `price` through the feed routes and waits until the run is applied. */
    async push(target: Target, price: number, through: App = catalogue.app): Promise<void> {
      let token = tokens.get(target.shopId);
      if (!token) {
        // From the catalogue's own app: `through` may bound requests too tightly for scrypt.
        token = await shopToken(
          catalogue.database.db,
          (path, init) => send(catalogue.app, path, init),
          target.shopId,
        );
        tokens.set(target.shopId, token);
      }
      const { item } = target;
      const response = await send(through, `/feeds/shops/${target.shopId}/items?wait=true`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify([
          {
            id: item.itemId,
            title: item.title,
            link: item.link,
            price: `${price.toFixed(2)} SEK`,
            availability: 'in_stock',
            gtin: item.gtin,
            brand: item.brand,
            mpn: item.mpn,
          },
        ]),
      });
      expect(response.status).toBe(200);
      expect((await response.json()).state).toBe('applied');
    },
  };
}

/** Reads `event: next` payloads from an SSE response body, one at a time. */
export function sseEvents(response: Response) {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let text = '';
  // The stream's first chunk (a ping) read at once, as a server writing it to a socket does:
  // a stream never read would not pass a cancel on to the subscription.
  const opened = reader.read().then(({ value }) => {
    text += decoder.decode(value, { stream: true });
  });
  return {
    async next(): Promise<{ event: string; data: any }> {
      await opened;
      for (;;) {
        const end = text.indexOf('\n\n');
        if (end >= 0) {
          const block = text.slice(0, end);
          text = text.slice(end + 2);
          if (block.startsWith(':')) continue;
          const event = /^event: (\w+)/m.exec(block)?.[1] ?? '';
          const data = /^data: ?(.*)$/m.exec(block)?.[1] ?? '';
          return { event, data: data ? JSON.parse(data) : null };
        }
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended; left: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    },
    cancel: async () => {
      await opened;
      await reader.cancel();
    },
  };
}

export async function waitUntil(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
