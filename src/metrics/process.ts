/**
 * The process's own figures, one registry whichever app shows them (tests run several apps in
 * one process): prom-client's defaults (memory, CPU, event loop, garbage collection) and the
 * catalogue clock's last advance, which the process runs, not an app.
 */
import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';

/**
 * prom-client's counts of active handles, requests and resources in all are gauges named
 * `_total`, a suffix the exposition format keeps for counters (promtool refuses them); the
 * sum of the same gauges without the suffix, by type, is the same figure.
 */
const MISNAMED_DEFAULTS = [
  'nodejs_active_handles_total',
  'nodejs_active_requests_total',
  'nodejs_active_resources_total',
];

let registry: Registry | undefined;
let clockAdvanced: Gauge | undefined;

export function processMetrics(): Registry {
  if (registry === undefined) {
    registry = new Registry();
    collectDefaultMetrics({ register: registry });
    for (const name of MISNAMED_DEFAULTS) registry.removeSingleMetric(name);
  }
  return registry;
}

/** The catalogue clock brought the catalogue forward now. */
export function noteCatalogueBroughtForward(): void {
  // Registered at the first advance: an unlabelled gauge would read 0 (1970) before it.
  clockAdvanced ??= new Gauge({
    name: 'catalogue_clock_last_success_timestamp_seconds',
    help: 'When the catalogue clock last brought the catalogue forward (Unix time); absent until it has.',
    registers: [processMetrics()],
    // Across workers the latest: every worker brings the one catalogue forward.
    aggregator: 'max',
  });
  clockAdvanced.setToCurrentTime();
}
