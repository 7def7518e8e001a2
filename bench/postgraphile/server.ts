/**
 * PostGraphile v5 as a peer of the gateway in the benchmark: its generated schema
 * (bench/postgraphile/preset.ts) served by grafserv on POST /graphql, with the two endpoints
 * the bench reads from every system: GET /readyz and GET /metrics (the statements run on the
 * pool and the resident memory, under the gateway's names).
 */
import http from 'node:http';
import type pg from 'pg';
import { postgraphile } from 'postgraphile';
import { grafserv } from 'postgraphile/grafserv/node';
import { METRICS_CONTENT_TYPE, metricsText } from '../child-server.ts';
import { benchPreset } from './preset.ts';

export interface PostGraphileServer {
  /** Not listening yet. */
  server: http.Server;
  /** SQL statements sent on the pool's connections so far (PostGraphile's own included). */
  readonly statements: number;
  /** Releases PostGraphile (the pool stays the caller's). */
  release(): Promise<void>;
}

/**
 * Counts every statement a connection of `pool` sends from now on: PostGraphile runs its
 * queries on clients it checks out of the pool, so the count sits on the clients.
 */
function countStatements(pool: pg.Pool, count: () => void): void {
  pool.on('connect', (client) => {
    const query = client.query;
    client.query = function (this: pg.PoolClient, ...args: unknown[]) {
      count();
      return (query as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof client.query;
  });
}

/**
 * Builds the schema from the database `pool` reaches (introspection, a second or two) and
 * answers once it is built. `pool` must be used by nothing else: its statements are counted.
 */
export async function createPostGraphileServer(pool: pg.Pool): Promise<PostGraphileServer> {
  let statements = 0;
  countStatements(pool, () => (statements += 1));
  const instance = postgraphile(benchPreset(pool));
  await instance.getSchema();
  const serv = instance.createServ(grafserv);
  // createHandler rather than addTo: /readyz and /metrics share the port, and the bench
  // needs no websockets (addTo's reason to exist).
  const graphql = serv.createHandler();
  const server = http.createServer((request, response) => {
    if (request.method === 'GET' && request.url === '/metrics') {
      response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE });
      response.end(metricsText(statements));
      return;
    }
    if (request.method === 'GET' && request.url === '/readyz') {
      response.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      response.end('{"status":"ready"}');
      return;
    }
    graphql(request, response);
  });
  return {
    server,
    get statements() {
      return statements;
    },
    // PostGraphile releases the servers it created (grafserv) with itself.
    release: async () => instance.release(),
  };
}
