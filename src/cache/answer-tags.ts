/**
 * What a cached answer depends on, as tags: the schema's types record them while a query
 * executes (src/graph/cache-tags.ts), the response cache stores them with the answer, and a
 * feed run's change names the tags whose answers must go (docs/api.md, "Feeds").
 *
 * - `product:<id>`: the answer holds something read from that product (its fields, offers,
 *   prices in any market, history). Not per market: a product's prices in every market show
 *   on its page in each.
 * - `lists:<market>`: the answer is a list or an aggregate over a market's products (listings,
 *   search, categories' counts and prices), whose members, order or counts an offer can move.
 * - `shop:<id>`: the answer holds a shop's list of offers.
 */
import type { MarketCode } from '../markets.ts';

export const productTag = (productId: number) => `product:${productId}`;
export const listsTag = (market: MarketCode) => `lists:${market}`;
export const shopTag = (shopId: number) => `shop:${shopId}`;

/** What a feed run changed, as the response cache needs it. */
export interface ChangedAnswers {
  market: MarketCode;
  shopId: number;
  productIds: readonly number[];
}

/** Every tag whose answers a change makes stale. */
export function tagsOfChange(change: ChangedAnswers): string[] {
  return [...change.productIds.map(productTag), listsTag(change.market), shopTag(change.shopId)];
}

// Keyed by the execution's context object: the context is created per request, and a
// request that is not being stored (a hit, no cache) has no entry, so recording costs a
// failed lookup.
const collecting = new WeakMap<object, Set<string>>();

/**
 * Starts recording the tags of the execution that runs with `context`. Executions sharing a
 * context share the set: each answer then carries the tags of both, never too few.
 */
export function collectTags(context: object): Set<string> {
  let tags = collecting.get(context);
  if (tags === undefined) {
    tags = new Set();
    collecting.set(context, tags);
  }
  return tags;
}

/** The set the execution with `context` records into, if its answer is being stored. */
export function tagsBeingCollected(context: unknown): Set<string> | undefined {
  return typeof context === 'object' && context !== null ? collecting.get(context) : undefined;
}
