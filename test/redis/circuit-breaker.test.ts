/**
 * The circuit breaker's states on their own (the Redis it guards in production is tested in
 * test/scale/redis-hang.test.ts): a trip opens it, it probes while open, one probe at a time,
 * and only a probe that answers closes it.
 */
import { describe, expect, it } from 'vitest';
import { createCircuitBreaker, type BreakerState } from '../../src/redis/circuit-breaker.ts';

interface Probe {
  answer(): void;
  fail(): void;
}

/** A breaker whose probes the test answers one by one. */
function breakerUnderTest() {
  const changes: BreakerState[] = [];
  const probes: Probe[] = [];
  const waiting: ((probe: Probe) => void)[] = [];
  const breaker = createCircuitBreaker({
    probeIntervalMs: 10,
    probe: () =>
      new Promise<void>((resolve, reject) => {
        const probe = { answer: () => resolve(), fail: () => reject(new Error('no answer')) };
        probes.push(probe);
        waiting.shift()?.(probe);
      }),
    onChange: (state) => changes.push(state),
  });
  /** The next probe, once the breaker makes it. */
  const nextProbe = () => new Promise<Probe>((resolve) => waiting.push(resolve));
  /** Lets the breaker hear a probe's answer. */
  const settled = () => new Promise((resolve) => setImmediate(resolve));
  return { breaker, changes, probes, nextProbe, settled };
}

describe('the circuit breaker', () => {
  it('lets calls through while closed, and opens at the first failure', () => {
    const { breaker, changes } = breakerUnderTest();
    expect(breaker.closed()).toBe(true);
    breaker.trip();
    expect(breaker.state).toBe('open');
    expect(breaker.closed()).toBe(false);
    // Later failures of calls made before it opened change nothing.
    breaker.trip();
    expect(changes).toEqual(['open']);
    breaker.stop();
  });

  it('probes while open, stays open while probes fail, and closes when one answers', async () => {
    const { breaker, changes, probes, nextProbe, settled } = breakerUnderTest();
    const first = nextProbe();
    breaker.trip();
    (await first).fail();
    await settled();
    expect(breaker.closed()).toBe(false);

    const probe = await nextProbe();
    expect(breaker.state).toBe('half-open');
    // Calls are still not made while the probe is out.
    expect(breaker.closed()).toBe(false);
    probe.answer();
    await settled();
    expect(breaker.closed()).toBe(true);
    expect(probes).toHaveLength(2);
    expect(changes).toEqual(['open', 'half-open', 'open', 'half-open', 'closed']);
    breaker.stop();
  });

  it('makes no probe once stopped', async () => {
    const { breaker, probes } = breakerUnderTest();
    breaker.trip();
    breaker.stop();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(probes).toHaveLength(0);
  });
});
