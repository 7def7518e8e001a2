/**
 * Executes the REST layer's documents through code graphql-jit compiles once per document:
 * about 1.5× the throughput of graphql-js's interpreter on REST pages (docs/benchmarks.md).
 *
 * Only documents the gateway built and validated itself take this path. Client documents on
 * /graphql stay on graphql-js, because compiled execution differs there: its errors carry
 * locations but no AST nodes, so yoga's response drops their locations; and the plugin caches
 * compiled code per document whatever `operationName` asks for, so a document of several
 * operations would run the wrong one. REST documents have one operation and answer errors
 * without locations.
 */
import { useGraphQlJit } from '@envelop/graphql-jit';
import type { DocumentNode } from 'graphql';

const compilable = new WeakSet<DocumentNode>();

export function allowCompiledExecution(document: DocumentNode): void {
  compilable.add(document);
}

export const useCompiledExecution = () =>
  useGraphQlJit({}, { enableIf: (args) => compilable.has(args.document) });
