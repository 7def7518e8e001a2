/**
 * One switch for every DataLoader of the schema. Off, each load runs its own batch of one key
 * and nothing is cached per request: resolver-per-row, the "naive" floor the benchmark
 * measures the gateway against (performance.md). The schema is built once per process, so the
 * switch is process-wide; DataLoader reads `batch` and `cache` when a request creates its loaders.
 */
let batching = true;

export function setLoaderBatching(enabled: boolean): void {
  batching = enabled;
}

/** A field's own DataLoader options (typed as given, so Pothos infers its keys), plus the switch. */
export function loaderOptions<Options extends object = Record<never, never>>(
  options?: Options,
): Options {
  return Object.defineProperties({ ...options } as Options, {
    batch: { get: () => batching, enumerable: true },
    cache: { get: () => batching, enumerable: true },
  });
}
