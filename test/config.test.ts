import { availableParallelism } from 'node:os';
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
      workers: 1,
      publicBaseUrl: undefined,
      trustProxy: [],
      databaseUrl: undefined,
      embeddedDataDir: path.resolve('data/pglite'),
      databasePoolSize: 10,
      databaseReplicaUrls: [],
      replicaMaxLagMs: 5_000,
      replicaCheckIntervalMs: 1_000,
      seedOnEmpty: true,
      catalogueClock: true,
      seedScale: 'sample',
      seedDemoClient: true,
      siteUrls: {},
      tokenSecrets: [DEVELOPMENT_TOKEN_SECRET],
      tokenTtlSeconds: 3600,
      tokenClientsRefreshSeconds: 30,
      rateLimitAnonymousPerMinute: 600,
      rateLimitClientPerMinute: 6000,
      tokenFailuresPerIp: 100,
      tokenFailuresPerIpAndClient: 5,
      tokenFailureMaxDelaySeconds: 900,
      tokenFailureWindowSeconds: 900,
      tokenFailuresPerClientWarning: 10,
      logLevel: 'info',
      logFormat: 'auto',
      logRequestSampleRate: 1,
      buildCommit: '',
      feedMaxRejectedShare: 0.5,
      feedMaxBytes: 512 * 1024 ** 2,
      feedStallSeconds: 30,
      feedWaitSeconds: 120,
      feedWorkers: 2,
      production: false,
      dataLoaderBatching: true,
      compiledSelections: true,
      responseCacheTtlSeconds: 30,
      responseCacheMaxEntries: 500,
      redisUrl: undefined,
      responseCacheRedisUrl: undefined,
      redisKeyPrefix: 'catalogue:',
      redisCommandTimeoutMs: 500,
      graphqlMaxDepth: 11,
      graphqlMaxAliases: 15,
      graphqlMaxTokens: 1000,
      graphqlMaxDirectives: 50,
      graphqlMaxCost: 1_000_000,
      graphqlMaxBodyBytes: 102_400,
      graphiql: true,
      trustedDocumentsOnly: false,
      trustedDocumentsCacheSize: 1000,
      requestTimeoutMs: 10_000,
      statementTimeoutMs: 5_000,
      shutdownGraceSeconds: 8,
      shutdownDrainSeconds: 10,
      liveSubscriptionsPerConnection: 20,
      liveSubscriptionsPerClientIp: 100,
      liveBufferEvents: 100,
      liveKeepAliveSeconds: 12,
      changesRetentionDays: 7,
    });
  });

  it('reads every setting', () => {
    const config = loadConfig({
      PORT: '8080',
      HOST: '127.0.0.1',
      WORKERS: '3',
      PUBLIC_BASE_URL: 'https://api.example.com/catalogue/',
      TRUST_PROXY: 'loopback, 10.0.0.0/8,192.168.1.7',
      DATABASE_URL: 'postgres://app:pw@db:5432/catalogue',
      EMBEDDED_DATA_DIR: '/tmp/pglite',
      DATABASE_POOL_SIZE: '25',
      DATABASE_REPLICA_URLS:
        'postgres://app:pw@replica-1/catalogue, postgresql://replica-2/catalogue',
      REPLICA_MAX_LAG_MS: '2000',
      REPLICA_CHECK_INTERVAL_MS: '250',
      SEED_ON_EMPTY: 'false',
      CATALOGUE_CLOCK: 'false',
      SEED_SCALE: 'bench',
      SEED_DEMO_CLIENT: 'true',
      SITE_URL_SE: 'https://example.se/',
      SITE_URL_NZ: 'https://example.co.nz',
      TOKEN_SECRET: 'x'.repeat(40),
      TOKEN_TTL_SECONDS: '600',
      TOKEN_CLIENTS_REFRESH_SECONDS: '5',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '120',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
      TOKEN_FAILURES_PER_IP: '0',
      TOKEN_FAILURES_PER_IP_AND_CLIENT: '3',
      TOKEN_FAILURE_MAX_DELAY_SECONDS: '120',
      TOKEN_FAILURE_WINDOW_SECONDS: '60',
      TOKEN_FAILURES_PER_CLIENT_WARNING: '0',
      LOG_LEVEL: 'debug',
      LOG_FORMAT: 'json',
      LOG_REQUEST_SAMPLE_RATE: '0.1',
      BUILD_COMMIT: '0123abc',
      FEED_MAX_REJECTED_SHARE: '0.25',
      NODE_ENV: 'production',
      DATALOADER_BATCHING: 'off',
      COMPILED_SELECTIONS: 'off',
      RESPONSE_CACHE_TTL_SECONDS: '0',
      RESPONSE_CACHE_MAX_ENTRIES: '50',
      REDIS_URL: 'rediss://:pw@cache:6380/2',
      RESPONSE_CACHE_REDIS_URL: 'redis://answers:6379/0',
      REDIS_KEY_PREFIX: 'staging:',
      REDIS_COMMAND_TIMEOUT_MS: '2000',
      GRAPHQL_MAX_DEPTH: '8',
      GRAPHQL_MAX_ALIASES: '5',
      GRAPHQL_MAX_TOKENS: '500',
      GRAPHQL_MAX_DIRECTIVES: '10',
      GRAPHQL_MAX_COST: '5000',
      GRAPHQL_MAX_BODY_BYTES: '20000',
      GRAPHIQL: 'true',
      TRUSTED_DOCUMENTS_ONLY: 'true',
      TRUSTED_DOCUMENTS_CACHE_SIZE: '50',
      REQUEST_TIMEOUT_MS: '3000',
      STATEMENT_TIMEOUT_MS: '0',
      SHUTDOWN_GRACE_SECONDS: '0',
      SHUTDOWN_DRAIN_SECONDS: '30',
      LIVE_SUBSCRIPTIONS_PER_CONNECTION: '5',
      LIVE_SUBSCRIPTIONS_PER_CLIENT_IP: '50',
      LIVE_BUFFER_EVENTS: '10',
      LIVE_KEEPALIVE_SECONDS: '30',
      CHANGES_RETENTION_DAYS: '3',
      FEED_MAX_BYTES: '1000000',
      FEED_STALL_SECONDS: '5',
      FEED_WAIT_SECONDS: '9',
      FEED_WORKERS: '4',
    });
    expect(config).toEqual({
      port: 8080,
      host: '127.0.0.1',
      workers: 3,
      publicBaseUrl: 'https://api.example.com/catalogue',
      trustProxy: ['loopback', '10.0.0.0/8', '192.168.1.7'],
      databaseUrl: 'postgres://app:pw@db:5432/catalogue',
      embeddedDataDir: '/tmp/pglite',
      databasePoolSize: 25,
      databaseReplicaUrls: [
        'postgres://app:pw@replica-1/catalogue',
        'postgresql://replica-2/catalogue',
      ],
      replicaMaxLagMs: 2000,
      replicaCheckIntervalMs: 250,
      seedOnEmpty: false,
      catalogueClock: false,
      seedScale: 'bench',
      seedDemoClient: true,
      siteUrls: { se: 'https://example.se', nz: 'https://example.co.nz' },
      tokenSecrets: ['x'.repeat(40)],
      tokenTtlSeconds: 600,
      tokenClientsRefreshSeconds: 5,
      rateLimitAnonymousPerMinute: 120,
      rateLimitClientPerMinute: 0,
      tokenFailuresPerIp: 0,
      tokenFailuresPerIpAndClient: 3,
      tokenFailureMaxDelaySeconds: 120,
      tokenFailureWindowSeconds: 60,
      tokenFailuresPerClientWarning: 0,
      logLevel: 'debug',
      logFormat: 'json',
      logRequestSampleRate: 0.1,
      buildCommit: '0123abc',
      feedMaxRejectedShare: 0.25,
      feedMaxBytes: 1_000_000,
      feedStallSeconds: 5,
      feedWaitSeconds: 9,
      feedWorkers: 4,
      production: true,
      dataLoaderBatching: false,
      compiledSelections: false,
      responseCacheTtlSeconds: 0,
      responseCacheMaxEntries: 50,
      redisUrl: 'rediss://:pw@cache:6380/2',
      responseCacheRedisUrl: 'redis://answers:6379/0',
      redisKeyPrefix: 'staging:',
      redisCommandTimeoutMs: 2000,
      graphqlMaxDepth: 8,
      graphqlMaxAliases: 5,
      graphqlMaxTokens: 500,
      graphqlMaxDirectives: 10,
      graphqlMaxCost: 5000,
      graphqlMaxBodyBytes: 20000,
      graphiql: true,
      trustedDocumentsOnly: true,
      trustedDocumentsCacheSize: 50,
      requestTimeoutMs: 3000,
      statementTimeoutMs: 0,
      shutdownGraceSeconds: 0,
      shutdownDrainSeconds: 30,
      liveSubscriptionsPerConnection: 5,
      liveSubscriptionsPerClientIp: 50,
      liveBufferEvents: 10,
      liveKeepAliveSeconds: 30,
      changesRetentionDays: 3,
    });
  });

  it('runs WORKERS processes, one per core with auto, and only on a database server', () => {
    const server = { DATABASE_URL: 'postgres://db/catalogue' };
    expect(loadConfig({ ...server, WORKERS: 'auto' }).workers).toBe(availableParallelism());
    expect(problemsOf({ ...server, WORKERS: '0' })).toEqual([
      'WORKERS must be an integer from 1 to 256, got "0"',
    ]);
    expect(problemsOf({ WORKERS: '2' })).toEqual([
      'WORKERS=2 needs DATABASE_URL: the embedded database serves one process only; set ' +
        'DATABASE_URL to a PostgreSQL server or WORKERS=1',
    ]);
    expect(loadConfig({ WORKERS: '1' }).workers).toBe(1);
  });

  it('reads from replicas only of a database server, named by postgres URLs', () => {
    const server = { DATABASE_URL: 'postgres://db/catalogue' };
    expect(problemsOf({ DATABASE_REPLICA_URLS: 'postgres://replica/catalogue' })).toEqual([
      'DATABASE_REPLICA_URLS needs DATABASE_URL: the embedded database has no replicas',
    ]);
    expect(
      problemsOf({
        ...server,
        DATABASE_REPLICA_URLS: 'postgres://ok/c,mysql://u:secret@r/c, not a url',
        REPLICA_MAX_LAG_MS: '0',
        REPLICA_CHECK_INTERVAL_MS: '5',
      }),
    ).toEqual([
      'DATABASE_REPLICA_URLS entries must be postgres: or postgresql: URLs, got "mysql://u:***@r/c"',
      'DATABASE_REPLICA_URLS entries must be postgres: or postgresql: URLs, got "not a url"',
      'REPLICA_MAX_LAG_MS must be an integer from 1 to 3600000, got "0"',
      'REPLICA_CHECK_INTERVAL_MS must be an integer from 10 to 60000, got "5"',
    ]);
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
        TOKEN_FAILURE_MAX_DELAY_SECONDS: '0',
        TOKEN_FAILURE_WINDOW_SECONDS: '0',
        LOG_LEVEL: 'loud',
        LOG_FORMAT: 'yaml',
        LOG_REQUEST_SAMPLE_RATE: '1.5',
        FEED_MAX_REJECTED_SHARE: '2',
        RESPONSE_CACHE_TTL_SECONDS: '-1',
        RESPONSE_CACHE_MAX_ENTRIES: '0',
        REDIS_URL: 'memcached://cache:11211',
        REQUEST_TIMEOUT_MS: '5',
        SHUTDOWN_DRAIN_SECONDS: '1',
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
      'TOKEN_FAILURE_MAX_DELAY_SECONDS must be an integer from 1 to 86400, got "0"',
      'TOKEN_FAILURE_WINDOW_SECONDS must be an integer from 1 to 86400, got "0"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'LOG_FORMAT must be one of auto, json, pretty, got "yaml"',
      'LOG_REQUEST_SAMPLE_RATE must be a number from 0 to 1, got "1.5"',
      'FEED_MAX_REJECTED_SHARE must be a number from 0 to 1, got "2"',
      'RESPONSE_CACHE_TTL_SECONDS must be an integer from 0 to 86400, got "-1"',
      'RESPONSE_CACHE_MAX_ENTRIES must be an integer from 1 to 1000000, got "0"',
      'REDIS_URL must use redis: or rediss:, got "memcached://cache:11211"',
      'REQUEST_TIMEOUT_MS must be an integer from 10 to 600000, got "5"',
      'SHUTDOWN_DRAIN_SECONDS must be an integer from 2 to 3600, got "1"',
    ]);
  });

  it('seeds an empty production catalogue only when asked', () => {
    const production = { NODE_ENV: 'production', TOKEN_SECRET: 'x'.repeat(40) };
    expect(loadConfig(production).seedOnEmpty).toBe(false);
    expect(loadConfig({ ...production, SEED_ON_EMPTY: 'true' }).seedOnEmpty).toBe(true);
    expect(loadConfig({}).seedOnEmpty).toBe(true);
  });

  it('adds the demo client, whose secret is published, in production only when asked', () => {
    const production = { NODE_ENV: 'production', TOKEN_SECRET: 'x'.repeat(40) };
    expect(loadConfig({ ...production, SEED_ON_EMPTY: 'true' }).seedDemoClient).toBe(false);
    expect(loadConfig({ ...production, SEED_DEMO_CLIENT: 'true' }).seedDemoClient).toBe(true);
    expect(loadConfig({}).seedDemoClient).toBe(true);
  });

  it('serves GraphiQL in production only when asked', () => {
    const production = { NODE_ENV: 'production', TOKEN_SECRET: 'x'.repeat(40) };
    expect(loadConfig(production).graphiql).toBe(false);
    expect(loadConfig({ ...production, GRAPHIQL: 'true' }).graphiql).toBe(true);
    expect(loadConfig({}).graphiql).toBe(true);
  });

  it('requires a token secret in production', () => {
    expect(problemsOf({ NODE_ENV: 'production' })).toEqual([
      'TOKEN_SECRET is required when NODE_ENV=production',
    ]);
  });

  it('refuses the secrets published with the code in production, in one line', () => {
    const advice =
      'published with the code: set a secret of your own (32+ random characters, ' +
      'e.g. `openssl rand -hex 32`; Docker Compose reads it from .env)';
    const published = {
      'compose-placeholder-token-secret-CHANGE-ME': 'the placeholder from docker-compose.yml',
      [DEVELOPMENT_TOKEN_SECRET]: 'the development-only default',
    };
    for (const [secret, origin] of Object.entries(published)) {
      const env = { NODE_ENV: 'production', TOKEN_SECRET: secret };
      expect(problemsOf(env)).toEqual([`TOKEN_SECRET is ${origin}, ${advice}`]);
      expect(() => loadConfig(env)).toThrow(
        new ConfigError([`TOKEN_SECRET is ${origin}, ${advice}`]),
      );
      expect(() => loadConfig(env)).toThrow(/^Invalid configuration: TOKEN_SECRET is [^\n]+$/);
      // Outside production they are fine: a developer's own machine.
      expect(loadConfig({ TOKEN_SECRET: secret }).tokenSecrets).toEqual([secret]);
    }
    const own = 'f'.repeat(64);
    expect(loadConfig({ NODE_ENV: 'production', TOKEN_SECRET: own }).tokenSecrets).toEqual([own]);
  });

  it('takes several token secrets, comma-separated, each held to the same rules', () => {
    const [newer, older] = ['n'.repeat(40), 'o'.repeat(40)];
    expect(loadConfig({ TOKEN_SECRET: ` ${newer} , ${older},` }).tokenSecrets).toEqual([
      newer,
      older,
    ]);
    expect(problemsOf({ TOKEN_SECRET: `${newer},short` })).toEqual([
      "TOKEN_SECRET's secret 2 of 2 must be at least 32 characters long",
    ]);
    expect(
      problemsOf({ NODE_ENV: 'production', TOKEN_SECRET: `${newer},${DEVELOPMENT_TOKEN_SECRET}` }),
    ).toEqual([
      "TOKEN_SECRET's secret 2 of 2 is the development-only default, published with the code: " +
        'set a secret of your own (32+ random characters, e.g. `openssl rand -hex 32`; Docker ' +
        'Compose reads it from .env)',
    ]);
    // Commas alone name no secret: production still requires one.
    expect(problemsOf({ NODE_ENV: 'production', TOKEN_SECRET: ' , ' })).toEqual([
      'TOKEN_SECRET is required when NODE_ENV=production',
    ]);
  });

  it('says one problem in one line, several as a list', () => {
    expect(new ConfigError(['PORT is wrong']).message).toBe('Invalid configuration: PORT is wrong');
    expect(new ConfigError(['PORT is wrong', 'HOST is wrong']).message).toBe(
      'Invalid configuration:\n  - PORT is wrong\n  - HOST is wrong',
    );
  });

  it('takes a public base URL without credentials, query or fragment', () => {
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://Shop.Example:8443' }).publicBaseUrl).toBe(
      'https://shop.example:8443',
    );
    for (const value of ['https://u:pw@api.example', 'https://api.example/?a=1', 'http://a/#x']) {
      expect(problemsOf({ PUBLIC_BASE_URL: value })).toEqual([
        `PUBLIC_BASE_URL must be a scheme, host and optional path, without credentials, query ` +
          `or fragment, got "${redactUrl(value)}"`,
      ]);
    }
    expect(problemsOf({ PUBLIC_BASE_URL: 'ftp://api.example' })).toEqual([
      'PUBLIC_BASE_URL must use http: or https:, got "ftp://api.example"',
    ]);
  });

  it('takes trusted proxies as addresses, CIDR ranges and presets, naming a bad entry', () => {
    expect(loadConfig({ TRUST_PROXY: 'linklocal,uniquelocal, ::1 ,' }).trustProxy).toEqual([
      'linklocal',
      'uniquelocal',
      '::1',
    ]);
    expect(problemsOf({ TRUST_PROXY: 'loopback, 10.0.0.0/33, proxy.internal' })).toEqual([
      'TRUST_PROXY entries must be IP addresses, CIDR ranges or one of loopback, linklocal, ' +
        'uniquelocal, got "10.0.0.0/33"',
      'TRUST_PROXY entries must be IP addresses, CIDR ranges or one of loopback, linklocal, ' +
        'uniquelocal, got "proxy.internal"',
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
