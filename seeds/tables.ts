/**
 * The catalogue tables the seed fills, their columns in the order rows are generated, and the
 * order they load in (parents before children). Column types are not repeated here: loaders
 * read them from the database.
 */

export const TABLE_COLUMNS = {
  brands: ['id', 'name'],
  categories: [
    'id',
    'parent_id',
    'slug',
    'name',
    'description',
    'logo_small_url',
    'logo_large_url',
    'is_leaf',
    'position',
  ],
  shops: ['id', 'market', 'name', 'url', 'logo_small_url', 'logo_large_url'],
  products: [
    'id',
    'name',
    'brand_id',
    'category_id',
    'rank_within_category',
    'popularity',
    'description',
    'image_small_url',
    'image_large_url',
    'mpn',
  ],
  gtins: ['gtin', 'product_id'],
  product_properties: [
    'product_id',
    'node_id',
    'parent_node_id',
    'position',
    'type',
    'name',
    'value_boolean',
    'value_string',
    'value_number',
    'unit',
    'icon',
    'is_core',
    'comment',
  ],
  offers: [
    'id',
    'product_id',
    'shop_id',
    'market',
    'currency',
    'offer_name',
    'url',
    'condition',
    'stock_status',
    'purchasable',
    'price',
    'price_including_shipping',
    'member_price',
    'member_price_start',
    'member_price_end',
    'sales_price',
    'sales_price_start',
    'sales_price_end',
    'original_price',
    'original_price_start',
    'original_price_end',
    'updated_at',
    'item_id',
  ],
  offer_alternative_prices: ['offer_id', 'position', 'price', 'url'],
  price_history: ['product_id', 'market', 'first_day', 'daily_lowest_prices'],
} as const;

export type GeneratedTable = keyof typeof TABLE_COLUMNS;

/** Written once from the vocabulary, before any product. */
export const REFERENCE_TABLES = ['brands', 'categories', 'shops'] as const;

/** Written product by product, each product's parent row before its children. */
export const PRODUCT_TABLES = [
  'products',
  'gtins',
  'product_properties',
  'offers',
  'offer_alternative_prices',
  'price_history',
] as const;

export type ProductTable = (typeof PRODUCT_TABLES)[number];

/**
 * Every table the catalogue owns, emptied by a forced reseed. `markets` is not among them:
 * it is reference data of the migration.
 */
export const CATALOGUE_TABLES = [
  ...REFERENCE_TABLES,
  ...PRODUCT_TABLES,
  'product_market_summaries',
  'api_clients',
  'api_client_refs',
] as const;

/**
 * What feed runs write about the catalogue (rows no product matched, the outbox of changes):
 * the seed writes none, and empties them with the catalogue they refer to.
 */
export const FEED_TABLES = ['unmatched_feed_items', 'catalogue_changes'] as const;

/** A value as generated: numbers and prices are already formatted where it matters. */
export type Cell = string | number | boolean | null;
