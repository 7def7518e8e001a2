/**
 * What every resolver sees for one request. Created per request, so the DataLoaders the
 * schema attaches to it never share cached rows between requests.
 */
import { initContextCache } from '@pothos/core';
import type {
  Kysely,
  KyselyPlugin,
  PluginTransformQueryArgs,
  PluginTransformResultArgs,
  QueryResult,
  RootOperationNode,
  UnknownRow,
} from 'kysely';
import type { MarketDirectory } from './db/repositories/markets.ts';
import type { LiveConnection, LivePrices } from './live/live-prices.ts';
import type { Database } from './db/types.ts';
import type { MarketCode } from './markets.ts';
import type { WorkStop } from './request-deadline.ts';

export interface RequestContext {
  db: Kysely<Database>;
  markets: MarketDirectory;
  siteBaseUrl(market: MarketCode): Promise<string>;
  /** Scheme, host and path prefix the client reached the service under, for URLs it serves. */
  publicBase: string;
  /** Where subscriptions draw their events, and whose they are (for their bounds). */
  live?: LiveSession;
}

export interface LiveSession {
  prices: LivePrices;
  connection: LiveConnection;
  clientIp: string;
  /** Where its events' statements go: unbound to the request that opened it (loadForRun). */
  db: Kysely<Database>;
}

/**
 * `stopWhen`: the request's signal (src/request-deadline.ts). Every statement of the request
 * goes through `db`, so checking there before each is sent stops a stopped request's work at
 * its next statement, whichever loader or repository issues it; one already running is
 * bounded by STATEMENT_TIMEOUT_MS.
 */
export function createRequestContext(
  db: Kysely<Database>,
  markets: MarketDirectory,
  publicBase: string,
  stopWhen?: WorkStop,
): RequestContext {
  // Added to the cache's object, not spread from it: spreading its symbol key took half of
  // this function's time on every request.
  return Object.assign(initContextCache(), {
    db: stopWhen ? db.withPlugin(new RefuseWhenAborted(stopWhen)) : db,
    markets,
    siteBaseUrl: async (market: MarketCode) => (await markets.get(market)).site_base_url,
    publicBase,
  });
}

/** Throws the signal's reason from a statement about to be compiled, once it is aborted. */
class RefuseWhenAborted implements KyselyPlugin {
  constructor(private readonly signal: WorkStop) {}

  transformQuery({ node }: PluginTransformQueryArgs): RootOperationNode {
    this.signal.throwIfAborted();
    return node;
  }

  async transformResult({ result }: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    return result;
  }
}

/** Per run (its outbox rows' array): the loaders every subscription's event of it goes through. */
const runLoads = new WeakMap<object, ReturnType<typeof initContextCache>>();

/**
 * Points the context's loaders at those of `run`, every subscription of the process sharing
 * them for that run: its events are resolved with one statement per batch for all of them,
 * each showing the rows as they were then. A subscription resolves each event with the one
 * context it was opened with: without this, an event would show the rows of the first. `db`
 * runs their statements: none may be bound to the request of whichever subscriber loads first.
 */
export function loadForRun(context: RequestContext, run: object, db: Kysely<Database>): void {
  let loads = runLoads.get(run);
  if (!loads) runLoads.set(run, (loads = initContextCache()));
  Object.assign(context, loads, { db });
}

/**
 * New loaders for `run`, pointed at by `context`: a batch that failed stays failed in its
 * loader, so resolving an event again after the database came back needs loaders of its own.
 */
export function renewRunLoads(context: RequestContext, run: object, db: Kysely<Database>): void {
  runLoads.delete(run);
  loadForRun(context, run, db);
}
