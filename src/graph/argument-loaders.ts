/**
 * Loaders for fields with arguments (a page of offers, a category's products): one loader per
 * distinct arguments, shared by every place in the query that asks with those arguments. Ten
 * aliased `category` root fields listing `products(first: 10)` then read their products, and
 * those products' offers, in one statement per level; a loader per path (Pothos' `byPath`)
 * would run one per alias.
 */
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { RequestContext } from '../context.ts';
import { loaderOptions } from './batching.ts';

export function loaderPerArguments<Key, Value, Args extends object>(
  load: (keys: readonly Key[], context: RequestContext, args: Args) => Promise<Value[]>,
  cacheKeyFn: (key: Key) => string,
): (context: RequestContext, args: Args) => DataLoader<Key, Value, string> {
  const loaders = createContextCache(() => new Map<string, DataLoader<Key, Value, string>>());
  return (context, args) => {
    const byArguments = loaders(context);
    // Coerced arguments are plain JSON values, their keys in the field's declared order.
    const id = JSON.stringify(args);
    let loader = byArguments.get(id);
    if (!loader) {
      loader = new DataLoader((keys) => load(keys, context, args), loaderOptions({ cacheKeyFn }));
      byArguments.set(id, loader);
    }
    return loader;
  };
}
