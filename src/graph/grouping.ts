/**
 * DataLoader batch functions must answer in key order, one result per key: these helpers
 * turn the flat rows of one SQL statement into that shape.
 */

/** One list per key (empty when a key has no rows), rows kept in statement order. */
export function groupByKey<K, R>(
  keys: readonly K[],
  rows: readonly R[],
  keyOf: (row: R) => K,
): R[][] {
  const groups = new Map<K, R[]>();
  for (const row of rows) {
    const key = keyOf(row);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    group.push(row);
  }
  return keys.map((key) => groups.get(key) ?? []);
}

/** One row or null per key. */
export function oneByKey<K, R>(
  keys: readonly K[],
  rows: readonly R[],
  keyOf: (row: R) => K,
): (R | null)[] {
  const byKey = new Map(rows.map((row) => [keyOf(row), row]));
  return keys.map((key) => byKey.get(key) ?? null);
}
