/**
 * The rows of an answer, written the same way whichever schema it came from, so that the
 * gateway's answer and PostGraphile's (different shapes, field names and number types)
 * compare line by line: one line per category, product and offer, in the answer's order.
 */

/** A price as the column stores it (numeric(12,2)): 1299.5 and "1299.50" are one price. */
const cents = (price: number | string) => Number(price).toFixed(2);

export function categoryRow(id: number): string {
  return `category ${id}`;
}

/**
 * A product, and its category by id: the gateway names a category in the market's language,
 * PostGraphile as stored (English); both documents select the name.
 */
export function productRow(id: number, name: string, category?: { id: number }) {
  const of = category ? ` in category ${category.id}` : '';
  return `  product ${id} ${JSON.stringify(name)}${of}`;
}

export function offerRow(id: number, price: number | string, shop: { id: number; name: string }) {
  return `    offer ${id} at ${cents(price)} from shop ${shop.id} ${JSON.stringify(shop.name)}`;
}

export function nameRow(name: string): string {
  return `name ${JSON.stringify(name)}`;
}

/**
 * Where two lists of rows part, with a few rows of context, or undefined when they are the
 * same. `theirs` names the other system in the account.
 */
export function describeRowDifference(
  gateway: readonly string[],
  other: readonly string[],
  theirs: string,
): string | undefined {
  let row = 0;
  while (row < gateway.length && row < other.length && gateway[row] === other[row]) row += 1;
  if (row === gateway.length && row === other.length) return undefined;
  const excerpt = (rows: readonly string[]) =>
    rows
      .slice(Math.max(0, row - 2), row + 3)
      .map((line, index) => `${index + Math.max(0, row - 2) === row ? '⟦' : ' '} ${line}`)
      .join('\n');
  return [
    `rows differ at row ${row} (gateway ${gateway.length} rows, ${theirs} ${other.length})`,
    `  gateway:\n${excerpt(gateway)}`,
    `  ${theirs}:\n${excerpt(other)}`,
  ].join('\n');
}
