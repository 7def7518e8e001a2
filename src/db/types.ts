/**
 * The database as Kysely sees it: one interface per table (schema/migrations is the truth;
 * these types follow it). numeric and int8 arrive as numbers (see client.ts), dates as
 * 'YYYY-MM-DD' strings, timestamps as ISO 8601 strings in UTC (src/db/timestamps.ts).
 */
import type { ColumnType } from 'kysely';
import type { MarketCode } from '../markets.ts';

export const STOCK_STATUSES = [
  'IN_STOCK',
  'LIMITED_STOCK',
  'PREORDER',
  'INCOMING',
  'UNKNOWN',
  'OUT_OF_STOCK',
] as const;
export type StockStatus = (typeof STOCK_STATUSES)[number];

export const PRODUCT_CONDITIONS = [
  'CONDITION_NEW',
  'CONDITION_USED',
  'CONDITION_REFURBISHED',
  'CONDITION_DEMO',
] as const;
export type ProductCondition = (typeof PRODUCT_CONDITIONS)[number];

export const CURRENCIES = ['SEK', 'NOK', 'DKK', 'EUR', 'GBP', 'NZD'] as const;
export type Currency = (typeof CURRENCIES)[number];

export const PROPERTY_TYPES = ['category', 'boolean', 'string', 'number'] as const;
export type PropertyType = (typeof PROPERTY_TYPES)[number];

type Timestamp = ColumnType<string, Date | string, Date | string>;

export interface MarketsTable {
  code: MarketCode;
  currency: Currency;
  site_base_url: string;
  search_config: string;
}

export interface BrandsTable {
  id: number;
  name: string;
}

export interface CategoriesTable {
  id: number;
  parent_id: number | null;
  slug: string;
  name: string;
  description: string | null;
  logo_small_url: string | null;
  logo_large_url: string | null;
  is_leaf: boolean;
  position: ColumnType<number, number | undefined, number>;
}

export interface ShopsTable {
  id: number;
  market: MarketCode;
  name: string;
  url: string;
  logo_small_url: string | null;
  logo_large_url: string | null;
}

