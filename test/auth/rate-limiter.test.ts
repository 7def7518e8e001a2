/**
 * The request rate limiter counted in this process (src/auth/rate-limiter.ts on
 * src/auth/limit-counters.ts without a Redis; test/scale/processes-limits.test.ts counts in
 * Redis), on a clock the test moves (the counters read Date).
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  createRateLimiter,
  createRateLimiterFromConfig,
  rateLimitSubject,
  tokenEndpointSubject,
  tooManyRequestsResponse,
  type RateLimitDecision,
  type RateLimitSubject,
} from '../../src/auth/rate-limiter.ts';
import { loadConfig } from '../../src/config.ts';
import { countersInProcess } from '../helpers/limit-counters.ts';

const anonymous = (ip: string): RateLimitSubject => rateLimitSubject({ kind: 'anonymous' }, ip);
const client = (id: string): RateLimitSubject =>
  rateLimitSubject({ kind: 'client', clientId: id, refs: [] }, '10.0.0.1');

function limiterOf(anonymousPerMinute: number, clientPerMinute: number) {
  return createRateLimiter({ anonymousPerMinute, clientPerMinute, counters: countersInProcess() });
}

async function takeTimes(take: () => Promise<RateLimitDecision>, times: number) {
  const allowed: boolean[] = [];
  for (let i = 0; i < times; i++) allowed.push((await take()).allowed);
  return allowed;
}

// Only Date: the counters' windows close by it, and nothing else need wait on the clock.
beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});
const advance = (ms: number) => vi.setSystemTime(Date.now() + ms);

describe('rateLimitSubject', () => {
  it('keys clients by id and everyone else by IP, in separate namespaces', () => {
    expect(client('acme')).toEqual({ key: 'client:acme', tier: 'client' });
    expect(anonymous('10.0.0.1')).toEqual({ key: 'ip:10.0.0.1', tier: 'anonymous' });
    expect(rateLimitSubject({ kind: 'invalid', reason: 'expired' }, '10.0.0.2')).toEqual({
      key: 'ip:10.0.0.2',
      tier: 'anonymous',
    });
    expect(rateLimitSubject({ kind: 'anonymous' }, undefined).key).toBe('ip:unknown');
  });

  it("keeps the token endpoint's requests apart from the same IP's other requests", async () => {
    const limiter = limiterOf(2, 2);
    const token = tokenEndpointSubject('10.0.0.1');
    expect(token).toEqual({ key: 'token-ip:10.0.0.1', tier: 'anonymous' });
    expect(await takeTimes(() => limiter.take(token), 3)).toEqual([true, true, false]);
    expect(await takeTimes(() => limiter.take(anonymous('10.0.0.1')), 2)).toEqual([true, true]);
  });
});

describe('the window', () => {
  it("allows a minute's requests at once, then none until the minute since the first is over", async () => {
    const limiter = limiterOf(60, 600);
    const ip = anonymous('10.0.0.1');

    expect((await takeTimes(() => limiter.take(ip), 60)).every(Boolean)).toBe(true);
    expect(await limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 60 });

    advance(59_500);
    expect(await limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    advance(500);
    expect(await limiter.take(ip)).toEqual({ allowed: true, remaining: 59 });
  });

  it('counts remaining requests down, and starts again from a full minute', async () => {
    const limiter = limiterOf(3, 6);
    const ip = anonymous('10.0.0.1');
    expect(await limiter.take(ip)).toEqual({ allowed: true, remaining: 2 });
    expect(await limiter.take(ip)).toEqual({ allowed: true, remaining: 1 });
    advance(60 * 60_000);
    expect(await limiter.take(ip)).toEqual({ allowed: true, remaining: 2 });
  });

  it('answers Retry-After in whole seconds, rounded up', async () => {
    const limiter = limiterOf(6, 60);
    const ip = anonymous('10.0.0.1');
    await takeTimes(() => limiter.take(ip), 6);
    expect(await limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 60 });
    advance(2_500);
    expect(await limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 58 });
    advance(57_400);
    expect(await limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    advance(100);
    expect((await limiter.take(ip)).allowed).toBe(true);
  });

  it('gives clients their own, higher limit, independent of the IP they call from', async () => {
    const limiter = limiterOf(2, 5);
    expect(await takeTimes(() => limiter.take(anonymous('10.0.0.1')), 3)).toEqual([
      true,
      true,
      false,
    ]);
    expect(await takeTimes(() => limiter.take(client('acme')), 6)).toEqual([
      ...Array(5).fill(true),
      false,
    ]);
    expect((await limiter.take(client('globex'))).allowed).toBe(true);
    expect((await limiter.take(anonymous('10.0.0.2'))).allowed).toBe(true);
  });

  it('treats 0 as unlimited, per tier', async () => {
    const limiter = limiterOf(1, 0);
    expect((await takeTimes(() => limiter.take(client('acme')), 10_000)).every(Boolean)).toBe(true);
    expect(await limiter.take(client('acme'))).toEqual({ allowed: true, remaining: Infinity });
    expect(await takeTimes(() => limiter.take(anonymous('10.0.0.1')), 2)).toEqual([true, false]);
  });

  it('counts every limiter on the same counters against one allowance, as processes on one Redis do', async () => {
    const counters = countersInProcess();
    const limits = { anonymousPerMinute: 4, clientPerMinute: 4, counters };
    const [first, second] = [createRateLimiter(limits), createRateLimiter(limits)];
    const ip = anonymous('10.0.0.1');
    expect(await takeTimes(() => first.take(ip), 2)).toEqual([true, true]);
    expect(await takeTimes(() => second.take(ip), 3)).toEqual([true, true, false]);
    expect((await first.take(ip)).allowed).toBe(false);
  });
});

describe('configuration and response', () => {
  it('takes its limits from the configuration', async () => {
    const limiter = createRateLimiterFromConfig(
      loadConfig({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1', RATE_LIMIT_CLIENT_PER_MINUTE: '2' }),
      countersInProcess(),
    );
    expect(await takeTimes(() => limiter.take(anonymous('10.0.0.1')), 2)).toEqual([true, false]);
    expect(await takeTimes(() => limiter.take(client('acme')), 3)).toEqual([true, true, false]);
  });

  it('answers 429 with Retry-After and the service error body', async () => {
    const response = tooManyRequestsResponse(7, 'req-1');
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toBe('7');
    expect(await response.json()).toEqual({
      error: { code: 'http.429', message: expect.stringContaining('7 s'), request_id: 'req-1' },
    });
  });
});
