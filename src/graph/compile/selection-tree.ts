/**
 * The selection below a root field as a tree of fields, the way execution collects it
 * (fragments, inline fragments and @skip/@include: graphql-tools' field collection, as
 * ../selection.ts uses it). Collected once per field node list and per value of the variables
 * the directives read, so a document's shape is walked once, whatever its other variables.
 */
import { subFieldGroups } from '../selection.ts';
import {
  getNamedType,
  isObjectType,
  type FieldNode,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLResolveInfo,
} from 'graphql';

export interface SelectedField {
  /** The response key: the alias, or the field's name. */
  key: string;
  definition: GraphQLField<unknown, unknown>;
  /** Every node of the key (equal arguments: validation makes sure). */
  nodes: readonly FieldNode[];
  /** The selection below, for a field of an object type; undefined when it cannot compile. */
  selection?: Selection | undefined;
}

export interface Selection {
  type: GraphQLObjectType;
  fields: SelectedField[];
}

type Variables = Record<string, unknown>;

/**
 * Deferred fragments count as they are (the statement reads them with the rest; the executor
 * delivers them later from the same values), as do streamed lists.
 */
function collect(
  info: GraphQLResolveInfo,
  variables: Variables,
  type: GraphQLObjectType,
  nodes: readonly FieldNode[],
): Selection {
  const groups = subFieldGroups(info, variables, type, nodes);
  const definitions = type.getFields();
  const fields: SelectedField[] = [];
  for (const [key, group] of groups) {
    const definition = definitions[group[0]!.name.value];
    // __typename: the executor answers it from the type, without a resolver.
    if (definition === undefined) continue;
    const named = getNamedType(definition.type);
    const selection = isObjectType(named) ? collect(info, variables, named, group) : undefined;
    fields.push({ key, definition, nodes: group, selection });
  }
  return { type, fields };
}

interface Collected {
  /** The variables the directives read, with the values they had. */
  read: [string, unknown][];
  selection: Selection | undefined;
}

/** Shapes kept per field node list: directives on variables make a few at most. */
const MAX_SHAPES = 8;
const shapes = new WeakMap<readonly FieldNode[], Collected[]>();

/** The selection of the root field `info` resolves; undefined for one not of an object type. */
export function selectionOf(info: GraphQLResolveInfo): Selection | undefined {
  const variables = info.variableValues;
  let known = shapes.get(info.fieldNodes);
  if (known === undefined) shapes.set(info.fieldNodes, (known = []));
  for (const entry of known) {
    if (entry.read.every(([name, value]) => variables[name] === value)) return entry.selection;
  }
  const read = new Map<string, unknown>();
  const note = (name: string | symbol) => {
    if (typeof name === 'string') read.set(name, variables[name]);
  };
  const watched = new Proxy(variables, {
    get: (target, name) => (note(name), Reflect.get(target, name)),
    has: (target, name) => (note(name), Reflect.has(target, name)),
    getOwnPropertyDescriptor: (target, name) => (
      note(name),
      Reflect.getOwnPropertyDescriptor(target, name)
    ),
  });
  const type = getNamedType(info.returnType);
  const selection = isObjectType(type) ? collect(info, watched, type, info.fieldNodes) : undefined;
  if (known.length >= MAX_SHAPES) known.shift();
  known.push({ read: [...read], selection });
  return selection;
}
