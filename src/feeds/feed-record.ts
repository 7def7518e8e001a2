/**
 * A feed row as the formats read it, before any check: the columns (or item elements) the
 * catalogue reads, as text. Every format hands these to the same row checks (./row-checks.ts),
 * so a rule holds alike for TSV, CSV and RSS (docs/api.md, "Feeds").
 */

/** The columns read; any other column is ignored and named once in the run's report. */
export const FEED_COLUMNS = [
  'id',
  'title',
  'link',
  'price',
  'sale_price',
  'sale_price_effective_date',
  'availability',
  'condition',
  'gtin',
  'brand',
  'mpn',
  'shipping',
  'image_link',
] as const;
export type FeedColumn = (typeof FEED_COLUMNS)[number];

/**
 * A header without one of these rejects the whole feed. `condition` is not among them: like
 * Google, a row without one is new.
 */
export const REQUIRED_COLUMNS = [
  'id',
  'title',
  'link',
  'price',
  'availability',
] as const satisfies readonly FeedColumn[];

export function isFeedColumn(name: string): name is FeedColumn {
  return (FEED_COLUMNS as readonly string[]).includes(name);
}

/** One `shipping` value: where to and at what price (`country:region:service:price`). */
export interface ShippingEntry {
  country: string;
  region: string;
  service: string;
  price: string;
}

export interface FeedRecord {
  /** The header is line 1 of a TSV or CSV (a row spanning lines: its first); an RSS item's position, from 1. */
  line: number;
  /** Each column read that the row has, as written (the text formats' `shipping` included). */
  values: Partial<Record<FeedColumn, string>>;
  /** RSS states shipping as elements rather than text: its entries, already apart. */
  shippingEntries?: ShippingEntry[];
  /** A text row with more cells than its header has columns (empty trailing cells aside). */
  extraCells?: number;
}

/** The shop's market, which every price and shipping entry must be in. */
export interface FeedMarket {
  /** ISO 4217, e.g. SEK. */
  currency: string;
  /** ISO 3166-1 alpha-2, e.g. SE. */
  country: string;
}

/** A feed format the catalogue reads: the ones shops export for Google Merchant Center. */
export const FEED_FORMATS = ['tsv', 'csv', 'xml'] as const;
export type FeedFormat = (typeof FEED_FORMATS)[number];

/** What a run's body is in: a feed's format, or a push's JSON array of items. */
export type RunFormat = FeedFormat | 'json';
