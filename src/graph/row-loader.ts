/**
 * Per-request loaders of rows by id that read only the columns a selection needs
 * (selection.ts). Keys asking for different columns still share one statement per batch, which
 * reads the union; identical keys are loaded once per request. Node lookups by global id keep
 * the types' own loaders, which read whole rows: a client cannot name columns through an id.
 */
import { createContextCache } from '@pothos/core';
import DataLoader from 'dataloader';
import type { RequestContext } from '../context.ts';
import { loaderOptions } from './batching.ts';
import { oneByKey } from './grouping.ts';

export interface RowKey<Column extends string> {
  id: number;
  /** Sorted, as selectedColumns gives them: equal selections make equal cache keys. */
  columns: readonly Column[];
}

/** The columns any key of a batch asked for (each key's list given), in a stable order. */
export function unionOfColumns<Column extends string>(
  lists: readonly (readonly Column[])[],
): readonly Column[] {
  // Keys of one place in the query share selectedColumns' (sorted) list: the usual batch.
  const [first = []] = lists;
  if (lists.every((list) => list === first)) return first;
  return [...new Set(lists.flat())].sort();
}

export function rowLoader<Row extends { id: number }, Column extends string>(
  find: (context: RequestContext, ids: number[], columns: readonly Column[]) => Promise<Row[]>,
): (context: RequestContext) => DataLoader<RowKey<Column>, Row | null, string> {
  return createContextCache(
    (context: RequestContext) =>
      new DataLoader<RowKey<Column>, Row | null, string>(
        async (keys) => {
          const ids = [...new Set(keys.map((key) => key.id))];
          const rows = await find(context, ids, unionOfColumns(keys.map((key) => key.columns)));
          return oneByKey(
            keys.map((key) => key.id),
            rows,
            (row) => row.id,
          );
        },
        loaderOptions({ cacheKeyFn: (key: RowKey<Column>) => `${key.id}/${key.columns.join()}` }),
      ),
  );
}
