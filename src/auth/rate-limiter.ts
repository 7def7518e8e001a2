/**
 * An in-process token-bucket rate limiter (decisions sections 2 and 3): one bucket per caller,
 * the client id for a valid token, else the client IP, with a higher limit for clients ("a
 * token raises the caller's rate limit"). Each bucket holds a minute's allowance and refills
 * continuously, so a caller may burst up to its per-minute limit and then goes at
 * limit/60 requests a second. Per process: behind N replicas a caller gets N times the limit.
 */
import type { Config } from '../config.ts';
import { errorResponse } from '../rest/http.ts';
import type { Caller } from './caller.ts';

export type RateLimitTier = 'anonymous' | 'client';

export interface RateLimitSubject {
  /** Tier-prefixed, so a client id can never share a bucket with an IP address. */
  key: string;
  tier: RateLimitTier;
}

export type RateLimitDecision =
  | {
      allowed: true;
      /** Whole requests left right now; Infinity when unlimited. */ remaining: number;
    }
  | {
      allowed: false;
      /** For `Retry-After`: whole seconds until one request is allowed. */ retryAfterSeconds: number;
    };

export interface RateLimiter {
  /** Counts one request of the subject against its bucket. */
  take(subject: RateLimitSubject): RateLimitDecision;
  /** Buckets held now (for tests and metrics). */
  readonly size: number;
}

export interface RateLimiterOptions {
  /** Requests a minute per anonymous subject; 0 = unlimited. */
  anonymousPerMinute: number;
  /** Requests a minute per client; 0 = unlimited. */
  clientPerMinute: number;
  /** Buckets kept at most; beyond it the least recently used is dropped. */
  maxKeys?: number;
  /** Milliseconds on a clock that never goes back; tests pass their own. */
  now?: () => number;
}

export const DEFAULT_MAX_KEYS = 100_000;

const MS_PER_MINUTE = 60_000;

interface Bucket {
  tokens: number;
  updatedAt: number;
  /** When the bucket will have refilled completely: from then on it is as good as absent. */
  fullAt: number;
}

/** The bucket a caller counts against: an invalid token counts as no token at all. */
export function rateLimitSubject(caller: Caller, clientIp: string | undefined): RateLimitSubject {
  if (caller.kind === 'client') return { key: `client:${caller.clientId}`, tier: 'client' };
  return { key: `ip:${clientIp ?? 'unknown'}`, tier: 'anonymous' };
}

/**
 * The token endpoint's requests count per IP in a bucket of their own, so that hammering it
 * never costs that IP the read routes (its failed attempts have their own limits besides,
 * src/auth/token-attempts.ts).
 */
export function tokenEndpointSubject(clientIp: string | undefined): RateLimitSubject {
  return { key: `token-ip:${clientIp ?? 'unknown'}`, tier: 'anonymous' };
}

export function createRateLimiterFromConfig(
  config: Pick<Config, 'rateLimitAnonymousPerMinute' | 'rateLimitClientPerMinute'>,
): RateLimiter {
  return createRateLimiter({
    anonymousPerMinute: config.rateLimitAnonymousPerMinute,
    clientPerMinute: config.rateLimitClientPerMinute,
  });
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const now = options.now ?? (() => performance.now());
  const maxKeys = options.maxKeys ?? DEFAULT_MAX_KEYS;
  const perMinute: Record<RateLimitTier, number> = {
    anonymous: options.anonymousPerMinute,
    client: options.clientPerMinute,
  };
  // Map keeps insertion order: re-inserting on every use makes the first entry the least
  // recently used one, so eviction only ever looks at the front.
  const buckets = new Map<string, Bucket>();

  /**
   * A full bucket behaves exactly like a missing one, so dropping it changes no decision.
   * Stops at the first bucket still refilling: amortised O(1), each bucket goes once.
   */
  function evictRefilled(at: number): void {
    for (const [key, bucket] of buckets) {
      if (bucket.fullAt > at) return;
      buckets.delete(key);
    }
  }

  /** The memory bound under a flood of distinct keys: forgets the least recently used. */
  function evictOverflow(): void {
    for (const key of buckets.keys()) {
      if (buckets.size <= maxKeys) return;
      buckets.delete(key);
    }
  }

  function take(subject: RateLimitSubject): RateLimitDecision {
    const limit = perMinute[subject.tier];
    if (limit === 0) return { allowed: true, remaining: Infinity };
    const at = now();
    evictRefilled(at);

    const ratePerMs = limit / MS_PER_MINUTE;
    const previous = buckets.get(subject.key);
    const elapsed = previous ? Math.max(0, at - previous.updatedAt) : 0;
    const available = previous ? Math.min(limit, previous.tokens + elapsed * ratePerMs) : limit;
    const allowed = available >= 1;
    const tokens = allowed ? available - 1 : available;

    buckets.delete(subject.key);
    buckets.set(subject.key, { tokens, updatedAt: at, fullAt: at + (limit - tokens) / ratePerMs });
    evictOverflow();

    if (allowed) return { allowed: true, remaining: Math.floor(tokens) };
    const waitMs = (1 - tokens) / ratePerMs;
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  return {
    take,
    get size() {
      return buckets.size;
    },
  };
}

/** The REST answer to a refused request: 429 with `Retry-After` (decisions section 3). */
export function tooManyRequestsResponse(retryAfterSeconds: number, requestId: string): Response {
  return errorResponse(429, `rate limit exceeded: retry after ${retryAfterSeconds} s`, requestId, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
