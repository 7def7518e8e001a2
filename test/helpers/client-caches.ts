/** What the normalized-cache client tests share: console warnings captured, URLs gathered. */
import { afterEach, beforeEach, vi } from 'vitest';

/** Captures console.warn and console.error of each test (the clients warn through them). */
export function useConsoleWarnings(): { readonly list: unknown[][] } {
  const warnings = { list: [] as unknown[][] };
  beforeEach(() => {
    warnings.list = [];
    for (const method of ['warn', 'error'] as const) {
      vi.spyOn(console, method).mockImplementation((...args) => void warnings.list.push(args));
    }
  });
  afterEach(() => vi.restoreAllMocks());
  return warnings;
}

/** Every offer URL and alternative price URL of a product's `offers` page. */
export function offerUrls(product: any): string[] {
  return product.offers.edges.flatMap((edge: any) => [
    edge.node.url,
    ...edge.node.alternativePrices.map((alternative: any) => alternative.url),
  ]);
}
