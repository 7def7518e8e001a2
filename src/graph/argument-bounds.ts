/**
 * Bounds on integer arguments (a page's `first`, `priceHistory(days:)`), declared once on
 * their field's `extensions` and checked before anything of the request runs: literal values
 * by a validation rule, values given as variables just before execution, once the variables
 * are known. An out-of-range argument fails the whole request (BAD_USER_INPUT naming it, a
 * 400, no `data`) instead of nulling the field and whatever non-null parent holds it.
 *
 * The resolvers keep their own check (`checkBound`) with the same declaration: the REST
 * routes execute their documents without validation.
 */
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  TypeInfo,
  valueFromAST,
  visit,
  visitWithTypeInfo,
  type ArgumentNode,
  type ASTVisitor,
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { badUserInput } from '../errors.ts';

/** The inclusive range an integer argument must lie in. */
export interface IntegerBound {
  min: number;
  max: number;
}

/** A field's bounded arguments, by name. */
export type ArgumentBounds = Readonly<Record<string, IntegerBound>>;

const BOUNDS_EXTENSION = 'argumentBounds';

/** The `extensions` of a field whose arguments are bounded: `extensions: boundedArguments(…)`. */
export function boundedArguments(bounds: ArgumentBounds) {
  return { [BOUNDS_EXTENSION]: bounds };
}

function boundsOf(field: GraphQLField<unknown, unknown>): ArgumentBounds | undefined {
  return field.extensions[BOUNDS_EXTENSION] as ArgumentBounds | undefined;
}

/** The error for a value outside its bound; none for one inside, or none given (null). */
function outOfBound(name: string, value: unknown, bound: IntegerBound): GraphQLError | undefined {
  if (typeof value !== 'number' || (value >= bound.min && value <= bound.max)) return undefined;
  return badUserInput(
    `${name} must be between ${bound.min} and ${bound.max}`,
    name,
    'out_of_range',
  );
}

/** The resolvers' check: throws the same error the request would have been refused with. */
export function checkBound(name: string, value: number | null | undefined, bound: IntegerBound) {
  const error = outOfBound(name, value, bound);
  if (error) throw error;
}

/**
 * The error located at the argument. Like every error with one of our codes it is a 400 for
 * every client: yoga would mark one found by validation as GraphQL over HTTP's (a 200 to
 * `application/json` clients), so it is marked as not.
 */
function locatedError(error: GraphQLError, argument: ArgumentNode): GraphQLError {
  const http = { ...(error.extensions.http as object), spec: false };
  return new GraphQLError(error.message, {
    nodes: argument,
    extensions: { ...error.extensions, http },
  });
}

/**
 * The first bounded argument of a field selection that is out of range, located at the
 * argument. Without `variables` (validation), arguments given as variables are not known
 * yet and pass; a literal of the wrong type is left to graphql-js's own rules.
 */
function violationAt(
  field: GraphQLField<unknown, unknown>,
  node: FieldNode,
  variables?: Record<string, unknown>,
): GraphQLError | undefined {
  const bounds = boundsOf(field);
  if (bounds === undefined) return undefined;
  for (const argument of node.arguments ?? []) {
    const name = argument.name.value;
    const bound = bounds[name];
    const definition = field.args.find((arg) => arg.name === name);
    if (bound === undefined || definition === undefined) continue;
    const error = outOfBound(name, valueFromAST(argument.value, definition.type, variables), bound);
    if (error) return locatedError(error, argument);
  }
  return undefined;
}

/** Validation: every literal argument within its field's bounds, in operations and fragments. */
export const argumentBoundsRule: ValidationRule = (context) => ({
  Field(node) {
    const field = context.getFieldDef();
    const error = field && violationAt(field, node);
    if (error) context.reportError(error);
  },
});

/** A bounded field selected with some argument given as a variable. */
interface VariableBoundedSelection {
  field: GraphQLField<unknown, unknown>;
  node: FieldNode;
}

/**
 * The selections of the operation to execute (its fragments included) whose bounded arguments
 * include a variable: found once per document and operation, since a document is executed
 * many times with other variables; most have none, and then nothing is checked per request.
 */
const variableSelections = new WeakMap<DocumentNode, Map<string, VariableBoundedSelection[]>>();

function selectionsWithVariableBounds(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
): VariableBoundedSelection[] {
  let byOperation = variableSelections.get(document);
  if (!byOperation) variableSelections.set(document, (byOperation = new Map()));
  const key = operation.name?.value ?? '';
  const known = byOperation.get(key);
  if (known) return known;
  const typeInfo = new TypeInfo(schema);
  const found: VariableBoundedSelection[] = [];
  const visitor: ASTVisitor = {
    Field(node) {
      const field = typeInfo.getFieldDef();
      const bounds = field && boundsOf(field);
      const boundVariable = node.arguments?.some(
        (argument) =>
          bounds?.[argument.name.value] !== undefined && argument.value.kind === Kind.VARIABLE,
      );
      if (field && boundVariable) found.push({ field, node });
    },
  };
  const executed = document.definitions.filter(
    (definition) => definition === operation || definition.kind === Kind.FRAGMENT_DEFINITION,
  );
  visit({ kind: Kind.DOCUMENT, definitions: executed }, visitWithTypeInfo(typeInfo, visitor));
  byOperation.set(key, found);
  return found;
}

/**
 * The first argument given as a variable that is out of range in the operation to execute;
 * none when the variables do not fit the operation, which execution reports itself.
 */
function variableViolation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  inputs: Record<string, unknown>,
): GraphQLError | undefined {
  const operation = getOperationAST(document, operationName);
  if (!operation?.variableDefinitions?.length) return undefined;
  const selections = selectionsWithVariableBounds(schema, document, operation);
  if (selections.length === 0) return undefined;
  const { coerced } = getVariableValues(schema, operation.variableDefinitions, inputs);
  if (coerced === undefined) return undefined;
  for (const { field, node } of selections) {
    const error = violationAt(field, node, coerced);
    if (error) return error;
  }
  return undefined;
}

/** Refuses literal arguments out of range while validating, variables' values before execution. */
export function useArgumentBounds(): Plugin {
  return {
    onValidate: ({ addValidationRule }) => addValidationRule(argumentBoundsRule),
    // The variables differ per request while a validated document is cached: their values
    // are checked per execution, before any resolver.
    onExecute({ args, setResultAndStopExecution }) {
      const error = variableViolation(
        args.schema,
        args.document,
        args.operationName,
        args.variableValues ?? {},
      );
      if (error) setResultAndStopExecution({ errors: [error] });
    },
  };
}
