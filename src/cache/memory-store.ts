/**
 * The in-process response cache: @envelop/response-cache's bounded LRU, which has no way to be
 * emptied, so an operator's purge replaces it with an empty one.
 */
import { createInMemoryCache, type Cache } from '@envelop/response-cache';

export interface MemoryStore extends Cache {
  /** Drops every answer. */
  purge(): void;
}

export function createMemoryStore(maxEntries: number): MemoryStore {
  let cache = createInMemoryCache({ max: maxEntries });
  return {
    get: (id) => cache.get(id),
    set: (id, result, entities, ttl) => cache.set(id, result, entities, ttl),
    invalidate: (entities) => cache.invalidate(entities),
    purge() {
      cache = createInMemoryCache({ max: maxEntries });
    },
  };
}
