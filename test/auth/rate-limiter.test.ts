import { describe, expect, it } from 'vitest';
import {
  createRateLimiter,
  createRateLimiterFromConfig,
  rateLimitSubject,
  tokenEndpointSubject,
  tooManyRequestsResponse,
  type RateLimitSubject,
} from '../../src/auth/rate-limiter.ts';
import { loadConfig } from '../../src/config.ts';
import { manualClock } from '../helpers/manual-clock.ts';

const anonymous = (ip: string): RateLimitSubject => rateLimitSubject({ kind: 'anonymous' }, ip);
const client = (id: string): RateLimitSubject =>
  rateLimitSubject({ kind: 'client', clientId: id, refs: [] }, '10.0.0.1');

function takeTimes(take: () => { allowed: boolean }, times: number): boolean[] {
  return Array.from({ length: times }, () => take().allowed);
}

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

  it("keeps the token endpoint's requests apart from the same IP's other requests", () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ anonymousPerMinute: 2, clientPerMinute: 2, ...clock });
    const token = tokenEndpointSubject('10.0.0.1');
    expect(token).toEqual({ key: 'token-ip:10.0.0.1', tier: 'anonymous' });
    expect(takeTimes(() => limiter.take(token), 3)).toEqual([true, true, false]);
    expect(takeTimes(() => limiter.take(anonymous('10.0.0.1')), 2)).toEqual([true, true]);
  });
});

describe('the token bucket', () => {
  it('allows a minute of requests at once, then one per refill interval', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, clientPerMinute: 600, ...clock });
    const ip = anonymous('10.0.0.1');

    expect(takeTimes(() => limiter.take(ip), 60).every(Boolean)).toBe(true);
    expect(limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 1 });

    // 60 a minute refills one token a second: half a second is not enough, a whole one is.
    clock.advance(500);
    expect(limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(500);
    expect(limiter.take(ip)).toEqual({ allowed: true, remaining: 0 });
    expect(limiter.take(ip).allowed).toBe(false);
  });

  it('counts remaining requests down and never refills beyond a minute', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ anonymousPerMinute: 3, clientPerMinute: 6, ...clock });
    const ip = anonymous('10.0.0.1');
    expect(limiter.take(ip)).toEqual({ allowed: true, remaining: 2 });
    expect(limiter.take(ip)).toEqual({ allowed: true, remaining: 1 });
    clock.advance(60 * 60_000);
    expect(limiter.take(ip)).toEqual({ allowed: true, remaining: 2 });
  });

  it('answers Retry-After in whole seconds, rounded up', () => {
    const clock = manualClock();
    // 6 a minute: one token every 10 s.
    const limiter = createRateLimiter({ anonymousPerMinute: 6, clientPerMinute: 60, ...clock });
    const ip = anonymous('10.0.0.1');
    takeTimes(() => limiter.take(ip), 6);
    expect(limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 10 });
    clock.advance(2_500);
    expect(limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 8 });
    clock.advance(7_400);
    expect(limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    clock.advance(100);
    expect(limiter.take(ip).allowed).toBe(true);
  });

  it('gives clients their own, higher limit, independent of the IP they call from', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ anonymousPerMinute: 2, clientPerMinute: 5, ...clock });
    expect(takeTimes(() => limiter.take(anonymous('10.0.0.1')), 3)).toEqual([true, true, false]);
    expect(takeTimes(() => limiter.take(client('acme')), 6)).toEqual([
      ...Array(5).fill(true),
      false,
    ]);
    expect(limiter.take(client('globex')).allowed).toBe(true);
    expect(limiter.take(anonymous('10.0.0.2')).allowed).toBe(true);
  });

  it('treats 0 as unlimited, per tier', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ anonymousPerMinute: 1, clientPerMinute: 0, ...clock });
    expect(takeTimes(() => limiter.take(client('acme')), 10_000).every(Boolean)).toBe(true);
    expect(limiter.take(client('acme'))).toEqual({ allowed: true, remaining: Infinity });
    expect(takeTimes(() => limiter.take(anonymous('10.0.0.1')), 2)).toEqual([true, false]);
    expect(limiter.size).toBe(1);
  });

  it('is not fooled by a clock going backwards', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ anonymousPerMinute: 1, clientPerMinute: 1, ...clock });
    const ip = anonymous('10.0.0.1');
    expect(limiter.take(ip).allowed).toBe(true);
    clock.advance(-30_000);
    expect(limiter.take(ip)).toEqual({ allowed: false, retryAfterSeconds: 60 });
  });
});

describe('memory', () => {
  it('forgets buckets that have refilled, since they decide nothing', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({ anonymousPerMinute: 60, clientPerMinute: 120, ...clock });
    for (let i = 0; i < 100; i++) limiter.take(anonymous(`10.0.0.${i}`));
    expect(limiter.size).toBe(100);
    // One request used one token: refilled after a second (60 a minute).
    clock.advance(1_000);
    limiter.take(anonymous('10.0.1.1'));
    expect(limiter.size).toBe(1);
  });

  it('keeps at most maxKeys buckets, dropping the least recently used', () => {
    const clock = manualClock();
    const limiter = createRateLimiter({
      anonymousPerMinute: 1,
      clientPerMinute: 1,
      maxKeys: 3,
      ...clock,
    });
    for (const ip of ['a', 'b', 'c']) limiter.take(anonymous(ip));
    expect(limiter.take(anonymous('a')).allowed).toBe(false); // a is now the most recent
    limiter.take(anonymous('d')); // drops b
    expect(limiter.size).toBe(3);
    expect(limiter.take(anonymous('a')).allowed).toBe(false);
    expect(limiter.take(anonymous('c')).allowed).toBe(false);
    // b was forgotten: it starts again with a full bucket.
    expect(limiter.take(anonymous('b')).allowed).toBe(true);
  });
});

describe('configuration and response', () => {
  it('takes its limits from the configuration', () => {
    const limiter = createRateLimiterFromConfig(
      loadConfig({ RATE_LIMIT_ANONYMOUS_PER_MINUTE: '1', RATE_LIMIT_CLIENT_PER_MINUTE: '2' }),
    );
    expect(takeTimes(() => limiter.take(anonymous('10.0.0.1')), 2)).toEqual([true, false]);
    expect(takeTimes(() => limiter.take(client('acme')), 3)).toEqual([true, true, false]);
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
