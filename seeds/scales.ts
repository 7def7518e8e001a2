/**
 * How big each scale is (shared/design/performance.md, "Catalogue scales").
 */
import type { SeedScale } from '../src/config.ts';

export interface ScaleParameters {
  products: number;
  /** Target mean of offers per product in a market where it is sold (1 to 15 each). */
  offersPerMarket: number;
  shopsPerMarket: number;
}

export const SCALES: Readonly<Record<SeedScale, ScaleParameters>> = {
  sample: { products: 5_000, offersPerMarket: 6, shopsPerMarket: 30 },
  bench: { products: 200_000, offersPerMarket: 8, shopsPerMarket: 120 },
  large: { products: 1_000_000, offersPerMarket: 8, shopsPerMarket: 300 },
};

export const MAX_OFFERS_PER_MARKET = 15;
