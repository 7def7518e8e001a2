/**
 * The table columns a query's selection needs, derived once from the resolve info: each field
 * of a row-backed type declares the columns its resolver reads (`columns(...)` in its
 * extensions), and a loader reads the union of what the selected fields declare, so a page of
 * offers asking for a price does not carry every offer's six timestamps and URL.
 *
 * Fragments, inline fragments and @skip/@include count as execution counts them (graphql-tools'
 * field collection, graphql-js's algorithm, does the walk; deferred fragments count too). A selection is the same for every item of a list, so it
 * is computed once per field node list and request (the arrays are shared by every item, in
 * graphql-js and in compiled execution alike).
 */
import { collectSubFields } from '@graphql-tools/utils';
import {
  getNamedType,
  isObjectType,
  type FieldNode,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from 'graphql';

const COLUMNS_EXTENSION = 'columns';

/** A field's extensions declaring the columns its resolver reads from its parent's row. */
export function columns<Column extends string>(
  ...names: Column[]
): { extensions: { [COLUMNS_EXTENSION]: readonly Column[] } } {
  return { extensions: { [COLUMNS_EXTENSION]: names } };
}

/** The columns a field declares (`columns(...)`); none for a field that declares none. */
export function declaredColumns(field: { extensions?: Readonly<Record<string, unknown>> | null }) {
  return (field.extensions?.[COLUMNS_EXTENSION] as readonly string[] | undefined) ?? [];
}

/**
 * A row-backed type: its name in the schema. The repositories read the keys their loaders
 * need whatever is selected; the columns here are those the selected fields declare.
 */
export interface RowType<Column extends string> {
  typeName: string;
  /** Only for inference: the table's column names. */
  readonly columns?: readonly Column[];
}

/**
 * The fields of `type` the nodes select, by response key: fragments spread, directives
 * applied, and the fields of deferred fragments (`patches`) with the rest.
 */
export function subFieldGroups(
  info: Pick<GraphQLResolveInfo, 'schema' | 'fragments'>,
  variables: Record<string, unknown>,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
): Map<string, FieldNode[]> {
  const collected = collectSubFields(
    info.schema,
    info.fragments,
    variables,
    type,
    nodes as FieldNode[],
  );
  const groups = new Map(collected.fields);
  for (const patch of collected.patches) {
    for (const [key, group] of patch.fields)
      groups.set(key, [...(groups.get(key) ?? []), ...group]);
  }
  return groups;
}

/**
 * The fields selected below the current field, where the object of `typeName` is: at the
 * field itself, or down a path of fields (`['edges', 'node']` for a connection's items).
 */
function selectedFieldNodes(
  info: GraphQLResolveInfo,
  path: readonly string[],
): { type: GraphQLObjectType; fields: Map<string, readonly FieldNode[]> } | undefined {
  let type = getNamedType(info.returnType);
  let nodes: readonly FieldNode[] = info.fieldNodes;
  for (const step of [...path, undefined]) {
    if (!isObjectType(type)) return undefined;
    const fields = subFieldGroups(info, info.variableValues, type, nodes);
    if (step === undefined) return { type, fields };
    const stepNodes = [...fields.values()].flatMap((group) =>
      group[0]!.name.value === step ? group : [],
    );
    if (stepNodes.length === 0) return undefined;
    type = getNamedType(type.getFields()[step]!.type);
    nodes = stepNodes;
  }
  return undefined;
}

/** Where a connection's items are in its selection. */
export const CONNECTION_ITEMS = [['edges', 'node']] as const;

/** Per field node list and request: per row type and paths, the columns (see above). */
const cache = new WeakMap<
  readonly FieldNode[],
  WeakMap<object, Map<RowType<string>, Map<readonly (readonly string[])[], string[]>>>
>();

const AT_THE_FIELD = [[]] as const;

/**
 * The sorted columns of `rowType` the selection needs at the end of each path (the field
 * itself by default; CONNECTION_ITEMS for a connection).
 * Row types and paths are module constants: they key the cache by identity.
 */
export function selectedColumns<Column extends string>(
  info: GraphQLResolveInfo,
  rowType: RowType<Column>,
  paths: readonly (readonly string[])[] = AT_THE_FIELD,
): Column[] {
  let byRequest = cache.get(info.fieldNodes);
  if (!byRequest) cache.set(info.fieldNodes, (byRequest = new WeakMap()));
  let byRowType = byRequest.get(info.variableValues);
  if (!byRowType) byRequest.set(info.variableValues, (byRowType = new Map()));
  let byPaths = byRowType.get(rowType);
  if (!byPaths) byRowType.set(rowType, (byPaths = new Map()));
  const known = byPaths.get(paths);
  if (known) return known as Column[];

  const wanted = new Set<string>();
  for (const path of paths) {
    const selected = selectedFieldNodes(info, path);
    if (selected?.type.name !== rowType.typeName) continue;
    const fields = selected.type.getFields();
    for (const group of selected.fields.values()) {
      const field = fields[group[0]!.name.value];
      for (const column of field ? declaredColumns(field) : []) wanted.add(column);
    }
  }
  const result = [...wanted].sort();
  byPaths.set(paths, result);
  return result as Column[];
}
