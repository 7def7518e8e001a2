/**
 * Runs PostGraphile v5 for the benchmark: `node --import tsx bench/postgraphile/main.ts`,
 * configured like the raw baseline by DATABASE_URL (a Postgres server), PORT (default
 * 4105), HOST (default 0.0.0.0) and DATABASE_POOL_SIZE (default 10, the gateway's). The bench
 * sets GRAPHILE_ENV=production, as a deployment would: grafast then skips its development
 * checks. Prints one line when it listens; SIGTERM and SIGINT stop it after the requests in
 * flight.
 */
import { poolFromEnvironment, serveUntilSignalled } from '../child-server.ts';
import { createPostGraphileServer } from './server.ts';

const pool = poolFromEnvironment('postgraphile');
const postgraphile = await createPostGraphileServer(pool);
serveUntilSignalled('postgraphile', postgraphile.server, 4105, async () => {
  await postgraphile.release();
  await pool.end();
});
