/**
 * Brute-force protection for the token endpoint: failed client authentications slow down the
 * address they come from, never anyone else. Failures are counted per client IP (over every
 * client id) and per client IP and client id, each in a window that opens with its first
 * failure; past a key's free failures, each further one holds the key back for a delay that
 * starts at a second and doubles, up to a cap. A guesser at one address is slowed hard, one
 * spread over many addresses pays at each of them, and the right secret from an address that
 * has not failed is never refused, whatever other addresses did. A key's first delay in its
 * window is logged, naming the address (and the client id, for a pair): who is held back.
 *
 * A client id is public, so failures naming it never refuse anything: they are counted only to
 * warn (a log line naming the id, and a metric) when one id draws many in a window.
 *
 * Apart from the request rate limiter on purpose: a delay here refuses tokens only, never the
 * caller's read routes. Counted where that limiter counts: in Redis when one is configured, so
 * that N processes give an attacker the tries of one (src/auth/limit-counters.ts).
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { AppMetrics } from '../metrics.ts';
import { loggableClientId } from './client-id.ts';
import type { LimitCounter, LimitCounters, LimitHolds } from './limit-counters.ts';

export interface TokenAttemptLimiterOptions {
  /** Failures per client IP and window, over every client id, before delays; 0 = none. */
  failuresPerIp: number;
  /** Failures per client IP and client id and window before delays; 0 = none. */
  failuresPerIpAndClient: number;
  /** The longest delay. */
  maxDelaySeconds: number;
  windowSeconds: number;
  /** Failures naming one client id in a window, from anywhere, that warn; 0 = never. */
  failuresPerClientWarning: number;
  counters: LimitCounters;
  /** Where failures and warnings are reported; without it, nowhere. */
  signals?: TokenFailureSignals;
}

export interface TokenFailureSignals {
  logger: Logger;
  metrics: Pick<AppMetrics, 'tokenFailure' | 'tokenClientWarning'>;
}

export type AttemptOutcome<T> =
  | { throttled: false; /** undefined: the attempt failed. */ result: T | undefined }
  | { throttled: true; /** For `Retry-After`, in whole seconds. */ retryAfterSeconds: number };

export interface TokenAttemptLimiter {
  /**
   * Runs `verify`, one attempt of `clientId` from `clientIp`, unless the address (alone or
   * with that client id) is held back. `verify` answering undefined is a failure; an answer,
   * or an error (the database down, say), counts nothing.
   */
  attempt<T>(
    clientId: string,
    clientIp: string | undefined,
    verify: () => Promise<T | undefined>,
  ): Promise<AttemptOutcome<T>>;
}

/**
 * The wait for a caller refused only because attempts under way might use up the free
 * failures: they end within a scrypt's time, and may well succeed.
 */
const PENDING_RETRY_MS = 1000;

/**
 * How long an attempt under way holds its place at most: far beyond a scrypt's time, so that
 * one lost with its process (killed mid-attempt) is soon forgotten.
 */
const PENDING_WINDOW_SECONDS = 60;

/** Who failed: the client id as sent, and the address. */
interface FailureSource {
  clientId: string;
  clientIp: string | undefined;
}

/** Doubling beyond this would pass any cap the configuration allows. */
const MAX_DOUBLINGS = 30;

/** The names of one kind of key's counts and delays, where they are kept. */
function namesOf(kind: 'ip' | 'ip-client') {
  return {
    failures: `token-failures:${kind}`,
    pending: `token-pending:${kind}`,
    delays: `token-delays:${kind}`,
  };
}

/** The key of an address and a client id's failures. */
const pairKey = (ip: string, clientId: string) => `${ip} ${clientKey(clientId)}`;

/** One kind of key (IPs, IP and client id pairs): its free failures, counts and delays. */
interface FailureKind {
  /** What its keys are, as the log line that tells a key's first delay says. */
  heldBack: 'address' | 'address and client id';
  free: number;
  failures: LimitCounter;
  /** Attempts under way: each may yet fail, so each holds a failure's place until it ends. */
  pending: LimitCounter;
  delays: LimitHolds;
}

/**
 * A client id is whatever the caller sent, up to the endpoint's 8 KiB body: its digest bounds
 * the memory a key takes, and every id, known or unknown, well-formed or not, counts alike.
 */
function clientKey(clientId: string): string {
  return createHash('sha256').update(clientId).digest('base64url');
}

/** The delay a key's `failures`-th failure in its window earns, in seconds: 1, 2, 4, … */
function delayAfter(failures: number, free: number, maxDelaySeconds: number): number {
  const beyond = failures - free;
  if (beyond < 0) return 0;
  return Math.min(maxDelaySeconds, 2 ** Math.min(beyond, MAX_DOUBLINGS));
}

/** Who a key's delay holds back: an address, or an address sending one client id. */
function heldBack(kind: FailureKind, { clientId, clientIp }: FailureSource) {
  return kind.heldBack === 'address'
    ? { heldBack: kind.heldBack, clientIp }
    : { heldBack: kind.heldBack, clientIp, tokenClientId: loggableClientId(clientId) };
}

export function createTokenAttemptLimiterFromConfig(
  config: Pick<
    Config,
    | 'tokenFailuresPerIp'
    | 'tokenFailuresPerIpAndClient'
    | 'tokenFailureMaxDelaySeconds'
    | 'tokenFailureWindowSeconds'
    | 'tokenFailuresPerClientWarning'
  >,
  counters: LimitCounters,
  signals?: TokenFailureSignals,
): TokenAttemptLimiter {
  return createTokenAttemptLimiter({
    failuresPerIp: config.tokenFailuresPerIp,
    failuresPerIpAndClient: config.tokenFailuresPerIpAndClient,
    maxDelaySeconds: config.tokenFailureMaxDelaySeconds,
    windowSeconds: config.tokenFailureWindowSeconds,
    failuresPerClientWarning: config.tokenFailuresPerClientWarning,
    counters,
    signals,
  });
}

