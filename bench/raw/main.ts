/**
 * Runs the raw-SQL baseline: `node --import tsx bench/raw/main.ts`, configured like the
 * gateway by DATABASE_URL (a Postgres server: the baseline has no embedded mode), PORT
 * (default 4102), HOST (default 0.0.0.0) and DATABASE_POOL_SIZE (default 10). Prints one line
 * when it listens; SIGTERM and SIGINT stop it after the requests in flight.
 */
import pg from 'pg';
import { createRawServer } from './server.ts';

function integer(name: string, fallback: number, min: number, max: number): number {
  const value = process.env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL must name the Postgres database to answer from');
const port = integer('PORT', 4102, 0, 65535);
const host = process.env.HOST?.trim() || '0.0.0.0';

const pool = new pg.Pool({
  connectionString: url,
  max: integer('DATABASE_POOL_SIZE', 10, 1, 200),
  connectionTimeoutMillis: 10_000,
  // W3's single statement carries the costly plans of index fallbacks it skips at run time;
  // at the large scale their estimates cross jit_above_cost and Postgres spends 130 ms
  // compiling it (auto_explain, "Samsung Galaxy"). The gateway's split statements never do.
  options: '-c jit=off',
});
// An idle client's connection error (a server restart) must not kill the process: the pool
// drops that client and the next query connects again.
pool.on('error', (error) => console.error('raw baseline: idle connection failed:', error.message));

const { server } = createRawServer({ pool });
server.listen(port, host, () => {
  const address = server.address();
  const bound = typeof address === 'object' && address ? address.port : port;
  console.log(`raw baseline listening on http://localhost:${bound}`);
});

let stopping = false;
function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`raw baseline: ${signal}, stopping`);
  // Keep-alive connections would hold close() open: idle ones go now, busy ones after
  // their response.
  server.close(() => {
    pool.end().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  });
  server.closeIdleConnections();
  setTimeout(() => server.closeAllConnections(), 5_000).unref();
}
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
