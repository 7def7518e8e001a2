/**
 * What a worker and the primary say to each other about /metrics (docs/operations.md,
 * "Metrics"): a worker asked for /metrics asks the primary to `scrape`; the primary asks every
 * serving worker to `collect` its figures, sums them with its own, and answers the asking
 * worker with the `exposition`.
 */
import type { Figures } from './aggregation.ts';

export const SCRAPE = 'catalogue:metrics-scrape';
export const COLLECT = 'catalogue:metrics-collect';
export const FIGURES = 'catalogue:metrics-figures';
export const EXPOSITION = 'catalogue:metrics-exposition';

export type MetricsMessage =
  | { type: typeof SCRAPE; id: number }
  | { type: typeof COLLECT; id: number }
  | { type: typeof FIGURES; id: number; figures: Figures }
  | ({ type: typeof EXPOSITION; id: number } & ({ text: string } | { error: string }));

/** One of the messages above, or undefined for any other (the worker's ready message). */
export function metricsMessage(message: unknown): MetricsMessage | undefined {
  const type = (message as { type?: unknown } | null)?.type;
  return [SCRAPE, COLLECT, FIGURES, EXPOSITION].includes(type as string)
    ? (message as MetricsMessage)
    : undefined;
}
