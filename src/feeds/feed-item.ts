/**
 * What a shop's feed says about one item, once read and checked: the boundary between the
 * formats (TSV, CSV, RSS 2.0 with Google's `g:` namespace; ./formats) and applying a run to
 * the catalogue. A row that fails a check never becomes a FeedItem: it is a RejectedRow,
 * reported with the run, and the rest of the run goes on (docs/api.md, "Feeds").
 */

/** Google Merchant Center's availability values, as shops already export them. */
export const FEED_AVAILABILITIES = ['in_stock', 'out_of_stock', 'preorder', 'backorder'] as const;
export type FeedAvailability = (typeof FEED_AVAILABILITIES)[number];

export const FEED_CONDITIONS = ['new', 'refurbished', 'used'] as const;
export type FeedCondition = (typeof FEED_CONDITIONS)[number];

export interface FeedItem {
  /** Where the row was: the header is line 1 of a TSV or CSV; an RSS item's position, from 1. */
  line: number;
  /** The shop's own id for the item, 1 to 50 characters, unique within a feed. */
  itemId: string;
  title: string;
  /** An http(s) URL. */
  link: string;
  /** The regular price, in the shop's market's currency (`price`). */
  price: number;
  /** The sale price and the period it holds (`sale_price`, `sale_price_effective_date`). */
  sale: { price: number; start: string | null; end: string | null } | null;
  availability: FeedAvailability;
  condition: FeedCondition;
  /** Digits only, check digit verified, zero-padded to 14 (GTIN-14 form). */
  gtin: string | null;
  brand: string | null;
  mpn: string | null;
  /** The shipping price to the market's country (`shipping`), when the feed states one. */
  shippingPrice: number | null;
  imageLink: string | null;
}

/** The rejected rows a run's report lists; the count stays exact beyond them. */
export const MAX_REPORTED_REJECTIONS = 1000;

/** A row the run could not take, and why: `field` names the column (or `id` for a duplicate). */
export interface RejectedRow {
  line: number;
  itemId: string | null;
  field: string;
  reason: string;
}
