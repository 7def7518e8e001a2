/**
 * A test database on a scratch PostgreSQL cluster of its own (test/helpers/scratch-cluster.ts),
 * for tests that need what only a server does (statement_timeout enforced, locks taken from
 * another connection) in a pass whose database is PGlite. It is migrated or seeded like the
 * run's templates; `dispose()` closes it and destroys the cluster.
 */
import { openDatabase } from '../../src/db/client.ts';
import { onConnection, openServerTestDatabase, type TestDatabase } from './database.ts';
import {
  createScratchCluster,
  requireServerBinaries,
  type ScratchCluster,
} from './scratch-cluster.ts';
import { fill, type TemplateName } from './templates.ts';

/** The database a scratch cluster's tests use. */
export const SCRATCH_DATABASE = 'catalogue';

/**
 * Creates SCRATCH_DATABASE on the cluster and fills it as the run's template of that name
 * (migrated, or seeded with the tests' catalogue), through a handle of its own that is closed
 * again; returns its URL.
 */
export async function fillScratchDatabase(
  cluster: ScratchCluster,
  contents: TemplateName,
): Promise<string> {
  await onConnection(cluster.url(), (client) =>
    client.query(`create database ${SCRATCH_DATABASE}`),
  );
  const url = cluster.url(SCRATCH_DATABASE);
  const filling = await openDatabase({ url });
  try {
    await fill(filling, contents);
  } finally {
    await filling.close();
  }
  return url;
}

export async function createScratchDatabase(
  contents: TemplateName,
): Promise<TestDatabase & { url: string }> {
  requireServerBinaries(
    "tests on a server of their own need PostgreSQL 15's server binaries (initdb, pg_ctl)",
  );
  const cluster = await createScratchCluster();
  try {
    // Filled through a handle of its own, so that the test's statement log starts empty.
    const url = await fillScratchDatabase(cluster, contents);
    return await openServerTestDatabase(url, () => cluster.destroy());
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}
