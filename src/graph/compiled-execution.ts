/**
 * Executes documents through code graphql-jit compiles once per document: 1.5–2× the
 * throughput of graphql-js's interpreter on catalogue pages (docs/benchmarks.md), for the REST
 * layer's documents and client documents on /graphql alike. Where compiled execution answers
 * differently from graphql-js, this plugin closes the gap:
 *
 * - the plugin keeps one compiled query per document whatever `operationName` asks for, so a
 *   document holding several operations stays on graphql-js (it would run the wrong one);
 * - compiled execution's variable errors are terse ("Expected type Market."), so variables are
 *   checked by graphql-js first, and a request with a bad one is left to graphql-js, whose
 *   error names the offending value and the allowed ones;
 * - its errors carry locations but neither AST nodes nor source positions, from which yoga
 *   rebuilds every error it answers: they would lose their locations, so they are given the
 *   positions back;
 * - a list whose last items failed comes out shorter than asked (graphql-js: null in their
 *   place). A federation gateway matches `_entities` answers to its representations by
 *   position, so an operation asking for `_entities` stays on graphql-js
 *   (test/graph/federation.test.ts);
 * - it knows nothing of incremental delivery: a document carrying @defer or @stream runs on
 *   yoga's executor (@graphql-tools/executor), which delivers it in parts (for a client that
 *   takes no stream, ./incremental-delivery.ts has removed them by now: that one compiles).
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import {
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  type DocumentNode,
  type Source,
  type SourceLocation,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { selectsRootField } from '../graphql-root-fields.ts';
import { deliversIncrementally } from './incremental-delivery.ts';

function holdsOneOperation(document: DocumentNode): boolean {
  let operations = 0;
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) operations++;
  }
  return operations === 1;
}

/** The offset in the source text of a 1-based line and column (graphql-js's line breaks). */
function positionOf(body: string, { line, column }: SourceLocation): number {
  const lineBreak = /\r\n|[\n\r]/g;
  let lineStart = 0;
  for (let current = 1; current < line && lineBreak.exec(body); current++) {
    lineStart = lineBreak.lastIndex;
  }
  return lineStart + column - 1;
}

function withPositions(error: GraphQLError, source: Source): GraphQLError {
  if (error.positions !== undefined || !error.locations?.length) return error;
  return new GraphQLError(error.message, {
    source,
    positions: error.locations.map((location) => positionOf(source.body, location)),
    path: error.path,
    originalError: error.originalError,
    extensions: error.extensions,
  });
}

const ENTITIES = new Set(['_entities']);

export function useCompiledExecution(): Plugin {
  const compiled = useGraphQlJit();
  return {
    onExecute(payload) {
      const { args } = payload;
      if (!holdsOneOperation(args.document) || deliversIncrementally(args.document)) return;
      const operation = getOperationAST(args.document, args.operationName);
      if (operation && selectsRootField(args.document, operation.selectionSet, ENTITIES)) return;
      const definitions = operation?.variableDefinitions;
      if (definitions?.length) {
        const { errors } = getVariableValues(args.schema, definitions, args.variableValues ?? {});
        if (errors) return; // graphql-js executes and reports them
      }
      compiled.onExecute?.(payload); // sets the compiled execute function, synchronously
      // A document without incremental delivery's directives (./incremental-delivery.ts) has
      // no location of its own; its definitions keep theirs.
      const source = (args.document.loc ?? args.document.definitions[0]?.loc)?.source;
      return {
        onExecuteDone({ result, setResult }) {
          if (!source || !('errors' in result) || !result.errors?.length) return;
          setResult({ ...result, errors: result.errors.map((e) => withPositions(e, source)) });
        },
      };
    },
  };
}
