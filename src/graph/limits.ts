/**
 * Bounds on every GraphQL document before it runs, each configurable (README, docs/api.md
 * "Limits"): its size in tokens while it is parsed, its depth, aliases and directives while
 * it is validated (graphql-armor's rules), and its cost (Pothos's complexity: page sizes
 * multiply what is selected below them) just before execution, with the request's
 * variables. A document beyond a bound is refused with QUERY_TOO_COMPLEX (400) naming it,
 * and nothing of it is executed; so is one with an argument out of its field's bounds
 * (BAD_USER_INPUT, ./argument-bounds.ts). Bodies are bounded in size by ./body-size.ts, in kind
 * here: JSON, never an upload.
 *
 * The REST routes build their documents as AST and execute them directly (no parse, no
 * validation): only the cost bound applies to them, and test/graph/limits.test.ts holds every
 * route's largest document to all the bounds, so the same document sent to /graphql passes.
 */
import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { maxDirectivesPlugin } from '@escape.tech/graphql-armor-max-directives';
import { maxTokensPlugin } from '@escape.tech/graphql-armor-max-tokens';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import {
  getOperationAST,
  GraphQLError,
  Kind,
  type DefinitionNode,
  type DocumentNode,
  type ExecutionArgs,
  type ValidationRule,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { Config } from '../config.ts';
import { serviceError, withBoundedMessage } from '../errors.ts';
import { useArgumentBounds } from './argument-bounds.ts';
import type { PageLimits } from './pagination.ts';

export type DocumentLimits = Pick<
  Config,
  | 'graphqlMaxDepth'
  | 'graphqlMaxAliases'
  | 'graphqlMaxTokens'
  | 'graphqlMaxDirectives'
  | 'graphqlMaxCost'
>;

/** Why a document was refused: `details[0].reason` of its QUERY_TOO_COMPLEX error. */
type LimitReason =
  'too_many_tokens' | 'too_deep' | 'too_many_aliases' | 'too_many_directives' | 'too_costly';

function tooComplex(reason: LimitReason, message: string): GraphQLError {
  return serviceError('QUERY_TOO_COMPLEX', message, [{ parameter: 'query', reason }]);
}

/**
 * graphql-armor reports a bound as a "Syntax Error" and, from a validation rule, as one more
 * validation error (answered 200 to `application/json` clients): thrown as our own error
 * instead, it stops parsing or validation at once and is a 400 for every client.
 */
function refuse(reason: LimitReason) {
  return {
    propagateOnRejection: false,
    onReject: [
      (_context: unknown, error: GraphQLError) => {
        throw tooComplex(reason, error.message.replace(/^Syntax Error: /, ''));
      },
    ],
  };
}

/** The yoga plugins enforcing the bounds, in the order a request meets them. */
export function useDocumentLimits(limits: DocumentLimits): Plugin[] {
  return [
    maxTokensPlugin({ n: limits.graphqlMaxTokens, ...refuse('too_many_tokens') }),
    useNestingGuard(),
    // Depth is the nesting of fields, what resolvers descend: a fragment is not a level of its
    // own. Introspection (GraphiQL's nests `ofType` nine deep) only reads the schema.
    maxDepthPlugin({
      n: limits.graphqlMaxDepth,
      flattenFragments: true,
      ignoreIntrospection: true,
      ...refuse('too_deep'),
    }),
    maxAliasesPlugin({ n: limits.graphqlMaxAliases, ...refuse('too_many_aliases') }),
    maxDirectivesPlugin({ n: limits.graphqlMaxDirectives, ...refuse('too_many_directives') }),
    { onValidate: ({ addValidationRule }) => addValidationRule(knownOperationTypes) },
    // Also before the cost: an out-of-range page is refused naming its argument.
    useArgumentBounds(),
    useBoundedValidationMessages(),
    useCostLimit(limits.graphqlMaxCost),
  ];
}

/** The POST bodies /graphql reads; anything else (a multipart upload, say) is a 415. */
export function useJsonBodiesOnly(): Plugin {
  return {
    onRequestParse({ request, requestParser }) {
      if (request.method !== 'POST' || requestParser !== undefined) return;
      throw serviceError(
        'UNSUPPORTED_MEDIA_TYPE',
        'Send the operation as JSON (application/json): this API takes no uploads.',
      );
    },
  };
}

/**
 * yoga reads `variables` and `extensions` from a query string or a form with a bare
 * JSON.parse, whose SyntaxError it would pass on as an unexpected error (a 500): the client
 * sent them, so they are a 400 naming what they must be.
 */
export function useJsonParameters(): Plugin {
  return {
    onRequestParse({ requestParser, setRequestParser }) {
      if (requestParser === undefined) return;
      setRequestParser(async (request) => {
        try {
          return await requestParser(request);
        } catch (error) {
          if (!(error instanceof SyntaxError)) throw error;
          throw serviceError('BAD_REQUEST', '`variables` and `extensions` must be JSON objects.');
        }
      });
    },
  };
}

/**
 * The parser descends once per nesting level: past a few thousand levels (`{a{a{…` or
 * `[[[…`) the stack runs out. The token bound keeps documents far shallower than that; this
 * guard makes a larger configured bound still answer 400, never 500.
 */
function useNestingGuard(): Plugin {
  return {
    onParse({ parseFn, setParseFn }) {
      setParseFn((source, options) => {
        try {
          return parseFn(source, options);
        } catch (error) {
          if (!(error instanceof RangeError)) throw error;
          throw tooComplex('too_deep', 'Document nested too deeply to parse.');
        }
      });
    },
  };
}

/** Validation errors name what they did not find: never at the length the client sent it. */
function useBoundedValidationMessages(): Plugin {
  return {
    onValidate:
      () =>
      ({ result, setResult }) =>
        setResult(
          result.map((error) =>
            error instanceof GraphQLError ? withBoundedMessage(error) : error,
          ),
        ),
  };
}

/**
 * graphql-js 16 validates `mutation { … }` against a schema without mutations (v17's
 * KnownOperationTypesRule refuses it), and execution then fails as a defect of ours.
 */
const knownOperationTypes: ValidationRule = (context) => ({
  OperationDefinition(operation) {
    if (context.getSchema().getRootType(operation.operation)) return;
    throw serviceError(
      'BAD_USER_INPUT',
      `This API answers queries and subscriptions: it has no ${operation.operation} type.`,
      [{ parameter: 'query', reason: 'unsupported_operation' }],
    );
  },
});

/** Costs remembered per document; past this many variable sets, a document's are forgotten. */
const MAX_COSTS_PER_DOCUMENT = 64;

/**
 * Refuses an operation whose cost is over the budget before anything of it runs. The cost
 * needs the variables (`first: $first`), so it is taken per execution, not per document; it
 * walks each selection set once. No field's cost reads the context, so a cost is a function of
 * the document (the same object for the same text: yoga's parse cache, the REST engine's
 * documents), the operation and the variables, and is remembered for them.
 */
function useCostLimit(maxCost: number): Plugin {
  const costs = new WeakMap<DocumentNode, Map<string, number | undefined>>();
  function rememberedCostOf(args: ExecutionArgs): number | undefined {
    const key = costKey(args);
    if (key === undefined) return costOf(args);
    let known = costs.get(args.document);
    if (known?.has(key)) return known.get(key);
    const cost = costOf(args);
    if (known === undefined || known.size >= MAX_COSTS_PER_DOCUMENT) {
      known = new Map();
      costs.set(args.document, known);
    }
    known.set(key, cost);
    return cost;
  }
  return {
    onExecute({ args, setResultAndStopExecution }) {
      const cost = rememberedCostOf(args);
      if (cost === undefined || cost <= maxCost) return;
      setResultAndStopExecution({
        errors: [
          tooComplex(
            'too_costly',
            `Query cost limit of ${maxCost} exceeded, found ${cost}: ask for smaller pages or fewer fields.`,
          ),
        ],
      });
    },
  };
}

/**
 * The operation and its variables as a key; none for variables nested past what serialising
 * them allows (a hostile request), whose cost is then taken without remembering it.
 */
function costKey({ operationName, variableValues }: ExecutionArgs): string | undefined {
  try {
    return `${operationName ?? ''}\u0000${JSON.stringify(variableValues ?? {})}`;
  } catch {
    return undefined;
  }
}

/** The cost of the operation to execute; undefined when execution itself will refuse it. */
function costOf({ document, operationName, schema, contextValue, variableValues }: ExecutionArgs) {
  const operation = getOperationAST(document, operationName);
  if (!operation) return undefined;
  const fragments = document.definitions.filter(
    (definition: DefinitionNode) => definition.kind === Kind.FRAGMENT_DEFINITION,
  );
  try {
    return complexityFromQuery(
      { kind: Kind.DOCUMENT, definitions: [operation, ...fragments] },
      { schema, ctx: contextValue as object, variables: variableValues ?? {} },
    ).complexity;
  } catch (error) {
    // Variables that do not fit the operation: execution reports them before any resolver.
    if (error instanceof GraphQLError) return undefined;
    throw error;
  }
}

/**
 * A connection's cost: its selection counts once per item of the page asked for. A page over
 * the maximum counts as the maximum, so that the argument's own error (BAD_USER_INPUT naming
 * `first`) is the one the client sees.
 */
export function pageCost(
  limits: PageLimits,
  args: { first?: number | null; last?: number | null },
  listed = Number.POSITIVE_INFINITY,
) {
  const size = args.first ?? args.last ?? limits.defaultSize;
  return { field: 1, multiplier: Math.max(0, Math.min(size, limits.maxSize, listed)) };
}
