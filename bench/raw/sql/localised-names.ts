/**
 * Names as the gateway shows them in a market's language (src/localisation): a category's
 * from `category_translations` (filled from the same data by migration 0005), else its
 * English name; specification names and word units from the gateway's own tables, written
 * into the statement as constants (they live in code, not in the database).
 */
import { translationsIn } from '../../../src/localisation/property-names.ts';
import type { TextSearchConfig } from '../../../src/search/text-search-configs.ts';
import { sqlString } from '../json-sql.ts';

/** The language of a statement: a constant, or (`dynamic`) a SQL expression of regconfig. */
export type StatementLanguage = TextSearchConfig | { dynamic: string };

/** A category's name (`category`: an alias of categories) in the language. */
export function categoryName(category: string, language: StatementLanguage): string {
  if (language === 'english') return `${category}.name`;
  const config =
    typeof language === 'string' ? `${sqlString(language)}::regconfig` : language.dynamic;
  return `coalesce((select t.name from category_translations t
                     where t.slug = ${category}.slug and t.search_config = ${config}),
                   ${category}.name)`;
}

/** `(values …) as alias(english, local)` of a table, or a relation of no rows when it is empty. */
function valuesOf(table: ReadonlyMap<string, string>, alias: string): string {
  if (table.size === 0)
    return `(select null::text, null::text where false) as ${alias}(english, local)`;
  const rows = [...table].map(([english, local]) => `(${sqlString(english)}, ${sqlString(local)})`);
  return `(values ${rows.join(', ')}) as ${alias}(english, local)`;
}

/**
 * Columns `local_name` and `local_unit` of a property row `row` in the language, and the joins
 * they read (to follow the row's FROM).
 */
export function localisedPropertyColumns(row: string, language: TextSearchConfig) {
  if (language === 'english') {
    return { columns: `${row}.name as local_name, ${row}.unit as local_unit`, joins: '' };
  }
  const { names, units } = translationsIn(language);
  return {
    columns: `coalesce(pn.local, ${row}.name) as local_name, coalesce(pu.local, ${row}.unit) as local_unit`,
    joins: `left join ${valuesOf(names, 'pn')} on pn.english = ${row}.name
            left join ${valuesOf(units, 'pu')} on pu.english = ${row}.unit`,
  };
}
