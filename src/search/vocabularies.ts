/**
 * Each market language's typo vocabulary, read from search_vocabulary once per app (like the
 * markets, src/db/repositories/markets.ts: derived data that only a migration or a seed
 * changes) and kept beside the app's market directory, so a process stays stateless and
 * two apps on two databases never share one.
 */
import type { Kysely } from 'kysely';
import type { RequestContext } from '../context.ts';
import type { MarketDirectory } from '../db/repositories/markets.ts';
import type { TextSearchConfig } from './text-search-configs.ts';
import { listSearchVocabulary } from '../db/repositories/search-vocabulary.ts';
import type { Database } from '../db/types.ts';
import { SYNONYM_GROUPS } from './synonyms.ts';
import { TypoVocabulary } from './typo-tolerance.ts';

/** The catalogue's words in a language, and its synonyms (they are matched too). */
export function typoVocabularyOf(config: TextSearchConfig, words: Iterable<string>) {
  return new TypoVocabulary([...words, ...SYNONYM_GROUPS[config].flat()]);
}

/** The language's vocabulary as stored now. */
export async function readTypoVocabulary(
  db: Kysely<Database>,
  config: TextSearchConfig,
): Promise<TypoVocabulary> {
  return typoVocabularyOf(config, await listSearchVocabulary(db, config));
}

const loaded = new WeakMap<MarketDirectory, Map<TextSearchConfig, Promise<TypoVocabulary>>>();

/** The language's vocabulary, read on first use (a failed read is retried on the next). */
export function searchVocabulary(
  context: RequestContext,
  config: TextSearchConfig,
): Promise<TypoVocabulary> {
  let byConfig = loaded.get(context.markets);
  if (!byConfig) loaded.set(context.markets, (byConfig = new Map()));
  let vocabulary = byConfig.get(config);
  if (!vocabulary) {
    vocabulary = readTypoVocabulary(context.db, config).catch((error: unknown) => {
      byConfig.delete(config);
      throw error;
    });
    byConfig.set(config, vocabulary);
  }
  return vocabulary;
}
