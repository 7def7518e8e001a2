/**
 * The figures of several processes (the cluster's workers and its primary) as one exposition,
 * with prom-client's cluster aggregation: each metric by the aggregator it declares (`sum`
 * unless it says otherwise: counters, histograms, in-flight requests, pools; `max`, `min` or
 * `first` where a sum means nothing). A few gauges mean something only per process (how late
 * one event loop runs, when one process started, whether one process reads from a replica):
 * those are shown per process instead, labelled `worker` (`primary`, `1`, `2`, …).
 *
 * Counters and histograms of a process that has gone are kept (`retired`), so that a sum never
 * goes backwards when a worker dies: Prometheus would take the drop for a reset of the whole
 * sum and count everything the other workers had counted again.
 */
import { AggregatorRegistry, type Registry } from 'prom-client';

/** One registry's figures (`getMetricsAsJSON`), as they cross from a worker to the primary. */
export type Figures = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** One process's figures, all its registries' together, and the `worker` label it goes by. */
export interface ProcessFigures {
  label: string;
  figures: Figures;
}

const PER_PROCESS = [
  /^nodejs_eventloop_lag_/,
  /^process_start_time_seconds$/,
  /^catalogue_database_replica_serving$/,
];

const CUMULATIVE_TYPES = new Set(['counter', 'histogram']);

/** The counters and histograms of `figures`: what must not go backwards. */
export function cumulative(figures: Figures): Figures {
  return figures.filter((metric) => CUMULATIVE_TYPES.has(String(metric.type)));
}

/**
 * Several processes' counters and histograms summed, series by series, into one set of
 * figures; at once, so that a worker's exit and a scrape never see a sum half made.
 */
export function summed(parts: Figures[]): Figures {
  const metrics = new Map<string, { metric: Figures[number]; series: Map<string, Series> }>();
  for (const metric of parts.flatMap(cumulative)) {
    const entry = metrics.get(metric.name) ?? { metric, series: new Map<string, Series>() };
    metrics.set(metric.name, entry);
    for (const value of metric.values) {
      const key = JSON.stringify([seriesName(value), Object.entries(value.labels).sort()]);
      const held = entry.series.get(key);
      entry.series.set(key, held ? { ...held, value: held.value + value.value } : value);
    }
  }
  return [...metrics.values()].map(({ metric, series }) => ({
    ...metric,
    values: [...series.values()],
  }));
}

type Series = Figures[number]['values'][number];

/** A histogram's series are told apart by their name (`_bucket`, `_sum`, `_count`) too. */
function seriesName(value: Series): string | undefined {
  return (value as { metricName?: string }).metricName;
}

/** The exposition of every process's figures and of the processes gone (`retired`). */
export function exposition(processes: ProcessFigures[], retired: Figures): Promise<string> {
  return AggregatorRegistry.aggregate([...processes.map(labelledPerProcess), retired]).metrics();
}

function labelledPerProcess({ label, figures }: ProcessFigures): Figures {
  return figures.map((metric) =>
    PER_PROCESS.some((name) => name.test(metric.name))
      ? {
          ...metric,
          // Each labelled series comes from one process: any aggregator but `omit` keeps it.
          aggregator: 'first',
          values: metric.values.map((value) => ({
            ...value,
            labels: { ...value.labels, worker: label },
          })),
        }
      : metric,
  );
}
