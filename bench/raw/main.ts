/**
 * Runs the raw-SQL baseline: `node --import tsx bench/raw/main.ts`, configured like the
 * gateway by DATABASE_URL (a Postgres server: the baseline has no embedded mode), PORT
 * (default 4102), HOST (default 0.0.0.0) and DATABASE_POOL_SIZE (default 10). Prints one line
 * when it listens; SIGTERM and SIGINT stop it after the requests in flight.
 */
import { poolFromEnvironment, serveUntilSignalled } from '../child-server.ts';
import { createRawServer } from './server.ts';

const pool = poolFromEnvironment('raw baseline', {
  // W3's single statement carries the costly plans of index fallbacks it skips at run time;
  // at the large scale their estimates cross jit_above_cost and Postgres spends 130 ms
  // compiling it (auto_explain, "Samsung Galaxy"). The gateway's split statements never do.
  options: '-c jit=off',
});

const { server } = createRawServer({ pool });
serveUntilSignalled('raw baseline', server, 4102, () => pool.end());
