/** Temporary directories of a test file, removed once its tests are done. */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll } from 'vitest';

/**
 * Registers the removal (afterAll) of every directory the answered function creates; call it
 * at the top level, before any afterAll that must still find them (vitest runs the last
 * registered first).
 */
export function useTemporaryDirectories(prefix: string): () => Promise<string> {
  const created: string[] = [];
  afterAll(() =>
    Promise.all(created.map((directory) => rm(directory, { recursive: true, force: true }))),
  );
  return async () => {
    const directory = await mkdtemp(path.join(tmpdir(), prefix));
    created.push(directory);
    return directory;
  };
}
