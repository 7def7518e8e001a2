/**
 * A category's name as a market's shoppers read it: the translation search matches it by
 * (src/search/category-translations.ts), else its English name. Slugs stay English: they are
 * ids.
 */
import { CATEGORY_TRANSLATIONS } from '../search/category-translations.ts';
import type { TextSearchConfig } from '../search/text-search-configs.ts';

export function categoryNameIn(
  language: TextSearchConfig,
  category: { slug: string; name: string },
): string {
  if (language === 'english') return category.name;
  return CATEGORY_TRANSLATIONS[category.slug]?.[language] ?? category.name;
}
