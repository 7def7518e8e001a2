/**
 * Relay artifacts (a ConcreteRequest) for a GraphQL operation, built from the document and the
 * schema as relay-compiler builds them for a query without fragment spreads (no compiler runs
 * in these tests). The document must select `id` on every node and `__typename` under an
 * abstract type itself, as relay-compiler would add them: the store then normalizes records
 * by their global ids, as a Relay app's store does.
 */
import {
  getNamedType,
  getNullableType,
  GraphQLList,
  isAbstractType,
  isLeafType,
  Kind,
  parse,
  print,
  type GraphQLCompositeType,
  type GraphQLSchema,
  type GraphQLType,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import type { ConcreteRequest } from 'relay-runtime';

type Selection = Record<string, unknown>;

function argumentOf(name: string, value: ValueNode): Selection {
  if (value.kind === Kind.VARIABLE) {
    return { kind: 'Variable', name, variableName: value.name.value };
  }
  const literal =
    value.kind === Kind.INT
      ? Number(value.value)
      : value.kind === Kind.STRING || value.kind === Kind.ENUM
        ? value.value
        : null;
  return { kind: 'Literal', name, value: literal };
}

/** The selection set as Relay's normalization AST, with the ids Relay would add. */
function selectionsOf(
  schema: GraphQLSchema,
  parent: GraphQLCompositeType,
  set: SelectionSetNode,
): Selection[] {
  const selections: Selection[] = [];
  for (const node of set.selections) {
    if (node.kind === Kind.INLINE_FRAGMENT) {
      const type = schema.getType(node.typeCondition!.name.value) as GraphQLCompositeType;
      selections.push({
        kind: 'InlineFragment',
        type: type.name,
        abstractKey: isAbstractType(type) ? `__is${type.name}` : null,
        selections: selectionsOf(schema, type, node.selectionSet),
      });
      continue;
    }
    if (node.kind !== Kind.FIELD) throw new Error('no fragment spreads here');
    const name = node.name.value;
    const fields = (
      parent as unknown as { getFields(): Record<string, { type: GraphQLType }> }
    ).getFields();
    const fieldType = name === '__typename' ? undefined : fields[name]!.type;
    const args = node.arguments?.length
      ? node.arguments.map((argument) => argumentOf(argument.name.value, argument.value))
      : null;
    const base = { alias: node.alias?.value ?? null, name, args, storageKey: null };
    const named = fieldType === undefined ? undefined : getNamedType(fieldType);
    if (named === undefined || isLeafType(named)) {
      selections.push({ kind: 'ScalarField', ...base });
      continue;
    }
    selections.push({
      kind: 'LinkedField',
      ...base,
      concreteType: isAbstractType(named) ? null : named.name,
      plural: getNullableType(fieldType!) instanceof GraphQLList,
      selections: selectionsOf(schema, named as GraphQLCompositeType, node.selectionSet!),
    });
  }
  return selections;
}

export function relayRequest(schema: GraphQLSchema, text: string): ConcreteRequest {
  const document = parse(text);
  const operation = document.definitions[0];
  if (operation?.kind !== Kind.OPERATION_DEFINITION || !operation.name) {
    throw new Error('one named operation');
  }
  const name = operation.name.value;
  const argumentDefinitions = (operation.variableDefinitions ?? []).map((definition) => ({
    kind: 'LocalArgument',
    name: definition.variable.name.value,
    defaultValue: null,
  }));
  const selections = selectionsOf(schema, schema.getQueryType()!, operation.selectionSet);
  return {
    kind: 'Request',
    fragment: {
      kind: 'Fragment',
      name,
      type: 'Query',
      abstractKey: null,
      metadata: null,
      argumentDefinitions,
      selections,
    },
    operation: { kind: 'Operation', name, argumentDefinitions, selections },
    params: {
      id: null,
      cacheID: name,
      metadata: {},
      name,
      operationKind: 'query',
      text: print(document),
    },
  } as unknown as ConcreteRequest;
}
