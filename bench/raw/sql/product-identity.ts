/**
 * The members every product item of the REST routes starts with (src/rest/shapes.ts
 * productItemIdentity), over `p` (products), `c` (categories) and `b` (brands, outer joined).
 */
import { integer, integerAsString, nullWhen, object, requiredString, string } from '../json-sql.ts';

export const productIdentity = {
  productId: integerAsString('p.id'),
  productName: requiredString('p.name'),
  category: object({
    id: integerAsString('c.id'),
    name: requiredString('c.name'),
    rank: integer('p.rank_within_category'),
  }),
  brand: nullWhen('b.id is null', object({ name: requiredString('b.name') })),
  images: object({ small: string('p.image_small_url'), large: string('p.image_large_url') }),
};
