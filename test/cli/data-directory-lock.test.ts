/**
 * The embedded data directory's lock (src/cli/data-directory-lock.ts): one holder at a time,
 * free again once released, and a crashed holder's lock taken over once it is stale.
 */
import { mkdir, stat, utimes } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockDataDirectory, STALE_LOCK_SECONDS } from '../../src/cli/data-directory-lock.ts';
import { CommandError } from '../../src/cli/errors.ts';
import { useTemporaryDirectories } from '../helpers/temporary-directories.ts';

const temporaryDirectory = useTemporaryDirectories('gateway-lock-test-');
async function dataDirectory(): Promise<string> {
  return path.join(await temporaryDirectory(), 'nested', 'pglite');
}

const neverLost = (error: Error) => {
  throw error;
};

describe('the embedded data directory lock', () => {
  it('refuses a second holder with one line naming the directory, until it is released', async () => {
    const dataDir = await dataDirectory();
    const release = await lockDataDirectory(dataDir, neverLost);

    const refused = await lockDataDirectory(dataDir, neverLost).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CommandError);
    expect((refused as Error).message).toContain(`${dataDir} is in use by another process`);
    expect((refused as Error).message).not.toContain('\n');

    await release();
    const again = await lockDataDirectory(dataDir, neverLost);
    await again();
  });

  it("takes over a crashed process's lock once it is stale", async () => {
    const dataDir = await dataDirectory();
    const lockPath = `${dataDir}.lock`;
    // What a crashed holder leaves: the lock directory, no longer refreshed.
    await mkdir(lockPath, { recursive: true });
    const crashedAt = new Date(Date.now() - (STALE_LOCK_SECONDS + 5) * 1000);
    await utimes(lockPath, crashedAt, crashedAt);

    const release = await lockDataDirectory(dataDir, neverLost);
    expect((await stat(lockPath)).mtime.getTime()).toBeGreaterThan(crashedAt.getTime());
    await release();
    await expect(stat(lockPath)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
