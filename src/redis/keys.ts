/**
 * Deleting every Redis key under a prefix, for an operator's purge of the response cache or
 * unlock of a client: SCAN, never KEYS, so Redis goes on answering others between batches, and
 * UNLINK, which frees the values off Redis's main thread.
 */
import type { Redis } from 'ioredis';

/** Keys a SCAN call looks at: a few milliseconds of Redis's time each. */
const SCAN_BATCH = 1000;

/** `text` with Redis's glob characters escaped: a MATCH pattern that means it literally. */
export function literalPattern(text: string): string {
  return text.replace(/[*?[\]\\]/g, '\\$&');
}

/**
 * Deletes the keys starting with `prefix` that `accept` takes (given the rest of each key),
 * and answers how many there were.
 */
export async function deleteKeysUnder(
  redis: Redis,
  prefix: string,
  accept: (rest: string) => boolean = () => true,
): Promise<number> {
  const pattern = `${literalPattern(prefix)}*`;
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', SCAN_BATCH);
    cursor = next;
    const chosen = keys.filter((key) => accept(key.slice(prefix.length)));
    if (chosen.length > 0) deleted += await redis.unlink(...chosen);
  } while (cursor !== '0');
  return deleted;
}
