/**
 * Every setting the service reads, taken from the environment once at start, validated, and
 * typed. Nothing else in the code reads `process.env`.
 */
import { availableParallelism } from 'node:os';
import path from 'node:path';
import proxyaddr from 'proxy-addr';
import { MARKET_CODES, type MarketCode } from './markets.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** `auto`: pino-pretty's readable lines when stdout is a terminal, JSON lines otherwise. */
export const LOG_FORMATS = ['auto', 'json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

/** More processes than this on one host is a typo, not a deployment. */
const MAX_WORKERS = 256;

export const SEED_SCALES = ['sample', 'bench', 'large'] as const;
export type SeedScale = (typeof SEED_SCALES)[number];

/** Used only when TOKEN_SECRET is unset outside production, so a fresh clone starts as is. */
export const DEVELOPMENT_TOKEN_SECRET = 'development-only-token-secret-change-me-0000';

/**
 * Token secrets anyone can read in this repository, by where they are published: fine on a
 * developer's machine, refused in production, where they would let anyone sign tokens.
 */
const PUBLISHED_TOKEN_SECRETS = new Map([
  [DEVELOPMENT_TOKEN_SECRET, 'the development-only default'],
  ['compose-placeholder-token-secret-CHANGE-ME', 'the placeholder from docker-compose.yml'],
]);

export interface Config {
  port: number;
  host: string;
  /** Processes serving the port (Node's cluster module); 1: this process alone. */
  workers: number;
  /**
   * The scheme, host and optional path prefix clients reach the service under, without a
   * trailing slash: paging links are built on it (undefined: src/proxy-trust.ts decides).
   */
  publicBaseUrl: string | undefined;
  /** Proxies whose X-Forwarded-* headers are believed: addresses, CIDR ranges, presets. */
  trustProxy: string[];
  /** A Postgres server URL, or undefined for the embedded database. */
  databaseUrl: string | undefined;
  /** Directory of the embedded database's files (used when databaseUrl is unset). */
  embeddedDataDir: string;
  databasePoolSize: number;
  /** Streaming replicas of DATABASE_URL's server that serve reads (src/db/replicas.ts). */
  databaseReplicaUrls: string[];
  /** How far behind the primary a replica may be before its reads go elsewhere. */
  replicaMaxLagMs: number;
  /** How often each replica's reachability and lag are checked. */
  replicaCheckIntervalMs: number;
  /** Fill an empty database with the generated catalogue at start. */
  /** Bring the catalogue forward to the time of the requests (src/cli/catalogue-clock.ts). */
  catalogueClock: boolean;
  seedOnEmpty: boolean;
  seedScale: SeedScale;
  /** Per-market site base URLs overriding the ones stored with the markets. */
  siteUrls: Partial<Record<MarketCode, string>>;
  tokenSecret: string;
  tokenTtlSeconds: number;
  /** Requests per minute for a caller without a valid token, per client IP; 0 = unlimited. */
  rateLimitAnonymousPerMinute: number;
  /** Requests per minute for a caller with a valid token, per client id; 0 = unlimited. */
  rateLimitClientPerMinute: number;
  /**
   * Failed token requests per client IP, and per client IP and client id, in a window before
   * each further one delays that key's next request (src/auth/token-attempts.ts); 0 = never.
   */
  tokenFailuresPerIp: number;
  tokenFailuresPerIpAndClient: number;
  /** The longest of those delays: they start at a second and double. */
  tokenFailureMaxDelaySeconds: number;
  /** How long a window of failed token requests lasts. */
  tokenFailureWindowSeconds: number;
  /** Failed token requests naming one client id in a window that log a warning; 0 = never. */
  tokenFailuresPerClientWarning: number;
  logLevel: LogLevel;
  logFormat: LogFormat;
  /** The share (0 to 1) of successful requests given a log line; 4xx and 5xx always get one. */
  logRequestSampleRate: number;
  production: boolean;
  /**
   * DataLoader batching and per-request caching. Off only for the benchmark's "naive" floor
   * (performance.md): every relation is then loaded by its own statement, row by row.
   */
  dataLoaderBatching: boolean;
  /** How long an answer stays in the response cache; 0 turns the cache off. */
  responseCacheTtlSeconds: number;
  /** The in-process response cache's bound (least recently used entries leave first). */
  responseCacheMaxEntries: number;
  /** A Redis URL for a response cache shared by every process; undefined: in process. */
  redisUrl: string | undefined;
  /** Prepended to every Redis key, so deployments can share one Redis. */
  redisKeyPrefix: string;
  /** How long one Redis command may take before the request goes on uncached. */
  redisCommandTimeoutMs: number;
  /** Bounds on every GraphQL document (src/graph/limits.ts, docs/api.md "Limits"). */
  graphqlMaxDepth: number;
  graphqlMaxAliases: number;
  graphqlMaxTokens: number;
  graphqlMaxDirectives: number;
  graphqlMaxCost: number;
  /** The largest /graphql request body, in bytes; larger ones are refused unread (413). */
  graphqlMaxBodyBytes: number;
  /** How long a request may take before it is answered 503 and its remaining work stopped. */
  requestTimeoutMs: number;
  /** Postgres's statement_timeout on the requests' statements; 0: unbounded. */
  statementTimeoutMs: number;
  /** How long a SIGTERM or SIGINT waits for accepted requests before the process leaves. */
  shutdownDrainSeconds: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

export type ConfiguredCommand = 'serve' | 'migrate' | 'seed';

export interface EnvironmentVariable {
  names: readonly string[];
  /** One line for `--help`; README's configuration table gives defaults and details. */
  meaning: string;
  /** The commands it matters to (every command validates them all). */
  commands: readonly ConfiguredCommand[];
}

const EVERY_COMMAND = ['serve', 'migrate', 'seed'] as const;

function siteUrlVariable(market: MarketCode) {
  return `SITE_URL_${market.toUpperCase() as Uppercase<MarketCode>}` as const;
}

/**
 * Every variable loadConfig reads: the reader below takes no other name, so each command's
 * `--help` (src/cli/) lists them all.
 */
export const ENVIRONMENT_VARIABLES = [
  { names: ['PORT'], commands: ['serve'], meaning: 'port to listen on (0 picks a free one)' },
  { names: ['HOST'], commands: ['serve'], meaning: 'interface to listen on' },
  {
    names: ['WORKERS'],
    commands: ['serve'],
    meaning: 'processes serving the port (auto: one per core; above 1 needs DATABASE_URL)',
  },
  {
    names: ['PUBLIC_BASE_URL'],
    commands: ['serve'],
    meaning: 'URL clients reach the service under, for the links in answers',
  },
  {
    names: ['TRUST_PROXY'],
    commands: ['serve'],
    meaning: 'proxies whose X-Forwarded-* headers are believed (addresses, CIDRs, presets)',
  },
  {
    names: ['DATABASE_URL'],
    commands: EVERY_COMMAND,
    meaning: 'URL of a PostgreSQL server; unset: the embedded database',
  },
  {
    names: ['EMBEDDED_DATA_DIR'],
    commands: EVERY_COMMAND,
    meaning: "directory of the embedded database's files (created when missing)",
  },
  {
    names: ['DATABASE_POOL_SIZE'],
    commands: EVERY_COMMAND,
    meaning: 'connections to the PostgreSQL server',
  },
  {
    names: ['DATABASE_REPLICA_URLS'],
    commands: ['serve'],
    meaning: 'streaming replicas of DATABASE_URL that serve reads (comma-separated URLs)',
  },
  {
    names: ['REPLICA_MAX_LAG_MS'],
    commands: ['serve'],
    meaning: 'a replica further behind the primary than this serves no reads until it catches up',
  },
  {
    names: ['REPLICA_CHECK_INTERVAL_MS'],
    commands: ['serve'],
    meaning: "how often each replica's reachability and lag are checked",
  },
  {
    names: ['CATALOGUE_CLOCK'],
    commands: ['serve'],
    meaning:
      'bring the catalogue forward at start and every UTC midnight: ended sales, price history, trends (false: a feed keeps it current)',
  },
  {
    names: ['SEED_ON_EMPTY'],
    commands: ['serve'],
    meaning: 'fill an empty catalogue at start (default: true, false with NODE_ENV=production)',
  },
  {
    names: ['SEED_SCALE'],
    commands: ['serve', 'seed'],
    meaning: `catalogue size to seed: one of ${SEED_SCALES.join(', ')}`,
  },
  {
    names: MARKET_CODES.map(siteUrlVariable),
    commands: ['serve'],
    meaning: "a market's site base URL for links, overriding the stored one",
  },
  {
    names: ['TOKEN_SECRET'],
    commands: ['serve'],
    meaning: 'key signing partner access tokens (required with NODE_ENV=production)',
  },
  {
    names: ['TOKEN_TTL_SECONDS'],
    commands: ['serve'],
    meaning: 'lifetime of a partner access token',
  },
  {
    names: ['RATE_LIMIT_ANONYMOUS_PER_MINUTE'],
    commands: ['serve'],
    meaning: 'requests a minute per client IP without a token (0: unlimited)',
  },
  {
    names: ['RATE_LIMIT_CLIENT_PER_MINUTE'],
    commands: ['serve'],
    meaning: 'requests a minute per partner client with a token (0: unlimited)',
  },
  {
    names: ['TOKEN_FAILURES_PER_IP'],
    commands: ['serve'],
    meaning:
      'failed token requests per client IP and window before its requests are delayed (0: never)',
  },
  {
    names: ['TOKEN_FAILURES_PER_IP_AND_CLIENT'],
    commands: ['serve'],
    meaning:
      'failed token requests per client IP and client id and window before delays (0: never)',
  },
  {
    names: ['TOKEN_FAILURE_MAX_DELAY_SECONDS'],
    commands: ['serve'],
    meaning: 'longest delay after failed token requests (they start at 1 s and double)',
  },
  {
    names: ['TOKEN_FAILURE_WINDOW_SECONDS'],
    commands: ['serve'],
    meaning: 'window the token failures count in, opened by the first',
  },
  {
    names: ['TOKEN_FAILURES_PER_CLIENT_WARNING'],
    commands: ['serve'],
    meaning: 'failed token requests naming one client id in a window that log a warning (0: never)',
  },
  { names: ['LOG_LEVEL'], commands: EVERY_COMMAND, meaning: `one of ${LOG_LEVELS.join(', ')}` },
  {
    names: ['LOG_FORMAT'],
    commands: EVERY_COMMAND,
    meaning: `one of ${LOG_FORMATS.join(', ')} (auto: pretty on a terminal, else JSON)`,
  },
  {
    names: ['LOG_REQUEST_SAMPLE_RATE'],
    commands: ['serve'],
    meaning: 'share (0 to 1) of successful requests logged',
  },
  {
    names: ['RESPONSE_CACHE_TTL_SECONDS'],
    commands: ['serve'],
    meaning: 'how long an answer stays in the response cache (0: no cache)',
  },
  {
    names: ['RESPONSE_CACHE_MAX_ENTRIES'],
    commands: ['serve'],
    meaning: 'most answers the in-process cache keeps',
  },
  {
    names: ['REDIS_URL'],
    commands: ['serve'],
    meaning: 'URL of a Redis shared for the response cache and rate limits; unset: in process',
  },
  {
    names: ['REDIS_COMMAND_TIMEOUT_MS'],
    commands: ['serve'],
    meaning: 'how long one Redis command may take',
  },
  {
    names: ['REDIS_KEY_PREFIX'],
    commands: ['serve'],
    meaning: 'prepended to every Redis key',
  },
  {
    names: ['GRAPHQL_MAX_DEPTH'],
    commands: ['serve'],
    meaning: 'deepest selection a GraphQL document may have',
  },
  {
    names: ['GRAPHQL_MAX_ALIASES'],
    commands: ['serve'],
    meaning: 'most aliases in a GraphQL operation',
  },
  {
    names: ['GRAPHQL_MAX_TOKENS'],
    commands: ['serve'],
    meaning: 'most tokens in a GraphQL document',
  },
  {
    names: ['GRAPHQL_MAX_DIRECTIVES'],
    commands: ['serve'],
    meaning: 'most directives in a GraphQL operation',
  },
  {
    names: ['GRAPHQL_MAX_COST'],
    commands: ['serve'],
    meaning: 'cost budget of a GraphQL operation (page sizes multiply)',
  },
  {
    names: ['GRAPHQL_MAX_BODY_BYTES'],
    commands: ['serve'],
    meaning: 'largest /graphql request body in bytes',
  },
  {
    names: ['REQUEST_TIMEOUT_MS'],
    commands: ['serve'],
    meaning: 'how long a request may take before it is answered 503',
  },
  {
    names: ['STATEMENT_TIMEOUT_MS'],
    commands: ['serve'],
    meaning: 'longest SQL statement of a request on a PostgreSQL server (0: unbounded)',
  },
  {
    names: ['SHUTDOWN_DRAIN_SECONDS'],
    commands: ['serve'],
    meaning: 'how long SIGTERM waits for accepted requests before exiting',
  },
  {
    names: ['DATALOADER_BATCHING'],
    commands: ['serve'],
    meaning: "batch each request's loads (false only for the benchmark)",
  },
  {
    names: ['NODE_ENV'],
    commands: EVERY_COMMAND,
    meaning: 'production: TOKEN_SECRET required, no seeding unless SEED_ON_EMPTY=true',
  },
] as const satisfies readonly EnvironmentVariable[];

type VariableName = (typeof ENVIRONMENT_VARIABLES)[number]['names'][number];

type Env = Record<string, string | undefined>;

/** Reads one variable; records a problem and returns the fallback when it does not parse. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: VariableName): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  string(name: VariableName, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  integer(name: VariableName, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
      return fallback;
    }
    return Number(value);
  }

  boolean(name: VariableName, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name} must be true or false, got "${value}"`);
    return fallback;
  }

  fraction(name: VariableName, fallback: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d*\.?\d+$/.test(value) || Number(value) > 1) {
      this.problems.push(`${name} must be a number from 0 to 1, got "${value}"`);
      return fallback;
    }
    return Number(value);
  }

  oneOf<T extends string>(name: VariableName, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
      return fallback;
    }
    return value as T;
  }

  url(name: VariableName, protocols: readonly string[]): string | undefined {
    const value = this.raw(name);
    if (value === undefined) return undefined;
    let parsed: URL;
    try {
      parsed = new URL(value);
    } catch {
      this.problems.push(`${name} must be a URL, got "${redactUrl(value)}"`);
      return undefined;
    }
    if (!protocols.includes(parsed.protocol)) {
      this.problems.push(`${name} must use ${protocols.join(' or ')}, got "${redactUrl(value)}"`);
      return undefined;
    }
    return value;
  }
}

/** Hides a password in a URL so it never reaches a log or an error message. */
export function redactUrl(value: string): string {
  return value.replace(/\/\/([^:/@]*):[^@/]*@/, '//$1:***@');
}

/** PUBLIC_BASE_URL without its trailing slash; a query, fragment or credentials are refused. */
function publicBaseUrl(read: EnvReader): string | undefined {
  const value = read.url('PUBLIC_BASE_URL', ['http:', 'https:']);
  if (value === undefined) return undefined;
  const url = new URL(value);
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    read.problems.push(
      `PUBLIC_BASE_URL must be a scheme, host and optional path, without credentials, query ` +
        `or fragment, got "${redactUrl(value)}"`,
    );
    return undefined;
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
}

/** TRUST_PROXY: a comma-separated list, each entry checked as proxy-addr will read it. */
function trustedProxies(read: EnvReader): string[] {
  const entries = (read.raw('TRUST_PROXY') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    try {
      proxyaddr.compile(entry);
    } catch {
      read.problems.push(
        `TRUST_PROXY entries must be IP addresses, CIDR ranges or one of loopback, linklocal, ` +
          `uniquelocal, got "${entry}"`,
      );
    }
  }
  return entries;
}

/** DATABASE_REPLICA_URLS: a comma-separated list of PostgreSQL URLs. */
function replicaUrls(read: EnvReader): string[] {
  const entries = (read.raw('DATABASE_REPLICA_URLS') ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  return entries.filter((entry) => {
    let protocol: string | undefined;
    try {
      protocol = new URL(entry).protocol;
    } catch {
      // Refused below, like a URL of another scheme.
    }
    const accepted = protocol === 'postgres:' || protocol === 'postgresql:';
    if (!accepted) {
      read.problems.push(
        `DATABASE_REPLICA_URLS entries must be postgres: or postgresql: URLs, got "${redactUrl(entry)}"`,
      );
    }
    return accepted;
  });
}

/** WORKERS: a count, or `auto` for one process per core the machine gives this one. */
function workerCount(read: EnvReader): number {
  if (read.raw('WORKERS')?.toLowerCase() === 'auto') return availableParallelism();
  return read.integer('WORKERS', 1, 1, MAX_WORKERS);
}

/** A directory, made absolute; PGlite's in-memory `memory://` passes through as it is. */
function embeddedDataDir(value: string): string {
  return value.startsWith('memory://') ? value : path.resolve(value);
}

export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const production = read.raw('NODE_ENV') === 'production';

  const siteUrls: Partial<Record<MarketCode, string>> = {};
  for (const market of MARKET_CODES) {
    const url = read.url(siteUrlVariable(market), ['http:', 'https:']);
    if (url !== undefined) siteUrls[market] = url.replace(/\/+$/, '');
  }

  let tokenSecret = read.raw('TOKEN_SECRET');
  if (tokenSecret === undefined) {
    if (production) read.problems.push('TOKEN_SECRET is required when NODE_ENV=production');
    tokenSecret = DEVELOPMENT_TOKEN_SECRET;
  } else if (tokenSecret.length < 32) {
    read.problems.push('TOKEN_SECRET must be at least 32 characters long');
  } else if (production && PUBLISHED_TOKEN_SECRETS.has(tokenSecret)) {
    read.problems.push(
      `TOKEN_SECRET is ${PUBLISHED_TOKEN_SECRETS.get(tokenSecret)}, published with the code: ` +
        'set a secret of your own (32+ random characters, e.g. `openssl rand -hex 32`; ' +
        'Docker Compose reads it from .env)',
    );
  }

  const config: Config = {
    port: read.integer('PORT', 4000, 0, 65535),
    host: read.string('HOST', '0.0.0.0'),
    workers: workerCount(read),
    publicBaseUrl: publicBaseUrl(read),
    trustProxy: trustedProxies(read),
    databaseUrl: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    embeddedDataDir: embeddedDataDir(read.string('EMBEDDED_DATA_DIR', 'data/pglite')),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 200),
    databaseReplicaUrls: replicaUrls(read),
    replicaMaxLagMs: read.integer('REPLICA_MAX_LAG_MS', 5_000, 1, 3_600_000),
    replicaCheckIntervalMs: read.integer('REPLICA_CHECK_INTERVAL_MS', 1_000, 10, 60_000),
    // Production gets the sample catalogue (and its published demo client) only when asked.
    seedOnEmpty: read.boolean('SEED_ON_EMPTY', !production),
    catalogueClock: read.boolean('CATALOGUE_CLOCK', true),
    seedScale: read.oneOf('SEED_SCALE', SEED_SCALES, 'sample'),
    siteUrls,
    tokenSecret,
    tokenTtlSeconds: read.integer('TOKEN_TTL_SECONDS', 3600, 60, 86400),
    rateLimitAnonymousPerMinute: read.integer('RATE_LIMIT_ANONYMOUS_PER_MINUTE', 600, 0, 1_000_000),
    rateLimitClientPerMinute: read.integer('RATE_LIMIT_CLIENT_PER_MINUTE', 6000, 0, 1_000_000),
    // Five free failures leave a partner room to fix a mistyped secret; a hundred per IP let
    // a gateway shared by several partners through, not one address trying many ids. Past
    // them, delays doubling to a quarter of an hour leave one address about ten more guesses
    // a window; a secret the service generated is beyond guessing either way.
    tokenFailuresPerIp: read.integer('TOKEN_FAILURES_PER_IP', 100, 0, 1_000_000),
    tokenFailuresPerIpAndClient: read.integer('TOKEN_FAILURES_PER_IP_AND_CLIENT', 5, 0, 1_000_000),
    tokenFailureMaxDelaySeconds: read.integer('TOKEN_FAILURE_MAX_DELAY_SECONDS', 900, 1, 86400),
    tokenFailureWindowSeconds: read.integer('TOKEN_FAILURE_WINDOW_SECONDS', 900, 1, 86400),
    tokenFailuresPerClientWarning: read.integer(
      'TOKEN_FAILURES_PER_CLIENT_WARNING',
      10,
      0,
      1_000_000,
    ),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
    logFormat: read.oneOf('LOG_FORMAT', LOG_FORMATS, 'auto'),
    logRequestSampleRate: read.fraction('LOG_REQUEST_SAMPLE_RATE', 1),
    production,
    dataLoaderBatching: read.boolean('DATALOADER_BATCHING', true),
    // The REST routes' Cache-Control max-age is 30 s too: a cached answer is never older
    // than clients are already allowed to keep one.
    responseCacheTtlSeconds: read.integer('RESPONSE_CACHE_TTL_SECONDS', 30, 0, 86400),
    // A page of 15–20 products with their offers is about 90 KB of JSON (a few times that as
    // objects): 500 of the largest stay well inside the 300 MB resident-set target.
    responseCacheMaxEntries: read.integer('RESPONSE_CACHE_MAX_ENTRIES', 500, 1, 1_000_000),
    redisUrl: read.url('REDIS_URL', ['redis:', 'rediss:']),
    redisKeyPrefix: read.string('REDIS_KEY_PREFIX', 'catalogue:'),
    // Short, yet longer than the event loop's own hiccups (a garbage collection, compiling a
    // document): a timeout leaves Redis alone for 5 s.
    redisCommandTimeoutMs: read.integer('REDIS_COMMAND_TIMEOUT_MS', 500, 10, 60_000),
    // graphql-armor's defaults, but for depth: the REST routes' own documents (a category's
    // products with their property trees) are 11 levels deep, and each is a /graphql document
    // too. The token bound keeps any document far from the depth where parsing would recurse
    // out of stack.
    graphqlMaxDepth: read.integer('GRAPHQL_MAX_DEPTH', 11, 1, 1000),
    graphqlMaxAliases: read.integer('GRAPHQL_MAX_ALIASES', 15, 0, 10_000),
    graphqlMaxTokens: read.integer('GRAPHQL_MAX_TOKENS', 1000, 10, 1_000_000),
    graphqlMaxDirectives: read.integer('GRAPHQL_MAX_DIRECTIVES', 50, 0, 10_000),
    // The largest REST request, every field of 100 products with 100 offers each
    // (/v1/products), costs 557,601; the budget leaves room for a page of 250 products with
    // 100 offers each.
    graphqlMaxCost: read.integer('GRAPHQL_MAX_COST', 1_000_000, 1, 1_000_000_000),
    // A thousand-token document is a few kilobytes; variables (20 ids, 10 GTINs) far less.
    graphqlMaxBodyBytes: read.integer(
      'GRAPHQL_MAX_BODY_BYTES',
      100 * 1024,
      1024,
      100 * 1024 * 1024,
    ),
    // A catalogue page takes tens of milliseconds: ten seconds is far past any honest request,
    // and a statement gets half of it, so that a slow one is answered before the deadline.
    requestTimeoutMs: read.integer('REQUEST_TIMEOUT_MS', 10_000, 10, 600_000),
    statementTimeoutMs: read.integer('STATEMENT_TIMEOUT_MS', 5_000, 0, 600_000),
    // Docker's own grace before SIGKILL is 10 s; docker-compose.yml gives the gateway more.
    // At least 2: the drain gives idle connections, and clients still connecting, 1 s.
    shutdownDrainSeconds: read.integer('SHUTDOWN_DRAIN_SECONDS', 10, 2, 3600),
  };
  checkTokenRaisesRateLimit(config, read.problems);
  checkWorkersShareTheDatabase(config, read.problems);
  checkReplicasHaveAPrimary(config, read.problems);
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
}

/**
 * The embedded database (PGlite) lives in one process, which locks its data directory: several
 * processes need a database server they can all reach.
 */
function checkWorkersShareTheDatabase(config: Config, problems: string[]): void {
  // A DATABASE_URL that did not parse is already reported.
  const urlRefused = problems.some((problem) => problem.startsWith('DATABASE_URL'));
  if (config.workers > 1 && config.databaseUrl === undefined && !urlRefused) {
    problems.push(
      `WORKERS=${config.workers} needs DATABASE_URL: the embedded database serves one process ` +
        'only; set DATABASE_URL to a PostgreSQL server or WORKERS=1',
    );
  }
}

/** The embedded database has no replicas: they stream from a PostgreSQL server. */
function checkReplicasHaveAPrimary(config: Config, problems: string[]): void {
  const urlRefused = problems.some((problem) => problem.startsWith('DATABASE_URL'));
  if (config.databaseReplicaUrls.length > 0 && config.databaseUrl === undefined && !urlRefused) {
    problems.push(
      'DATABASE_REPLICA_URLS needs DATABASE_URL: the embedded database has no replicas',
    );
  }
}

/**
 * Decisions section 2: a token raises the caller's rate limit, so an authenticated client is
 * never held to less than an anonymous caller (0 is unlimited, the highest limit of all).
 */
function checkTokenRaisesRateLimit(config: Config, problems: string[]): void {
  // A limit that did not parse is already reported; comparing its fallback would only confuse.
  if (problems.some((problem) => problem.startsWith('RATE_LIMIT_'))) return;
  const anonymous = config.rateLimitAnonymousPerMinute;
  const client = config.rateLimitClientPerMinute;
  const clientIsLower = client !== 0 && (anonymous === 0 || client < anonymous);
  if (clientIsLower) {
    problems.push(
      `RATE_LIMIT_CLIENT_PER_MINUTE must be 0 (unlimited) or at least ` +
        `RATE_LIMIT_ANONYMOUS_PER_MINUTE (${anonymous === 0 ? 'unlimited' : anonymous}), got "${client}"`,
    );
  }
}
