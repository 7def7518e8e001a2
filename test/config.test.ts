import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, DEVELOPMENT_TOKEN_SECRET, loadConfig, redactUrl } from '../src/config.ts';

function problemsOf(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

describe('configuration', () => {
  it('starts with defaults on an empty environment', () => {
    expect(loadConfig({})).toEqual({
      port: 4000,
      host: '0.0.0.0',
      databaseUrl: undefined,
      embeddedDataDir: path.resolve('data/pglite'),
      databasePoolSize: 10,
      seedOnEmpty: true,
      seedScale: 'sample',
      siteUrls: {},
      tokenSecret: DEVELOPMENT_TOKEN_SECRET,
      tokenTtlSeconds: 3600,
      rateLimitAnonymousPerMinute: 600,
      rateLimitClientPerMinute: 6000,
      logLevel: 'info',
      production: false,
      dataLoaderBatching: true,
      responseCacheTtlSeconds: 30,
      responseCacheMaxEntries: 500,
      redisUrl: undefined,
      redisKeyPrefix: 'catalogue:',
      redisCommandTimeoutMs: 500,
    });
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      DATABASE_URL: 'postgres://app:pw@db:5432/catalogue',
      EMBEDDED_DATA_DIR: '/tmp/pglite',
      DATABASE_POOL_SIZE: '25',
      SEED_ON_EMPTY: 'false',
      SEED_SCALE: 'bench',
      SITE_URL_SE: 'https://example.se/',
      SITE_URL_NZ: 'https://example.co.nz',
      TOKEN_SECRET: 'x'.repeat(40),
      TOKEN_TTL_SECONDS: '600',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '120',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
      LOG_LEVEL: 'debug',
      NODE_ENV: 'production',
      DATALOADER_BATCHING: 'off',
      RESPONSE_CACHE_TTL_SECONDS: '0',
      RESPONSE_CACHE_MAX_ENTRIES: '50',
      REDIS_URL: 'rediss://:pw@cache:6380/2',
      REDIS_KEY_PREFIX: 'staging:',
      REDIS_COMMAND_TIMEOUT_MS: '2000',
    });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'postgres://app:pw@db:5432/catalogue',
      embeddedDataDir: '/tmp/pglite',
      databasePoolSize: 25,
      seedOnEmpty: false,
      seedScale: 'bench',
      siteUrls: { se: 'https://example.se', nz: 'https://example.co.nz' },
      tokenSecret: 'x'.repeat(40),
      tokenTtlSeconds: 600,
      rateLimitAnonymousPerMinute: 120,
      rateLimitClientPerMinute: 0,
      logLevel: 'debug',
      production: true,
      dataLoaderBatching: false,
      responseCacheTtlSeconds: 0,
      responseCacheMaxEntries: 50,
      redisUrl: 'rediss://:pw@cache:6380/2',
      redisKeyPrefix: 'staging:',
      redisCommandTimeoutMs: 2000,
    });
  });

  it('reports every invalid setting at once, by name, with the value it got', () => {
    expect(
      problemsOf({
        PORT: 'abc',
        DATABASE_URL: 'mysql://localhost/x',
        DATABASE_POOL_SIZE: '0',
        SEED_ON_EMPTY: 'maybe',
        SEED_SCALE: 'huge',
        SITE_URL_FR: 'not a url',
        TOKEN_SECRET: 'short',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: 'lots',
        RATE_LIMIT_CLIENT_PER_MINUTE: '-5',
        LOG_LEVEL: 'loud',
        RESPONSE_CACHE_TTL_SECONDS: '-1',
        RESPONSE_CACHE_MAX_ENTRIES: '0',
        REDIS_URL: 'memcached://cache:11211',
      }),
    ).toEqual([
      'SITE_URL_FR must be a URL, got "not a url"',
      'TOKEN_SECRET must be at least 32 characters long',
      'PORT must be an integer from 0 to 65535, got "abc"',
      'DATABASE_URL must use postgres: or postgresql:, got "mysql://localhost/x"',
      'DATABASE_POOL_SIZE must be an integer from 1 to 200, got "0"',
      'SEED_ON_EMPTY must be true or false, got "maybe"',
      'SEED_SCALE must be one of sample, bench, large, got "huge"',
      'RATE_LIMIT_ANONYMOUS_PER_MINUTE must be an integer from 0 to 1000000, got "lots"',
      'RATE_LIMIT_CLIENT_PER_MINUTE must be an integer from 0 to 1000000, got "-5"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'RESPONSE_CACHE_TTL_SECONDS must be an integer from 0 to 86400, got "-1"',
      'RESPONSE_CACHE_MAX_ENTRIES must be an integer from 1 to 1000000, got "0"',
      'REDIS_URL must use redis: or rediss:, got "memcached://cache:11211"',
    ]);
  });

  it('requires a token secret in production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'TOKEN_SECRET is required when NODE_ENV=production',
    ]);
  });

  it('rejects out-of-range and non-decimal numbers', () => {
    expect(problemsOf({ PORT: '65536' })).toHaveLength(1);
    expect(problemsOf({ PORT: '-1' })).toHaveLength(1);
    expect(problemsOf({ PORT: '1e3' })).toHaveLength(1);
    expect(problemsOf({ TOKEN_TTL_SECONDS: '59' })).toHaveLength(1);
    expect(problemsOf({ RESPONSE_CACHE_TTL_SECONDS: '86401' })).toHaveLength(1);
    expect(problemsOf({ RESPONSE_CACHE_TTL_SECONDS: '1.5' })).toHaveLength(1);
  });

  it('never lets a token lower the rate limit: clients get at least the anonymous limit', () => {
    const limits = (anonymous: string, client: string) =>
      problemsOf({
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: anonymous,
        RATE_LIMIT_CLIENT_PER_MINUTE: client,
      });
    expect(limits('600', '600')).toEqual([]);
    expect(limits('600', '0')).toEqual([]);
    expect(limits('0', '0')).toEqual([]);
    expect(limits('600', '599')).toEqual([
      'RATE_LIMIT_CLIENT_PER_MINUTE must be 0 (unlimited) or at least ' +
        'RATE_LIMIT_ANONYMOUS_PER_MINUTE (600), got "599"',
    ]);
    expect(limits('0', '6000')).toEqual([
      'RATE_LIMIT_CLIENT_PER_MINUTE must be 0 (unlimited) or at least ' +
        'RATE_LIMIT_ANONYMOUS_PER_MINUTE (unlimited), got "6000"',
    ]);
    // An unparsable limit is reported once, not compared by its fallback as well.
    expect(limits('10000', 'abc')).toHaveLength(1);
    expect(problemsOf({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1000001' })).toHaveLength(1);
  });

  it('never repeats a database or Redis password in a message', () => {
    expect(redactUrl('postgres://app:secret@db:5432/x')).toBe('postgres://app:***@db:5432/x');
    const [problem] = problemsOf({ DATABASE_URL: 'http://app:secret@db/x' });
    expect(problem).not.toContain('secret');
    // Redis URLs often carry a password without a user name.
    expect(redactUrl('redis://:secret@cache:6379/0')).toBe('redis://:***@cache:6379/0');
    const [redisProblem] = problemsOf({ REDIS_URL: 'http://:secret@cache' });
    expect(redisProblem).not.toContain('secret');
  });

  it('treats empty variables as unset', () => {
    expect(loadConfig({ PORT: '', DATABASE_URL: ' ', REDIS_URL: '' })).toMatchObject({
      port: 4000,
      databaseUrl: undefined,
      redisUrl: undefined,
    });
  });
});
