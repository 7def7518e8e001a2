/** What the service's drawn pictures show (src/images): one statement per picture. */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../types.ts';

export interface ProductPictureRow {
  name: string;
  brand: string | null;
  /** The product's category slug, then its ancestors', nearest first. */
  category_slugs: string[];
}

/** A product's name, brand and category path; undefined for no such product. */
export async function findProductPicture(
  db: Kysely<Database>,
  productId: number,
): Promise<ProductPictureRow | undefined> {
  const { rows } = await sql<ProductPictureRow>`
    with recursive up (id, parent_id, slug, distance) as (
      select c.id, c.parent_id, c.slug, 0
        from products p join categories c on c.id = p.category_id
       where p.id = ${productId}
      union all
      select c.id, c.parent_id, c.slug, up.distance + 1
        from up join categories c on c.id = up.parent_id
    )
    select p.name, b.name as brand,
           array(select up.slug from up order by up.distance)::text[] as category_slugs
      from products p left join brands b on b.id = p.brand_id
     where p.id = ${productId}`.execute(db);
  return rows[0];
}
