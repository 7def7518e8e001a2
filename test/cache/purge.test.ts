/**
 * `npm run cache -- purge` (docs/operations.md, "Purging the cache") against a running app: an
 * answer is served from the cache, the command runs as a process, and the next answer is a
 * miss (proven by the SQL it runs). In Redis the command deletes the answers itself, on either
 * database; a process's in-memory answers go when it hears the command's notice, which on a
 * server the command sends, and which on the embedded database (one process's own, beyond
 * the command's reach) the test sends as the command would.
 */
import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { announceNotice } from '../../src/changes/notices.ts';
import { databaseKind } from '../helpers/database.ts';
import { freePort, runToEnd } from '../helpers/process.ts';
import { removeKeys } from '../helpers/redis.ts';
import { PRODUCT_PAGE, useCacheTestbed } from './testbed.ts';

const REDIS_URL = inject('redisUrl');
const PREFIX = `catalogue-test:${randomUUID()}:`;
/** A process of its own starting on a busy machine. */
const COMMAND_TIMEOUT_MS = 120_000;
/** How soon a serving process has heard the notice once the command ended. */
const TOLD_BOUND_MS = 5_000;

const bed = useCacheTestbed(() => ({ RESPONSE_CACHE_TTL_SECONDS: '300' }));

function purge(env: Record<string, string>) {
  return runToEnd('src/main.ts', ['cache', 'purge'], { LOG_LEVEL: 'warn', ...env });
}

/** The product page of the nth product, asked twice: the second answer comes from the cache. */
async function cachedPage(app: Parameters<typeof bed.graphql>[0], nth: number) {
  const variables = { id: bed.productIds[nth], market: 'SE' };
  const ask = () => bed.graphql(app, PRODUCT_PAGE, variables);
  expect((await ask()).status).toBe(200);
  expect((await ask()).statements).toEqual([]);
  return ask;
}

describe(`npm run cache -- purge, with Redis, on ${databaseKind}`, () => {
  const redis = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 1 });
  beforeAll(() => redis.connect());
  afterAll(async () => {
    redis.disconnect();
    await removeKeys(REDIS_URL, PREFIX);
  });

  it(
    'deletes every answer in Redis, and nothing else under the prefix: the next answer is a miss',
    async () => {
      const app = await bed.build({ REDIS_URL, REDIS_KEY_PREFIX: PREFIX });
      const ask = await cachedPage(app, 0);
      // A rate limit's count shares the prefix: it stays.
      await redis.set(`${PREFIX}limit:requests:ip:198.51.100.1`, '3');

      const purged = await purge({
        REDIS_URL,
        REDIS_KEY_PREFIX: PREFIX,
        ...(bed.database.url ? { DATABASE_URL: bed.database.url } : {}),
      });
      expect(purged.stderr).toBe('');
      expect(purged.code).toBe(0);
      expect(purged.stdout).toMatch(
        /^purged the response cache: .*[1-9]\d* keys went from Redis\n$/,
      );
      expect(await redis.keys(`${PREFIX}response:*`)).toEqual([]);
      expect(await redis.keys(`${PREFIX}tag:*`)).toEqual([]);
      expect(await redis.get(`${PREFIX}limit:requests:ip:198.51.100.1`)).toBe('3');

      const fresh = await ask();
      expect(fresh.statements.length).toBeGreaterThan(0);
      expect((await ask()).statements).toEqual([]);
    },
    COMMAND_TIMEOUT_MS,
  );
});

describe(`a serving process caching in Redis, told of a purge, on ${databaseKind}`, () => {
  const prefix = `catalogue-test:${randomUUID()}:`;
  afterAll(() => removeKeys(REDIS_URL, prefix));

  it('deletes the answers in Redis itself: the next answer is a miss', async () => {
    const app = await bed.build({ REDIS_URL, REDIS_KEY_PREFIX: prefix });
    const ask = await cachedPage(app, 3);
    await announceNotice(bed.database.db, { kind: 'cache-purged' });
    await vi.waitFor(async () => expect((await ask()).statements.length).toBeGreaterThan(0), {
      timeout: TOLD_BOUND_MS,
      interval: 50,
    });
  });
});

describe(`npm run cache -- purge, each process's memory, on ${databaseKind}`, () => {
  it.skipIf(databaseKind === 'embedded')(
    'tells every serving process on the server: each answers its next request afresh',
    async () => {
      const [first, second] = [await bed.build(), await bed.build()];
      const asks = [await cachedPage(first, 1), await cachedPage(second, 1)];

      const purged = await purge({ DATABASE_URL: bed.database.url! });
      expect(purged.stderr).toBe('');
      expect(purged.code).toBe(0);
      expect(purged.stdout).toBe(
        'purged the response cache: the serving processes on the database drop the answers they keep\n',
      );
      for (const ask of asks) {
        await vi.waitFor(async () => expect((await ask()).statements.length).toBeGreaterThan(0), {
          timeout: TOLD_BOUND_MS,
          interval: 50,
        });
      }
    },
    COMMAND_TIMEOUT_MS,
  );

  it('drops a process’s answers when it hears the notice', async () => {
    const app = await bed.build();
    const ask = await cachedPage(app, 2);
    await announceNotice(bed.database.db, { kind: 'cache-purged' });
    await vi.waitFor(async () => expect((await ask()).statements.length).toBeGreaterThan(0), {
      timeout: TOLD_BOUND_MS,
      interval: 50,
    });
  });

  it.skipIf(databaseKind !== 'embedded')(
    'says, in one line, that nothing can be reached on the embedded database without Redis',
    async () => {
      const purged = await purge({ EMBEDDED_DATA_DIR: 'memory://' });
      expect(purged.code).toBe(1);
      expect(purged.stdout).toBe('');
      expect(purged.stderr.trimEnd().split('\n')).toEqual([
        expect.stringMatching(/^nothing to purge from here: without REDIS_URL /),
      ]);
    },
    COMMAND_TIMEOUT_MS,
  );
});

describe('npm run cache -- purge, its Redis unreachable', () => {
  it(
    'says so in one line, exit code 1',
    async () => {
      const port = await freePort();
      const purged = await purge({
        REDIS_URL: `redis://127.0.0.1:${port}`,
        EMBEDDED_DATA_DIR: 'memory://',
      });
      expect(purged.code).toBe(1);
      expect(purged.stdout).toBe('');
      expect(purged.stderr.trimEnd().split('\n')).toEqual([
        expect.stringContaining(`could not purge Redis at redis://127.0.0.1:${port}: its answers`),
      ]);
    },
    COMMAND_TIMEOUT_MS,
  );
});
