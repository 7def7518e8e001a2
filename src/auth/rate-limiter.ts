/**
 * The request rate limiter (docs/api.md, "Rate limits"): one allowance per caller, the client
 * id for a valid token, else the client IP, with a higher limit for clients ("a token raises
 * the caller's rate limit"). A caller gets its per-minute limit in each minute-long window,
 * which opens with its first request; past it, requests are refused until the window closes.
 * Counted in Redis when one is configured, so that N processes enforce one limit, else in the
 * process (src/auth/limit-counters.ts).
 */
import type { Config } from '../config.ts';
import { errorResponse } from '../responses.ts';
import type { Caller } from './caller.ts';
import type { LimitCounters } from './limit-counters.ts';

export type RateLimitTier = 'anonymous' | 'client';

export interface RateLimitSubject {
  /** Tier-prefixed, so a client id can never share a count with an IP address. */
  key: string;
  tier: RateLimitTier;
}

export type RateLimitDecision =
  | {
      allowed: true;
      /** Whole requests left in the window; Infinity when unlimited. */ remaining: number;
    }
  | {
      allowed: false;
      /** For `Retry-After`: whole seconds until the window closes. */ retryAfterSeconds: number;
    };

export interface RateLimiter {
  /** Counts one request of the subject against its limit. */
  take(subject: RateLimitSubject): Promise<RateLimitDecision>;
}

export interface RateLimiterOptions {
  /** Requests a minute per anonymous subject; 0 = unlimited. */
  anonymousPerMinute: number;
  /** Requests a minute per client; 0 = unlimited. */
  clientPerMinute: number;
  counters: LimitCounters;
}

const WINDOW_SECONDS = 60;

/** The count a caller is held to: an invalid token counts as no token at all. */
export function rateLimitSubject(caller: Caller, clientIp: string | undefined): RateLimitSubject {
  if (caller.kind === 'client') return { key: `client:${caller.clientId}`, tier: 'client' };
  return { key: `ip:${clientIp ?? 'unknown'}`, tier: 'anonymous' };
}

/**
 * The token endpoint's requests count per IP apart, so that hammering it never costs that IP
 * the read routes (its failed attempts have their own limits besides,
 * src/auth/token-attempts.ts).
 */
export function tokenEndpointSubject(clientIp: string | undefined): RateLimitSubject {
  return { key: `token-ip:${clientIp ?? 'unknown'}`, tier: 'anonymous' };
}

export function createRateLimiterFromConfig(
  config: Pick<Config, 'rateLimitAnonymousPerMinute' | 'rateLimitClientPerMinute'>,
  counters: LimitCounters,
): RateLimiter {
  return createRateLimiter({
    anonymousPerMinute: config.rateLimitAnonymousPerMinute,
    clientPerMinute: config.rateLimitClientPerMinute,
    counters,
  });
}

export function createRateLimiter(options: RateLimiterOptions): RateLimiter {
  const perMinute: Record<RateLimitTier, number> = {
    anonymous: options.anonymousPerMinute,
    client: options.clientPerMinute,
  };
  const requests = options.counters.counter('requests', WINDOW_SECONDS);

  return {
    async take(subject) {
      const limit = perMinute[subject.tier];
      if (limit === 0) return { allowed: true, remaining: Infinity };
      const { points, msBeforeNext } = await requests.add(subject.key);
      if (points <= limit) return { allowed: true, remaining: limit - points };
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil(msBeforeNext / 1000)) };
    },
  };
}

/** The REST answer to a refused request: 429 with `Retry-After` (docs/api.md, "Errors"). */
export function tooManyRequestsResponse(retryAfterSeconds: number, requestId: string): Response {
  return errorResponse(429, `rate limit exceeded: retry after ${retryAfterSeconds} s`, requestId, {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });
}
