/**
 * How the primary adds up its workers' figures (src/metrics/aggregation.ts), on real
 * prom-client registries: counters and histograms summed series by series, gauges by the
 * aggregator each declares, the per-process gauges labelled `worker`, the figures of workers
 * gone kept in the sums; and the result is an exposition promtool accepts.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { cumulative, exposition, summed, type Figures } from '../../src/metrics/aggregation.ts';
import { parseExposition, valueOf } from '../helpers/prometheus.ts';
import { promtool, requirePromtool } from '../helpers/promtool.ts';

requirePromtool();

/** One worker's registry: what it counted, timed and holds now. */
async function workerFigures(requests: number, seconds: number[], lagSeconds: number) {
  const registry = new Registry();
  const registers = [registry];
  const counted = new Counter({
    name: 'catalogue_http_requests_total',
    help: 'requests',
    labelNames: ['route', 'status'] as const,
    registers,
  });
  // Labels given in another order by each worker: the same series all the same.
  counted.inc(
    requests % 2 ? { status: '200', route: 'products' } : { route: 'products', status: '200' },
    requests,
  );
  const timed = new Histogram({
    name: 'catalogue_feed_run_seconds',
    help: 'runs',
    labelNames: ['kind'] as const,
    buckets: [1, 10],
    registers,
  });
  for (const taken of seconds) timed.observe({ kind: 'push' }, taken);
  new Gauge({ name: 'catalogue_live_subscriptions', help: 'open', registers }).set(requests);
  new Gauge({
    name: 'catalogue_database_replica_lag_seconds',
    help: 'lag',
    registers,
    aggregator: 'max',
  }).set(lagSeconds);
  new Gauge({ name: 'nodejs_eventloop_lag_seconds', help: 'lag', registers }).set(lagSeconds);
  return registry.getMetricsAsJSON();
}

describe('the sums across workers', () => {
  it('adds counters and histograms, takes each gauge by its aggregator, labels the per-process ones', async () => {
    const first = await workerFigures(3, [0.5, 5], 0.25);
    const second = await workerFigures(4, [20], 1.5);
    const text = await exposition(
      [
        { label: '1', figures: first },
        { label: '2', figures: second },
      ],
      [],
    );
    const metrics = parseExposition(text);
    expect(valueOf(metrics, 'catalogue_http_requests_total', { route: 'products' })).toBe(7);
    expect(
      metrics.samples.filter((sample) => sample.name === 'catalogue_http_requests_total'),
    ).toHaveLength(1);
    const bucket = (le: string) => valueOf(metrics, 'catalogue_feed_run_seconds_bucket', { le });
    expect([bucket('1'), bucket('10'), bucket('+Inf')]).toEqual([1, 2, 3]);
    expect(valueOf(metrics, 'catalogue_feed_run_seconds_count')).toBe(3);
    expect(valueOf(metrics, 'catalogue_feed_run_seconds_sum')).toBe(25.5);
    expect(valueOf(metrics, 'catalogue_live_subscriptions')).toBe(7);
    expect(valueOf(metrics, 'catalogue_database_replica_lag_seconds')).toBe(1.5);
    expect(
      metrics.samples
        .filter((sample) => sample.name === 'nodejs_eventloop_lag_seconds')
        .map(({ labels, value }) => [labels.worker, value]),
    ).toEqual([
      ['1', 0.25],
      ['2', 1.5],
    ]);
    const checked = await promtool(['check', 'metrics'], text);
    expect(checked.output).toBe('');
  });

  it('keeps what workers gone had counted, and none of their gauges', async () => {
    const gone = [await workerFigures(5, [2], 0.1), await workerFigures(6, [3, 30], 0.2)];
    const retired: Figures = summed(gone);
    expect(retired.map((metric) => metric.name).sort()).toEqual([
      'catalogue_feed_run_seconds',
      'catalogue_http_requests_total',
    ]);
    expect(
      cumulative(gone[0]!)
        .map((metric) => String(metric.type))
        .sort(),
    ).toEqual(['counter', 'histogram']);
    const live = await workerFigures(1, [0.5], 0.3);
    const metrics = parseExposition(await exposition([{ label: '1', figures: live }], retired));
    expect(valueOf(metrics, 'catalogue_http_requests_total')).toBe(12);
    expect(valueOf(metrics, 'catalogue_feed_run_seconds_count', { kind: 'push' })).toBe(4);
    expect(valueOf(metrics, 'catalogue_feed_run_seconds_bucket', { le: '10' })).toBe(3);
    expect(valueOf(metrics, 'catalogue_live_subscriptions')).toBe(1);
  });
});
