/**
 * One switch for every DataLoader of the schema. Off, each load runs its own batch of one key
 * and nothing is cached per request: resolver-per-row, the "naive" floor the benchmark
 * measures the gateway against (docs/benchmarks.md). The schema is built once per process and
 * serves every app in it, so the switch is not the schema's: an app built with batching off
 * (DATALOADER_BATCHING=false) serves its requests within `withoutLoaderBatching`, and the
 * loaders those requests create read it there. Another app in the same process is unaffected.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const unbatched = new AsyncLocalStorage<true>();

/** Runs `work` (a request) with its loaders neither batching nor caching. */
export function withoutLoaderBatching<T>(work: () => T): T {
  return unbatched.run(true, work);
}

/** A field's own DataLoader options (typed as given, so Pothos infers its keys), plus the switch. */
export function loaderOptions<Options extends object = Record<never, never>>(
  options?: Options,
): Options {
  const batching = () => unbatched.getStore() === undefined;
  return Object.defineProperties({ ...options } as Options, {
    batch: { get: batching, enumerable: true },
    cache: { get: batching, enumerable: true },
  });
}