export interface ProductsTable {
  id: number;
  name: string;
  brand_id: number | null;
  category_id: number;
  rank_within_category: number;
  popularity: ColumnType<number, number | undefined, number>;
  description: string | null;
  image_small_url: string | null;
  image_large_url: string | null;
  /** The manufacturer part number: with the brand, how a feed row without a GTIN matches. */
  mpn: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface GtinsTable {
  gtin: string;
  product_id: number;
}

export interface OffersTable {
  id: ColumnType<number, number | undefined, number>;
  /** The shop's own id for the item, unique per shop: how a feed names the offer. */
  item_id: string;
  product_id: number;
  shop_id: number;
  market: MarketCode;
  currency: Currency;
  offer_name: string;
  url: string;
  condition: ProductCondition;
  stock_status: StockStatus;
  purchasable: boolean;
  price: number;
  price_including_shipping: number | null;
  member_price: number | null;
  member_price_start: Timestamp | null;
  member_price_end: Timestamp | null;
  sales_price: number | null;
  sales_price_start: Timestamp | null;
  sales_price_end: Timestamp | null;
  original_price: number | null;
  original_price_start: Timestamp | null;
  original_price_end: Timestamp | null;
  updated_at: Timestamp;
  /** When a feed withdrew the offer (no longer served); null while it is listed. */
  withdrawn_at: ColumnType<string | null, Date | string | null | undefined, Date | string | null>;
}

export interface OfferAlternativePricesTable {
  offer_id: number;
  position: number;
  price: number;
  url: string;
}

export interface PriceHistoryTable {
  product_id: number;
  market: MarketCode;
  first_day: string;
  daily_lowest_prices: (number | null)[];
}

export interface ProductMarketSummariesTable {
  product_id: number;
  market: MarketCode;
  category_id: number;
  popularity: number;
  available_offer_count: number;
  lowest_price: number;
  average_price_90_days: number | null;
  price_trend_percentage: number | null;
  as_of: string;
  /**
   * The product's name (weight A), brand (B) and category names (C) as a text-search vector
   * in the market's language (search_config; migration 0005).
   */
  search_vector: string;
}

export interface ProductPropertiesTable {
  product_id: number;
  node_id: number;
  parent_node_id: number | null;
  position: number;
  type: PropertyType;
  name: string;
  value_boolean: boolean | null;
  value_string: string | null;
  value_number: number | null;
  unit: string | null;
  icon: string | null;
  is_core: ColumnType<boolean, boolean | undefined, boolean>;
  comment: string | null;
}

export interface ApiClientsTable {
  id: string;
  name: string;
  secret_hash: string;
  /** The shop a shop's client writes feeds for; null for a partner's client. */
  shop_id: ColumnType<number | null, number | null | undefined, never>;
  created_at: ColumnType<string, Date | string | undefined, never>;
}

export interface ApiClientRefsTable {
  ref: string;
  client_id: string;
}

/** A persisted GraphQL document, by the lowercase hex sha256 of its text (migration 0011). */
export interface TrustedDocumentsTable {
  hash: string;
  document: string;
  added_at: ColumnType<string, Date | string | undefined, never>;
  /** The manifest it was added from. */
  source: string;
}

/** A category's name in a market language (migration 0005; English is categories.name). */
export interface CategoryTranslationsTable {
  slug: string;
  search_config: string;
  name: string;
}

/** Per category and language, its names and its ancestors' (a view of migration 0005). */
export interface CategorySearchTextsTable {
  category_id: number;
  search_config: string;
  leaf_names: string;
  ancestor_names: string;
}

/** The words of the search vectors per language, what typos are corrected towards. */
export interface SearchVocabularyTable {
  search_config: string;
  word: string;
}

/**
 * The lexemes of the search vectors per language: of names and brands, and of those and every
 * category's names (stripped: no positions, no weights).
 */
export interface SearchLexiconsTable {
  search_config: string;
  names: string;
  names_and_categories: string;
}

/** Per leaf category and language, the vectors of its names (alone, and with its ancestors'). */
export interface CategorySearchVectorsTable {
  category_id: number;
  search_config: string;
  leaf_names: string;
  all_names: string;
}

/** A feed row that matched no product, as last seen (migration 0008). */
export interface UnmatchedFeedItemsTable {
  shop_id: number;
  item_id: string;
  title: string;
  gtin: string | null;
  brand: string | null;
  mpn: string | null;
  price: number;
  currency: Currency;
  link: string;
  first_seen_at: Timestamp;
  last_seen_on: string;
  last_run_id: string;
}

/** The outbox: what a feed run changed for a product in a market (migration 0008). */
export interface CatalogueChangesTable {
  sequence: ColumnType<number, never, never>;
  run_id: string;
  product_id: number;
  market: MarketCode;
  old_lowest_price: number | null;
  new_lowest_price: number | null;
  old_offer_count: number;
  new_offer_count: number;
  added_offer_ids: number[];
  updated_offer_ids: number[];
  withdrawn_offer_ids: number[];
  changed_at: Timestamp;
}

/** A feed run's life: `receiving` while its body arrives, then queued, running, finished. */
export type FeedRunState = 'receiving' | 'queued' | 'running' | 'applied' | 'rejected' | 'failed';

export interface FeedRunsTable {
  run_id: string;
  shop_id: number;
  kind: 'full' | 'push';
  format: string;
  gzip: ColumnType<boolean, boolean | undefined, never>;
  state: FeedRunState;
  received_at: Timestamp;
  started_at: Timestamp | null;
  finished_at: Timestamp | null;
  reason: string | null;
  attempts: ColumnType<number, number | undefined, number>;
  body_bytes: ColumnType<number, number | undefined, number>;
  withdraw_item_ids: ColumnType<string[], string[] | undefined, never>;
  /** JSON: the report's counts, rejected rows and ignored columns, once finished. */
  counts: ColumnType<unknown, never, string | null>;
  rejected_rows: ColumnType<unknown, never, string | null>;
  ignored_columns: ColumnType<unknown, never, string | null>;
  /** The last sign of life of whoever holds the run (a body arriving, a worker starting). */
  touched_at: Timestamp;
}

export interface FeedRunBodiesTable {
  run_id: string;
  sequence: number;
  chunk: Uint8Array;
}

export interface Database {
  markets: MarketsTable;
  brands: BrandsTable;
  categories: CategoriesTable;
  shops: ShopsTable;
  products: ProductsTable;
  gtins: GtinsTable;
  offers: OffersTable;
  /** The availability rule as a view: the only way the service reads offers. */
  available_offers: OffersTable;
  offer_alternative_prices: OfferAlternativePricesTable;
  price_history: PriceHistoryTable;
  product_market_summaries: ProductMarketSummariesTable;
  product_properties: ProductPropertiesTable;
  api_clients: ApiClientsTable;
  api_client_refs: ApiClientRefsTable;
  category_translations: CategoryTranslationsTable;
  category_search_texts: CategorySearchTextsTable;
  search_vocabulary: SearchVocabularyTable;
  search_lexicons: SearchLexiconsTable;
  category_search_vectors: CategorySearchVectorsTable;
  unmatched_feed_items: UnmatchedFeedItemsTable;
  catalogue_changes: CatalogueChangesTable;
  feed_runs: FeedRunsTable;
  feed_run_bodies: FeedRunBodiesTable;
  trusted_documents: TrustedDocumentsTable;
}
