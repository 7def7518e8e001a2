/**
 * Whether a request's root fields run compiled (./root-fields.ts). On unless the app is built
 * with COMPILED_SELECTIONS=false (the equivalence test's resolver path) or without DataLoader
 * batching (the benchmark's naive floor, a statement per row), which serve their requests
 * within `withoutCompiledSelections` (the schema is the process's, the switch the app's).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const resolversOnly = new AsyncLocalStorage<true>();

/** Runs `work` (a request) with every field on its resolver. */
export function withoutCompiledSelections<T>(work: () => T): T {
  return resolversOnly.run(true, work);
}

export function compiling(): boolean {
  return resolversOnly.getStore() === undefined;
}
