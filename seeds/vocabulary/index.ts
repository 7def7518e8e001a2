/**
 * Everything the catalogue is made of, as data: the category tree with each leaf's brands,
 * product lines, traits and property templates.
 */
import { ELECTRONICS } from './electronics.ts';
import { HOME } from './home.ts';
import { LEISURE } from './leisure.ts';
import type { RootCategorySpec } from './types.ts';

export * from './types.ts';
export { SHOP_NAMES } from './shops.ts';

/** Roots → groups → leaves: three levels, products hang on the leaves. */
export const CATEGORY_TREE: readonly RootCategorySpec[] = [ELECTRONICS, HOME, LEISURE];

/** Fictional CDN for every image and logo URL the seed writes. */
export const IMAGE_CDN = 'https://img.pricecompare.example';
