/** Brand: the maker of products; the same in every market. */
import { findBrandsByIds, type BrandRow } from '../../db/repositories/brands.ts';
import { entityByGlobalId } from '../federation.ts';
import { builder } from '../builder.ts';
import { loaderOptions } from '../batching.ts';
import { oneByKey } from '../grouping.ts';
import { columns } from '../selection.ts';
import { ProductRef } from './product.ts';

export const BrandRef = builder.loadableNode('Brand', {
  description: 'A brand (the maker of products).',
  id: { resolve: (brand: BrandRow) => String(brand.id) },
  loaderOptions: loaderOptions(),
  load: async (keys: string[], context) => {
    const ids = keys.filter((key) => /^[1-9]\d{0,9}$/.test(key)).map(Number);
    const rows = ids.length > 0 ? await findBrandsByIds(context.db, ids) : [];
    return oneByKey(keys, rows, (row) => String(row.id));
  },
  fields: (t) => ({
    brandId: t.exposeInt('id', { description: 'The numeric brand id.' }),
    name: t.exposeString('name', { description: 'The brand name.' }),
  }),
});

// A federation entity keyed by `id` (docs/federation.md): `_entities` loads it here.
builder.asEntity(BrandRef, entityByGlobalId(BrandRef));

builder.objectField(ProductRef, 'brand', (t) =>
  t.field({
    ...columns('brand_id'),
    type: BrandRef,
    nullable: true,
    description: 'The product’s brand; null for unbranded products.',
    resolve: (product) => (product.row.brand_id === null ? null : String(product.row.brand_id)),
  }),
);