export function createTokenAttemptLimiter(
  options: TokenAttemptLimiterOptions,
): TokenAttemptLimiter {
  const { counters, windowSeconds, maxDelaySeconds, signals } = options;
  const kind = (
    name: 'ip' | 'ip-client',
    heldBack: FailureKind['heldBack'],
    free: number,
  ): FailureKind => ({
    heldBack,
    free,
    failures: counters.counter(namesOf(name).failures, windowSeconds),
    pending: counters.counter(namesOf(name).pending, PENDING_WINDOW_SECONDS),
    delays: counters.holds(namesOf(name).delays),
  });
  const byIp = kind('ip', 'address', options.failuresPerIp);
  const byIpAndClient = kind('ip-client', 'address and client id', options.failuresPerIpAndClient);
  const byClient = counters.counter('token-failures:client', windowSeconds);

  /**
   * Milliseconds until `key` may try again; 0 when it may now. Its place is taken first and
   * the counts read after, so that an attempt ending meanwhile (its failure counted, its delay
   * set, then its place given up) is always seen.
   */
  async function reserve(key: string, { free, failures, pending, delays }: FailureKind) {
    const underWay = await pending.add(key);
    const [failed, heldMs] = await Promise.all([failures.get(key), delays.remainingMs(key)]);
    if (heldMs > 0) return heldMs;
    // Within the free failures, as many attempts as are left of them; past them, one at a
    // time, so that a burst of parallel guesses cannot all pass before the first delay is set.
    return underWay.points <= Math.max(1, free - failed.points) ? 0 : PENDING_RETRY_MS;
  }

  /** Counts a failure against `key`; its first delay in a window is logged, naming who. */
  async function countFailure(key: string, kind: FailureKind, who: FailureSource) {
    const { points } = await kind.failures.add(key);
    const seconds = delayAfter(points, kind.free, maxDelaySeconds);
    if (seconds === 0) return;
    await kind.delays.hold(key, seconds);
    if (points !== kind.free) return; // the failure that used up the free ones
    // Routine (a partner's typo earns one too): at info, the targeted client's warning apart.
    signals?.logger.info(
      { ...heldBack(kind, who), failures: points, delaySeconds: seconds, windowSeconds },
      'token requests: an address is held back after failed authentications',
    );
  }

  /** Counts a failure against the client id it named: a warning once a window, no refusal. */
  async function signalClient(clientId: string, clientIp: string | undefined) {
    signals?.metrics.tokenFailure();
    const threshold = options.failuresPerClientWarning;
    if (threshold === 0) return;
    const { points } = await byClient.add(clientKey(clientId));
    if (points !== threshold) return;
    signals?.metrics.tokenClientWarning();
    signals?.logger.warn(
      { tokenClientId: loggableClientId(clientId), clientIp, failures: points, windowSeconds },
      'token requests: many failed authentications for one client id',
    );
  }

  return {
    async attempt<T>(
      clientId: string,
      clientIp: string | undefined,
      verify: () => Promise<T | undefined>,
    ): Promise<AttemptOutcome<T>> {
      const ip = clientIp ?? 'unknown';
      const keys: [string, FailureKind][] = [
        [ip, byIp],
        [pairKey(ip, clientId), byIpAndClient],
      ];
      const limited = keys.filter(([, { free }]) => free > 0);

      const waitsMs = await Promise.all(limited.map(([key, kind]) => reserve(key, kind)));
      const release = () => Promise.all(limited.map(([key, { pending }]) => pending.remove(key)));
      const waitMs = Math.max(0, ...waitsMs);
      if (waitMs > 0) {
        await release();
        return { throttled: true, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
      }
      let failed = false;
      try {
        const result = await verify();
        failed = result === undefined;
        return { throttled: false, result };
      } finally {
        // The failure and its delay are counted before its place is given up, so none slips
        // in between.
        if (failed) {
          await Promise.all([
            ...limited.map(([key, kind]) => countFailure(key, kind, { clientId, clientIp })),
            signalClient(clientId, clientIp),
          ]);
        }
        await release();
      }
    },
  };
}

/**
 * Forgets the failures of `clientId` and the delays they earned, at `address` or at every
 * address; with `address`, that address's own failures (over every client id) too: an
 * operator's unlock (`npm run clients -- unlock`). Answers how many counts and delays went,
 * or undefined when Redis could not be used (this process's memory forgot them all the same).
 * Attempts under way are left alone: each ends, and gives its place up, by itself.
 */
export async function forgetTokenFailures(
  counters: LimitCounters,
  clientId: string,
  address?: string,
): Promise<number | undefined> {
  const client = ` ${clientKey(clientId)}`;
  const pairs = namesOf('ip-client');
  const ofPair = (key: string) =>
    address === undefined ? key.endsWith(client) : key === pairKey(address, clientId);
  const forgotten = [
    counters.forget(pairs.failures, ofPair),
    counters.forget(pairs.delays, ofPair),
  ];
  if (address !== undefined) {
    const ips = namesOf('ip');
    const ofAddress = (key: string) => key === address;
    forgotten.push(
      counters.forget(ips.failures, ofAddress),
      counters.forget(ips.delays, ofAddress),
    );
  }
  const counts = await Promise.all(forgotten);
  if (counts.includes(undefined)) return undefined;
  return counts.reduce<number>((sum, found) => sum + found!, 0);
}
