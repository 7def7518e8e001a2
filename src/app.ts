/**
 * Builds the whole HTTP service from a configuration and an open database, without
 * listening: main.ts listens, tests call `app.fetch` directly.
 */
import { createServerAdapter } from '@whatwg-node/server';
import { createYoga } from 'graphql-yoga';
import { sql } from 'kysely';
import type { Config } from './config.ts';
import { maskError } from './errors.ts';
import { createRequestContext, type RequestContext } from './context.ts';
import { createMarketDirectory } from './db/repositories/markets.ts';
import type { DatabaseHandle } from './db/client.ts';
import { pendingMigrations } from './db/migrator.ts';
import { GRAPHIQL_OPTIONS } from './graph/graphiql.ts';
import { schema } from './graph/schema.ts';
import type { Logger } from './logger.ts';

export interface AppDependencies {
  config: Config;
  database: DatabaseHandle;
  logger: Logger;
}

const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8' };

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: JSON_HEADERS });
}

export function createApp({ config, database, logger }: AppDependencies) {
  const markets = createMarketDirectory(database.db, config.siteUrls);
  const yoga = createYoga<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: '/graphql',
    landingPage: false,
    graphiql: GRAPHIQL_OPTIONS,
    maskedErrors: { maskError },
    logging: logger.child({ component: 'graphql' }),
    context: (): RequestContext => createRequestContext(database.db, markets),
  });

  /** Ready when the database answers and every migration has been applied. */
  async function readiness(): Promise<Response> {
    try {
      await sql`select 1`.execute(database.db);
      const pending = await pendingMigrations(database.db);
      if (pending.length > 0) {
        return json(503, { status: 'migrating', pendingMigrations: pending });
      }
      return json(200, { status: 'ready', database: database.kind });
    } catch (error) {
      logger.warn({ err: error }, 'readiness check failed');
      return json(503, { status: 'unavailable', reason: 'database unreachable' });
    }
  }

  return createServerAdapter(async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    switch (pathname) {
      case '/healthz':
        return json(200, { status: 'ok' });
      case '/readyz':
        return readiness();
      default:
        if (pathname === '/graphql') return yoga.fetch(request);
        return json(404, { error: { code: 'http.404', message: `no route for ${pathname}` } });
    }
  });
}

export type App = ReturnType<typeof createApp>;
