/**
 * One process at a time in an embedded data directory: PGlite is a single-process database,
 * and two processes writing its files (a running server and `npm run seed`) corrupt them. The
 * lock is the directory `<data dir>.lock` next to it (proper-lockfile), kept fresh while the
 * process runs and removed when it exits, however it exits short of a crash.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import lockfile from 'proper-lockfile';
import { CommandError } from './errors.ts';

/**
 * A lock not refreshed for this long is a crashed process's, and the next command takes it
 * over. Long enough that seeding, which can hold the event loop for seconds, keeps its lock.
 */
export const STALE_LOCK_SECONDS = 30;

/**
 * Holds the directory's lock until the returned release is called (or the process exits).
 * `onLost`: the lock was taken over after all (this process was stalled for longer than the
 * stale time): the caller must stop using the directory.
 */
export async function lockDataDirectory(
  dataDir: string,
  onLost: (error: Error) => void,
): Promise<() => Promise<void>> {
  await mkdir(path.dirname(dataDir), { recursive: true });
  try {
    return await lockfile.lock(dataDir, {
      realpath: false,
      stale: STALE_LOCK_SECONDS * 1000,
      onCompromised: onLost,
    });
  } catch (error) {
    if ((error as { code?: string }).code !== 'ELOCKED') throw error;
    throw new CommandError(
      `the embedded database ${dataDir} is in use by another process (a running server, ` +
        `migrate or seed): stop that first (a crashed process's lock expires after ` +
        `${STALE_LOCK_SECONDS} s)`,
    );
  }
}
