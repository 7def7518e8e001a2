/**
 * A text search's relevance tiers as SQL conditions on a search vector: the products'
 * stored vectors (product-search.ts) and the category names' computed ones (categories.ts)
 * are matched alike. Each tier's tsquery text is a parameter; the language is a constant.
 */
import { sql, type RawBuilder } from 'kysely';
import type { RelevanceTier } from '../../search/relevance-queries.ts';
import { isTextSearchConfig, type TextSearchConfig } from '../../search/text-search-configs.ts';
import type { TextSearch } from '../../search/text-search.ts';

/**
 * The language's search configuration (migration 0005: its stemming without stop words) as
 * a SQL constant: a language is never a parameter, so to_tsquery is evaluated once.
 */
export function configLiteral(config: TextSearchConfig): RawBuilder<unknown> {
  if (!isTextSearchConfig(config)) throw new Error(`unknown text-search config ${config}`);
  return sql`${sql.lit(`search_${config}`)}::regconfig`;
}

/**
 * The tier's part of the search vector matches its query: written as migration 0005's
 * indexes are, `ts_filter(search_vector, '{a,b}'::"char"[])`, so that they serve it.
 */
export function vectorMatches(
  search: TextSearch,
  vector: RawBuilder<unknown>,
  tier: RelevanceTier,
): RawBuilder<boolean> {
  const part =
    tier.weights === null ? vector : sql`ts_filter(${vector}, ${sql.lit(tier.weights)}::"char"[])`;
  return sql<boolean>`${part} @@ to_tsquery(${configLiteral(search.config)}, ${tier.query})`;
}

/** Every term matches in one way or another: the search as a whole (its last tier's query). */
export function vectorMatchesSearch(
  search: TextSearch,
  vector: RawBuilder<unknown>,
): RawBuilder<boolean> {
  const tier = search.tiers.at(-1);
  return tier === undefined ? sql<boolean>`false` : vectorMatches(search, vector, tier);
}

/**
 * RELEVANCE as tiers, best first (each then ordered by popularity): a product is in the
 * first tier whose query it matches (relevanceQueries).
 */
export function relevanceTiers(
  search: TextSearch,
  vector: RawBuilder<unknown>,
): RawBuilder<boolean>[] {
  return search.tiers.map((tier, index) =>
    index === 0
      ? vectorMatches(search, vector, tier)
      : sql<boolean>`(${vectorMatches(search, vector, tier)} and not ${vectorMatches(search, vector, search.tiers[index - 1]!)})`,
  );
}

/** The number of the first tier whose query the vector matches (for a vector that matches). */
export function relevanceTierOf(
  search: TextSearch,
  vector: RawBuilder<unknown>,
): RawBuilder<number> {
  // Cast: a bare 0 in an ORDER BY would mean its first column.
  if (search.tiers.length <= 1) return sql<number>`0::integer`;
  const better = search.tiers.slice(0, -1);
  return sql<number>`case ${sql.join(
    better.map(
      (tier, index) => sql`when ${vectorMatches(search, vector, tier)} then ${sql.lit(index)}`,
    ),
    sql` `,
  )} else ${sql.lit(better.length)} end`;
}
