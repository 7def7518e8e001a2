/**
 * PostGraphile v5's configuration for the benchmark: its Amber preset (the generated schema
 * as shipped) over the catalogue's `public` schema, on a pool the caller owns.
 *
 * The gateway hangs a product's offers off the `available_offers` view; PostGraphile learns
 * relations from constraints, and a view has none. Smart tags give the view a primary key and
 * foreign keys to products and shops here, in the preset, so the bench needs no change to the
 * database: `Product.availableOffersByProductId` and `AvailableOffer.shopByShopId` then exist.
 *
 * At start PostGraphile warns that it has no codec for `tsvector` and leaves
 * `product_market_summaries.search_vector` (the search's stored vector) out of its schema, as
 * it does for any type it does not know; no workload reads it.
 */
import type pg from 'pg';
import { makePgService } from 'postgraphile/adaptors/pg';
import { PostGraphileAmberPreset } from 'postgraphile/presets/amber';
import { jsonPgSmartTags } from 'postgraphile/utils';

const AvailableOfferKeysPlugin = jsonPgSmartTags({
  version: 1,
  config: {
    class: {
      'public.available_offers': {
        tags: {
          primaryKey: 'id',
          foreignKey: [
            '(product_id) references public.products (id)',
            '(shop_id) references public.shops (id)',
          ],
        },
      },
    },
  },
});

export function benchPreset(pool: pg.Pool): GraphileConfig.Preset {
  return {
    extends: [PostGraphileAmberPreset],
    plugins: [AvailableOfferKeysPlugin],
    pgServices: [makePgService({ pool, schemas: ['public'] })],
  };
}
