/**
 * What the bench's own servers (the raw-SQL baseline, PostGraphile) share as processes that
 * bench/systems.ts starts: settings read from the environment like the gateway's, the
 * Prometheus lines the bench reads from /metrics, and a stop on SIGTERM or SIGINT after the
 * requests in flight.
 */
import type http from 'node:http';
import pg from 'pg';

/** An integer setting from the environment, `fallback` when unset or blank. */
export function integerSetting(name: string, fallback: number, min: number, max: number): number {
  const value = process.env[name]?.trim();
  if (value === undefined || value === '') return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new Error(`${name} must be an integer from ${min} to ${max}, got "${value}"`);
  }
  return Number(value);
}

/**
 * The pool on DATABASE_URL (a Postgres server: these servers have no embedded mode) with
 * DATABASE_POOL_SIZE connections (default 10, the gateway's), plus `options`. `name` labels
 * its errors.
 */
export function poolFromEnvironment(name: string, options: pg.PoolConfig = {}): pg.Pool {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL must name the Postgres database to answer from');
  const pool = new pg.Pool({
    connectionString: url,
    max: integerSetting('DATABASE_POOL_SIZE', 10, 1, 200),
    connectionTimeoutMillis: 10_000,
    ...options,
  });
  // An idle client's connection error (a server restart) must not kill the process: the pool
  // drops that client and the next query connects again.
  pool.on('error', (error) => console.error(`${name}: idle connection failed:`, error.message));
  return pool;
}

export const METRICS_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

/**
 * GET /metrics in Prometheus text: the statements run and the resident memory, under the
 * names the gateway uses (bench/systems.ts statementsSoFar reads the first).
 */
export function metricsText(statements: number): string {
  return [
    '# HELP catalogue_sql_statements_total SQL statements executed.',
    '# TYPE catalogue_sql_statements_total counter',
    `catalogue_sql_statements_total ${statements}`,
    '# HELP process_resident_memory_bytes Resident memory size in bytes.',
    '# TYPE process_resident_memory_bytes gauge',
    `process_resident_memory_bytes ${process.memoryUsage.rss()}`,
    '',
  ].join('\n');
}

/**
 * Listens on PORT (default `defaultPort`) and HOST (default 0.0.0.0), prints one line when
 * it does, and on SIGTERM or SIGINT stops taking connections, lets the requests in flight
 * finish, runs `release` (closing pools) and exits.
 */
export function serveUntilSignalled(
  name: string,
  server: http.Server,
  defaultPort: number,
  release: () => Promise<void>,
): void {
  const port = integerSetting('PORT', defaultPort, 0, 65535);
  const host = process.env.HOST?.trim() || '0.0.0.0';
  server.listen(port, host, () => {
    const address = server.address();
    const bound = typeof address === 'object' && address ? address.port : port;
    console.log(`${name} listening on http://localhost:${bound}`);
  });

  let stopping = false;
  function stop(signal: string) {
    if (stopping) return;
    stopping = true;
    console.log(`${name}: ${signal}, stopping`);
    // Keep-alive connections would hold close() open: idle ones go now, busy ones after
    // their response.
    server.close(() => {
      release().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 5_000).unref();
  }
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
}
