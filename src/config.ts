/**
 * Every setting the service reads, taken from the environment once at start, validated, and
 * typed. Nothing else in the code reads `process.env`.
 */
import path from 'node:path';
import { MARKET_CODES, type MarketCode } from './markets.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const SEED_SCALES = ['sample', 'bench', 'large'] as const;
export type SeedScale = (typeof SEED_SCALES)[number];

/** Used only when TOKEN_SECRET is unset outside production, so a fresh clone starts as is. */
export const DEVELOPMENT_TOKEN_SECRET = 'development-only-token-secret-change-me-0000';

export interface Config {
  port: number;
  host: string;
  /** A Postgres server URL, or undefined for the embedded database. */
  databaseUrl: string | undefined;
  /** Directory of the embedded database's files (used when databaseUrl is unset). */
  embeddedDataDir: string;
  databasePoolSize: number;
  /** Fill an empty database with the generated catalogue at start. */
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
  logLevel: LogLevel;
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
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

/** Reads one variable; records a problem and returns the fallback when it does not parse. */
class EnvReader {
  readonly problems: string[] = [];
  constructor(private readonly env: Env) {}

  raw(name: string): string | undefined {
    const value = this.env[name]?.trim();
    return value === '' ? undefined : value;
  }

  string(name: string, fallback: string): string {
    return this.raw(name) ?? fallback;
  }

  integer(name: string, fallback: number, min: number, max: number): number {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      this.problems.push(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
      return fallback;
    }
    return Number(value);
  }

  boolean(name: string, fallback: boolean): boolean {
    const value = this.raw(name)?.toLowerCase();
    if (value === undefined) return fallback;
    if (['1', 'true', 'yes', 'on'].includes(value)) return true;
    if (['0', 'false', 'no', 'off'].includes(value)) return false;
    this.problems.push(`${name} must be true or false, got "${value}"`);
    return fallback;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[], fallback: T): T {
    const value = this.raw(name);
    if (value === undefined) return fallback;
    if (!(allowed as readonly string[]).includes(value)) {
      this.problems.push(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
      return fallback;
    }
    return value as T;
  }

  url(name: string, protocols: readonly string[]): string | undefined {
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

/** A directory, made absolute; PGlite's in-memory `memory://` passes through as it is. */
function embeddedDataDir(value: string): string {
  return value.startsWith('memory://') ? value : path.resolve(value);
}

export function loadConfig(env: Env = process.env): Config {
  const read = new EnvReader(env);
  const production = read.raw('NODE_ENV') === 'production';

  const siteUrls: Partial<Record<MarketCode, string>> = {};
  for (const market of MARKET_CODES) {
    const url = read.url(`SITE_URL_${market.toUpperCase()}`, ['http:', 'https:']);
    if (url !== undefined) siteUrls[market] = url.replace(/\/+$/, '');
  }

  let tokenSecret = read.raw('TOKEN_SECRET');
  if (tokenSecret === undefined) {
    if (production) read.problems.push('TOKEN_SECRET is required when NODE_ENV=production');
    tokenSecret = DEVELOPMENT_TOKEN_SECRET;
  } else if (tokenSecret.length < 32) {
    read.problems.push('TOKEN_SECRET must be at least 32 characters long');
  }

  const config: Config = {
    port: read.integer('PORT', 4000, 0, 65535),
    host: read.string('HOST', '0.0.0.0'),
    databaseUrl: read.url('DATABASE_URL', ['postgres:', 'postgresql:']),
    embeddedDataDir: embeddedDataDir(read.string('EMBEDDED_DATA_DIR', 'data/pglite')),
    databasePoolSize: read.integer('DATABASE_POOL_SIZE', 10, 1, 200),
    seedOnEmpty: read.boolean('SEED_ON_EMPTY', true),
    seedScale: read.oneOf('SEED_SCALE', SEED_SCALES, 'sample'),
    siteUrls,
    tokenSecret,
    tokenTtlSeconds: read.integer('TOKEN_TTL_SECONDS', 3600, 60, 86400),
    rateLimitAnonymousPerMinute: read.integer('RATE_LIMIT_ANONYMOUS_PER_MINUTE', 600, 0, 1_000_000),
    rateLimitClientPerMinute: read.integer('RATE_LIMIT_CLIENT_PER_MINUTE', 6000, 0, 1_000_000),
    logLevel: read.oneOf('LOG_LEVEL', LOG_LEVELS, 'info'),
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
  };
  checkTokenRaisesRateLimit(config, read.problems);
  if (read.problems.length > 0) throw new ConfigError(read.problems);
  return config;
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
