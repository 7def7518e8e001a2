/**
 * Brute-force protection for the token endpoint: failed client authentications are counted
 * per client id and per client IP, each in a window that opens with its first failure. Once a
 * client id (or an IP) has had its failures, every attempt under it is refused until its
 * window closes, the right secret included: online guessing gets that many tries per window,
 * however it spreads them over addresses or ids.
 *
 * Apart from the request rate limiter on purpose: a tripped limit here refuses tokens only,
 * never the caller's read routes. Counted where that limiter counts: in Redis when one is
 * configured, so that N processes give an attacker the tries of one (src/auth/limit-counters.ts).
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import type { LimitCounter, LimitCounters } from './limit-counters.ts';

export interface TokenAttemptLimiterOptions {
  /** Failures per client id and window; 0 = unlimited. */
  failuresPerClient: number;
  /** Failures per client IP and window; 0 = unlimited. */
  failuresPerIp: number;
  windowSeconds: number;
  counters: LimitCounters;
}

export type AttemptOutcome<T> =
  | { locked: false; /** undefined: the attempt failed. */ result: T | undefined }
  | { locked: true; /** For `Retry-After`, in whole seconds. */ retryAfterSeconds: number };

export interface TokenAttemptLimiter {
  /**
   * Runs `verify`, one attempt of `clientId` from `clientIp`, unless either is locked out.
   * `verify` answering undefined is a failure; an answer, or an error (the database down, say),
   * counts nothing.
   */
  attempt<T>(
    clientId: string,
    clientIp: string | undefined,
    verify: () => Promise<T | undefined>,
  ): Promise<AttemptOutcome<T>>;
}

/**
 * The wait for a caller refused only because attempts under way might use up the allowance:
 * they end within a scrypt's time, and may well succeed.
 */
const PENDING_RETRY_MS = 1000;

/**
 * How long an attempt under way holds its place at most: far beyond a scrypt's time, so that
 * one lost with its process (killed mid-attempt) is soon forgotten.
 */
const PENDING_WINDOW_SECONDS = 60;

/** One kind of key (client ids, IPs): its allowance of failures per window, and its counts. */
interface FailureLimit {
  limit: number;
  key: string;
  failures: LimitCounter;
  /** Attempts under way: each may yet fail, so each holds a failure's place until it ends. */
  pending: LimitCounter;
}

/**
 * A client id is whatever the caller sent, up to the endpoint's 8 KiB body: its digest bounds
 * the memory a key takes, and every id, known or unknown, well-formed or not, counts alike.
 */
function clientKey(clientId: string): string {
  return createHash('sha256').update(clientId).digest('base64url');
}

export function createTokenAttemptLimiterFromConfig(
  config: Pick<
    Config,
    'tokenFailuresPerClient' | 'tokenFailuresPerIp' | 'tokenFailureWindowSeconds'
  >,
  counters: LimitCounters,
): TokenAttemptLimiter {
  return createTokenAttemptLimiter({
    failuresPerClient: config.tokenFailuresPerClient,
    failuresPerIp: config.tokenFailuresPerIp,
    windowSeconds: config.tokenFailureWindowSeconds,
    counters,
  });
}

export function createTokenAttemptLimiter(
  options: TokenAttemptLimiterOptions,
): TokenAttemptLimiter {
  const { counters, windowSeconds } = options;
  const counted = (kind: string) => ({
    failures: counters.counter(`token-failures:${kind}`, windowSeconds),
    pending: counters.counter(`token-pending:${kind}`, PENDING_WINDOW_SECONDS),
  });
  const byClient = counted('client');
  const byIp = counted('ip');

  /** Milliseconds until the key may try again; 0 when it may now (its place then held). */
  async function reserve({ limit, key, failures, pending }: FailureLimit): Promise<number> {
    const failed = await failures.get(key);
    if (failed.points >= limit) return failed.msBeforeNext;
    // Holds a failure's place for this attempt, so that a burst of parallel guesses cannot
    // all pass the check before the first of them fails.
    const underWay = await pending.add(key);
    if (failed.points + underWay.points <= limit) return 0;
    await pending.remove(key);
    return PENDING_RETRY_MS;
  }

  return {
    async attempt<T>(
      clientId: string,
      clientIp: string | undefined,
      verify: () => Promise<T | undefined>,
    ): Promise<AttemptOutcome<T>> {
      const limits: FailureLimit[] = [
        { ...byClient, limit: options.failuresPerClient, key: clientKey(clientId) },
        { ...byIp, limit: options.failuresPerIp, key: clientIp ?? 'unknown' },
      ].filter(({ limit }) => limit > 0);

      const waitsMs = await Promise.all(limits.map(reserve));
      const reserved = limits.filter((_, index) => waitsMs[index] === 0);
      const release = () => Promise.all(reserved.map(({ key, pending }) => pending.remove(key)));
      const lockedMs = Math.max(0, ...waitsMs);
      if (lockedMs > 0) {
        await release();
        return { locked: true, retryAfterSeconds: Math.max(1, Math.ceil(lockedMs / 1000)) };
      }
      let failed = false;
      try {
        const result = await verify();
        failed = result === undefined;
        return { locked: false, result };
      } finally {
        // The failure is counted before its place is given up, so none slips in between.
        if (failed) await Promise.all(limits.map(({ key, failures }) => failures.add(key)));
        await release();
      }
    },
  };
}
