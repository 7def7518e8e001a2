/**
 * GraphQL documents for REST routes, built as AST from a route's operation shape and the
 * GraphQL paths its chosen fields need. Each document is validated once, then cached by the
 * route and the normalised choice of fields.
 */
import {
  Kind,
  OperationTypeNode,
  parse,
  validate,
  visit,
  type DocumentNode,
  type FieldNode,
  type GraphQLSchema,
  type SelectionSetNode,
  type VariableDefinitionNode,
} from 'graphql';
import { pathSegments } from './resources.ts';

export interface OperationShape {
  /** Variable definitions, e.g. `$market: Market!, $first: Int`. */
  variables: string;
  /** The root field with its arguments, e.g. `products(market: $market, first: $first)`. */
  root: string;
  /** Paths from the root field the envelope needs, e.g. `pageInfo.hasNextPage`. */
  envelope: string[];
  /** Path from the root field to the items (e.g. `edges.node`); '' when the root is the item. */
  items: string;
}

interface SelectionTree {
  children: Map<string, SelectionTree>;
}

const fieldTemplates = new Map<string, FieldNode>();

/** A field node (name, alias, arguments) for a path segment such as `offers(first: 100)`. */
function fieldTemplate(segment: string): FieldNode {
  let template = fieldTemplates.get(segment);
  if (!template) {
    const document = parse(`{ ${segment} }`, { noLocation: true });
    const operation = document.definitions[0];
    if (operation?.kind !== Kind.OPERATION_DEFINITION) throw new Error(`bad segment ${segment}`);
    template = operation.selectionSet.selections[0] as FieldNode;
    fieldTemplates.set(segment, template);
  }
  return template;
}

function addPath(tree: SelectionTree, path: string): void {
  let node = tree;
  for (const segment of pathSegments(path)) {
    let child = node.children.get(segment);
    if (!child) node.children.set(segment, (child = { children: new Map() }));
    node = child;
  }
}

function selectionSet(tree: SelectionTree): SelectionSetNode {
  return {
    kind: Kind.SELECTION_SET,
    selections: [...tree.children].map(([segment, child]) => {
      const template = fieldTemplate(segment);
      return child.children.size > 0
        ? { ...template, selectionSet: selectionSet(child) }
        : template;
    }),
  };
}

function variableDefinitions(variables: string): readonly VariableDefinitionNode[] {
  const document = parse(`query Rest(${variables}) { __typename }`, { noLocation: true });
  const operation = document.definitions[0];
  if (operation?.kind !== Kind.OPERATION_DEFINITION) throw new Error('bad variables');
  return operation.variableDefinitions ?? [];
}

function variablesUsed(node: SelectionSetNode): Set<string> {
  const used = new Set<string>();
  visit(node, { Variable: (variable) => void used.add(variable.name.value) });
  return used;
}

export function buildDocument(shape: OperationShape, itemPaths: readonly string[]): DocumentNode {
  const root: SelectionTree = { children: new Map() };
  const prefix = shape.items === '' ? shape.root : `${shape.root}.${shape.items}`;
  // The root field is always selected, so an empty choice of fields still pages correctly.
  addPath(root, `${prefix}.__typename`);
  for (const path of shape.envelope) addPath(root, `${shape.root}.${path}`);
  for (const path of itemPaths) addPath(root, `${prefix}.${path}`);
  const selections = selectionSet(root);
  // A choice of fields may leave a variable unused (offer paging without offers), and
  // GraphQL rejects documents that define a variable they do not use.
  const used = variablesUsed(selections);
  return {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: OperationTypeNode.QUERY,
        name: { kind: Kind.NAME, value: 'Rest' },
        variableDefinitions: variableDefinitions(shape.variables).filter((definition) =>
          used.has(definition.variable.name.value),
        ),
        selectionSet: selections,
      },
    ],
  };
}

/** Documents by route and choice of fields, validated against the schema when first built. */
export class DocumentCache {
  private readonly documents = new Map<string, DocumentNode>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly limit = 2000,
  ) {}

  get(key: string, build: () => DocumentNode): DocumentNode {
    let document = this.documents.get(key);
    if (!document) {
      document = build();
      const errors = validate(this.schema, document);
      if (errors.length > 0) {
        throw new Error(
          `REST document for ${key} is invalid: ${errors.map((e) => e.message).join('; ')}`,
        );
      }
      // Choices of fields are bounded per route, but not tightly: keep the cache bounded too.
      if (this.documents.size >= this.limit)
        this.documents.delete(this.documents.keys().next().value!);
      this.documents.set(key, document);
    }
    return document;
  }
}
