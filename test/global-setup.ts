/**
 * Once per run: finds or starts the Redis the response-cache tests use, then builds the
 * database templates every test file copies from.
 */
import type { TestProject } from 'vitest/node';
import {
  createNamedServerDatabase,
  dropNamedServerDatabase,
  serverUrl,
} from './helpers/database.ts';
import { MissingPrerequisite, provideTestRedis, testRedisUrl } from './helpers/redis.ts';
import { buildTemplates, removeTemplates, type DatabaseTemplates } from './helpers/templates.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplates: DatabaseTemplates;
    /** The Redis URL the response-cache tests use (test/helpers/redis.ts). */
    redisUrl: string;
  }
}

export default async function setup(project: TestProject) {
  // Redis first: a missing one stops the run at once, before the templates take their time.
  // Exiting here rather than throwing: vitest reports a failed global setup as "No test files
  // found" above the error, which sends a reader after the wrong problem.
  const redis = await provideTestRedis(testRedisUrl).catch((error: unknown) => {
    if (!(error instanceof MissingPrerequisite)) throw error;
    console.error(error.message);
    return process.exit(1);
  });
  if (redis.url !== testRedisUrl) {
    console.info(
      `nothing answers at ${testRedisUrl}: the Redis tests use redis-server at ${redis.url}`,
    );
  }
  project.provide('redisUrl', redis.url);
  let templates: DatabaseTemplates;
  try {
    templates = await buildTemplates(serverUrl, createNamedServerDatabase);
  } catch (error) {
    await redis.stop();
    throw error;
  }
  project.provide('databaseTemplates', templates);
  return async () => {
    try {
      await removeTemplates(templates, (name) => dropNamedServerDatabase(serverUrl!, name));
    } finally {
      await redis.stop();
    }
  };
}
