/**
 * The members every product item of the REST routes starts with (src/rest/shapes.ts
 * productItemIdentity), over `p` (products), `c` (categories) and `b` (brands, outer joined);
 * `publicBase` is the statement's parameter holding the base of the service's own URLs; names
 * in `language`.
 */
import { IMAGES_PATH } from '../../../src/images/image-urls.ts';
import { integer, integerAsString, nullWhen, object, requiredString } from '../json-sql.ts';
import { categoryName, type StatementLanguage } from './localised-names.ts';

/** src/images/image-urls.ts productImageUrls, over a product id column. */
function productImages(publicBase: string, id: string) {
  const url = (size: string) =>
    requiredString(`${publicBase}::text || '${IMAGES_PATH}/products/' || ${id} || '/${size}.svg'`);
  return object({ small: url('small'), large: url('large') });
}

export const productIdentity = (publicBase: string, language: StatementLanguage) => ({
  productId: integerAsString('p.id'),
  productName: requiredString('p.name'),
  category: object({
    id: integerAsString('c.id'),
    name: requiredString(categoryName('c', language)),
    rank: integer('p.rank_within_category'),
  }),
  brand: nullWhen('b.id is null', object({ name: requiredString('b.name') })),
  images: productImages(publicBase, 'p.id'),
});
