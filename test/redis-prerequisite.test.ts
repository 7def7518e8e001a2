/**
 * How the run finds the Redis its response-cache tests use (test/helpers/redis.ts, called by
 * the global setup): the one at the URL, else a redis-server of its own, else one line saying
 * what to install.
 */
import { spawnSync } from 'node:child_process';
import { Redis } from 'ioredis';
import { describe, expect, inject, it } from 'vitest';
import { requirePrerequisite } from './helpers/prerequisites.ts';
import { MissingPrerequisite, provideTestRedis, redisAnswers } from './helpers/redis.ts';

/** Port 1 is privileged and unused: nothing answers there. */
const NOTHING_LISTENS = 'redis://127.0.0.1:1';

const redisServerInstalled = spawnSync('redis-server', ['--version']).error === undefined;

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('resolved, expected a rejection');
}

describe('the Redis the tests use', () => {
  it('is the one at the URL when it answers, and is left running', async () => {
    const url = inject('redisUrl');
    const redis = await provideTestRedis(url);
    expect(redis.url).toBe(url);
    await redis.stop();
    expect(await redisAnswers(url)).toBe(true);
  });

  it('is a redis-server of the run, writing nothing to disk, when nothing answers at the URL', async () => {
    requirePrerequisite(
      redisServerInstalled,
      'this test starts a redis-server of its own: apt-get install redis-server',
    );
    const redis = await provideTestRedis(NOTHING_LISTENS);
    expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
    expect(redis.url).not.toBe(NOTHING_LISTENS);
    const client = new Redis(redis.url, { lazyConnect: true });
    try {
      await client.connect();
      expect(await client.config('GET', 'save')).toEqual(['save', '']);
      expect(await client.config('GET', 'appendonly')).toEqual(['appendonly', 'no']);
    } finally {
      client.disconnect();
    }
    await redis.stop();
    expect(await redisAnswers(redis.url)).toBe(false);
  });

  it('stops the run with one line naming the prerequisite when redis-server is missing', async () => {
    const error = await rejection(provideTestRedis(NOTHING_LISTENS, 'redis-server-not-installed'));
    expect(error).toBeInstanceOf(MissingPrerequisite);
    expect(error.message).toBe(
      'Redis is needed for the response-cache tests: nothing answers at redis://127.0.0.1:1 ' +
        '(TEST_REDIS_URL) and redis-server-not-installed is not installed; ' +
        'install redis-server or set TEST_REDIS_URL',
    );
  });

  it('says why, in one line, when the server exits before it answers', async () => {
    // Node refuses redis-server's options and exits at once: a server that cannot start.
    const error = await rejection(provideTestRedis(NOTHING_LISTENS, process.execPath));
    expect(error).toBeInstanceOf(MissingPrerequisite);
    expect(error.message).toMatch(
      /^Redis is needed for the response-cache tests: nothing answers at redis:\/\/127\.0\.0\.1:1 \(TEST_REDIS_URL\) and \S+ exited before it answered \(code 9\): \S.*bad option: --port$/,
    );
    expect(error.message).not.toContain('\n');
  });
});
