/** The text-search configurations the migration indexes (one per market language). */
export const TEXT_SEARCH_CONFIGS = [
  'swedish',
  'norwegian',
  'danish',
  'finnish',
  'french',
  'english',
] as const;
export type TextSearchConfig = (typeof TEXT_SEARCH_CONFIGS)[number];

export function isTextSearchConfig(value: string): value is TextSearchConfig {
  return (TEXT_SEARCH_CONFIGS as readonly string[]).includes(value);
}
