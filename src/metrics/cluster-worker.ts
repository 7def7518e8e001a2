/**
 * /metrics in a cluster worker (WORKERS above 1): whichever worker a scrape reaches answers
 * with every worker's figures, summed by the primary (./cluster-primary.ts); and the primary's
 * collections are answered with this worker's own figures.
 */
import type { Registry } from 'prom-client';
import { COLLECT, EXPOSITION, FIGURES, metricsMessage, SCRAPE } from './cluster-messages.ts';

/** The primary waits at most COLLECT_TIMEOUT_MS for the workers; this is the worst beyond it. */
const SCRAPE_TIMEOUT_MS = 15_000;

export interface WorkerMetrics {
  /** The exposition of the whole cluster, from the primary. */
  scrape(): Promise<string>;
  /** Stops answering the primary's collections. */
  stop(): void;
}

export function clusterWorkerMetrics(registries: Registry[]): WorkerMetrics {
  let nextId = 0;
  const waiting = new Map<number, (answer: { text: string } | { error: string }) => void>();
  const listener = (message: unknown) => {
    const received = metricsMessage(message);
    if (received?.type === COLLECT) {
      void Promise.all(registries.map((registry) => registry.getMetricsAsJSON())).then((figures) =>
        send({ type: FIGURES, id: received.id, figures: figures.flat() }),
      );
    } else if (received?.type === EXPOSITION) {
      waiting.get(received.id)?.(received);
      waiting.delete(received.id);
    }
  };
  process.on('message', listener);
  return {
    scrape() {
      const id = nextId++;
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(id);
          reject(new Error(`the primary did not answer within ${SCRAPE_TIMEOUT_MS} ms`));
        }, SCRAPE_TIMEOUT_MS);
        waiting.set(id, (answer) => {
          clearTimeout(timer);
          if ('text' in answer) resolve(answer.text);
          else reject(new Error(`the primary could not aggregate: ${answer.error}`));
        });
        send({ type: SCRAPE, id }, (error) => {
          if (error === null) return;
          clearTimeout(timer);
          waiting.delete(id);
          reject(error);
        });
      });
    },
    stop: () => process.off('message', listener),
  };
}

/** To the primary; a primary gone is the worker's own shutdown (src/cli/workers.ts). */
function send(message: object, sent: (error: Error | null) => void = () => {}): void {
  if (process.send === undefined) sent(new Error('not a cluster worker'));
  else process.send(message, undefined, undefined, sent);
}
