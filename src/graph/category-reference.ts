/**
 * A category given by numeric id or by slug (the `category` root field, REST routes): the
 * checks both the resolvers and the compiled path (./compile) make before looking it up.
 */
import { badUserInput } from '../errors.ts';

export type CategoryLookup = { id: number } | { slug: string };

/**
 * What to look up; null when the id cannot name a category (a REST reference of digits may
 * exceed the id column's range). Throws unless exactly one of id and slug is given.
 */
export function categoryLookup(reference: {
  id?: number | null;
  slug?: string | null;
}): CategoryLookup | null {
  if ((reference.id == null) === (reference.slug == null)) {
    throw badUserInput('give exactly one of id and slug', 'id', 'exclusive');
  }
  if (reference.id != null) {
    return Number.isInteger(reference.id) && reference.id <= 2 ** 31 - 1
      ? { id: reference.id }
      : null;
  }
  return { slug: reference.slug! };
}
