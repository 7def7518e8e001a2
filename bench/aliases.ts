/**
 * Documents asking for many ids at once through aliased root fields (`c0: category(id: $c0)
 * …`), each id its own variable: how PostGraphile's generated schema, which has no
 * "id in (…)", asks for 20 products, and how both systems ask for ten categories (P2).
 */

/** `count` aliased fields `<prefix>0` … and the declarations of their Int variables. */
export function aliasedFields(
  prefix: string,
  count: number,
  field: (variable: string) => string,
): { variables: string; fields: string } {
  const indexes = Array.from({ length: count }, (_, i) => i);
  return {
    variables: indexes.map((i) => `$${prefix}${i}: Int!`).join(', '),
    fields: indexes.map((i) => `${prefix}${i}: ${field(`$${prefix}${i}`)}`).join('\n  '),
  };
}

/** The values of those variables: `<prefix>0` the first id, and so on. */
export function aliasedValues(prefix: string, ids: readonly number[]): Record<string, number> {
  return Object.fromEntries(ids.map((id, i) => [`${prefix}${i}`, id]));
}
