/**
 * The Redis the response-cache tests use, found once per run (vitest globalSetup): the one at
 * TEST_REDIS_URL (default redis://127.0.0.1:6379) when it answers, else a `redis-server` of the
 * run's own on a free loopback port. Without either the run stops with one line naming the
 * prerequisite, instead of a cascade of connection errors from every Redis test.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { freePort } from './process.ts';

export const testRedisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export interface TestRedis {
  url: string;
  /** Stops the server this run started; leaves a Redis found at the URL alone. */
  stop(): Promise<void>;
}

/** A redis-server of the caller's own, which it may hang and resume. */
export interface OwnRedis extends TestRedis {
  /** SIGSTOP: the server keeps its connections open and answers nothing, as a hung one does. */
  hang(): void;
  /** SIGCONT: it answers again, first what it was sent meanwhile. */
  resume(): void;
}

/** The run cannot go on without something outside it; the message says what to do. */
export class MissingPrerequisite extends Error {
  override name = 'MissingPrerequisite';
}

/** True when a Redis at `url` answers PING; one attempt, no reconnecting. */
export async function redisAnswers(url: string): Promise<boolean> {
  const client = new Redis(url, {
    lazyConnect: true,
    connectTimeout: 2000,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Starts `executable` as a Redis on a loopback port (`port`, to start one again where it was;
 * else a free one), in a temporary directory, writing nothing to disk. Resolves once it
 * answers, or undefined when the executable is not installed; rejects when it exits before
 * answering.
 */
export async function startRedisServer(
  executable: string,
  port?: number,
): Promise<OwnRedis | undefined> {
  const directory = await mkdtemp(path.join(tmpdir(), 'catalogue-test-redis-'));
  port ??= await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', directory];
  const server = spawn(executable, [...args, '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const keep = (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000));
  server.stdout.on('data', keep);
  server.stderr.on('data', keep);

  let ended: { code: number | null; error?: NodeJS.ErrnoException } | undefined;
  const exited = new Promise<void>((resolve) => {
    server.once('error', (error) => {
      ended = { code: null, error };
      resolve();
    });
    server.once('exit', (code) => {
      ended ??= { code };
      resolve();
    });
  });
  const stop = async () => {
    // A hung server takes the SIGTERM only once it runs again.
    if (ended === undefined) {
      server.kill('SIGCONT');
      server.kill('SIGTERM');
    }
    await exited;
    await rm(directory, { recursive: true, force: true });
  };
  const hang = () => void server.kill('SIGSTOP');
  const resume = () => void server.kill('SIGCONT');

  while (ended === undefined && !(await redisAnswers(url))) await sleep(50);
  if (ended === undefined) return { url, stop, hang, resume };

  await stop();
  if (ended.error?.code === 'ENOENT') return undefined;
  const lastLine = output.trim().split('\n').at(-1) ?? '';
  throw new Error(
    `${executable} exited before it answered (${ended.error?.message ?? `code ${ended.code}`}): ${lastLine}`,
  );
}

/** A redis-server of the caller's own on a free port; not installed: a MissingPrerequisite. */
export async function startOwnRedis(executable = 'redis-server'): Promise<OwnRedis> {
  const own = await startRedisServer(executable);
  if (own === undefined) {
    throw new MissingPrerequisite(`${executable} is not installed: apt-get install redis-server`);
  }
  return own;
}

/**
 * The Redis at `url` when it answers, else a redis-server started here; neither: a
 * MissingPrerequisite naming what to install or set.
 */
export async function provideTestRedis(
  url: string,
  executable = 'redis-server',
): Promise<TestRedis> {
  if (await redisAnswers(url)) return { url, stop: async () => undefined };
  let own: TestRedis | undefined;
  try {
    own = await startRedisServer(executable);
  } catch (error) {
    throw new MissingPrerequisite(
      `Redis is needed for the response-cache tests: nothing answers at ${url} ` +
        `(TEST_REDIS_URL) and ${(error as Error).message}`,
    );
  }
  if (own === undefined) {
    throw new MissingPrerequisite(
      `Redis is needed for the response-cache tests: nothing answers at ${url} (TEST_REDIS_URL) ` +
        `and ${executable} is not installed; install redis-server or set TEST_REDIS_URL`,
    );
  }
  return own;
}

/** Leaves the Redis at `url` as it was before a test: the keys under `prefix` go. */
export async function removeKeys(url: string, prefix: string): Promise<void> {
  const redis = new Redis(url);
  try {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}
