/**
 * The GraphQL server: yoga over the schema, with the document limits, incremental delivery
 * (@defer, @stream), compiled execution, entity tags, trusted documents, GraphQL-over-HTTP
 * statuses and, when configured, the response cache. /graphql and every REST route execute
 * through it, so all share its context, limits and masking.
 */
import { createYoga, type Plugin } from 'graphql-yoga';
import { useEntityTags } from '../cache/etag.ts';
import type { Config } from '../config.ts';
import { createRequestContext, type RequestContext } from '../context.ts';
import type { LiveConnection, LivePrices } from '../live/live-prices.ts';
import type { MarketDirectory } from '../db/repositories/markets.ts';
import type { Kysely } from 'kysely';
import type { Database } from '../db/types.ts';
import { maskError } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { workSignalOf } from '../request-deadline.ts';
import { useBodySizeLimit } from './body-size.ts';
import { useSharedSubscriptionResults } from './shared-subscription-results.ts';
import { useCompiledExecution } from './compiled-execution.ts';
import { GRAPHIQL_OPTIONS } from './graphiql.ts';
import type { GraphiQLAssets } from './graphiql-assets.ts';
import { useGraphQLOverHttpStatus } from './http-status.ts';
import { useIncrementalDelivery } from './incremental-delivery.ts';
import { useDocumentLimits, useJsonBodiesOnly, useJsonParameters } from './limits.ts';
import { schema } from './schema.ts';
import { createTrustedDocumentStore } from './trusted-document-store.ts';
import { useTrustedDocuments } from './trusted-documents.ts';
import { createYogaLogger, useClientErrorsInRequestLine } from './yoga-logging.ts';

export interface GraphQLServerDependencies {
  config: Config;
  /** Where the requests' statements go (reads: a replica when one is in service). */
  reads: Kysely<Database>;
  markets: MarketDirectory;
  graphiqlAssets: GraphiQLAssets;
  /** Where subscriptions draw their events (src/live/live-prices.ts). */
  live?: LivePrices | undefined;
  /** Told of each execution of a live event, however many subscribers share it. */
  onLiveEventExecuted?: () => void;
  /** The response cache's plugin, when answers are cached. */
  responseCache?: Plugin | undefined;
  logger: Logger;
}

export const GRAPHQL_PATH = '/graphql';

export function createGraphQLServer(deps: GraphQLServerDependencies) {
  const { config } = deps;
  return createYoga<Record<string, unknown>, RequestContext>({
    schema,
    graphqlEndpoint: GRAPHQL_PATH,
    landingPage: false,
    graphiql: config.graphiql ? GRAPHIQL_OPTIONS : false,
    renderGraphiQL: deps.graphiqlAssets.renderPage,
    maskedErrors: { maskError },
    logging: createYogaLogger(deps.logger),
    // Every way in (/graphql, a REST route, graphql-ws) says where its client reached us.
    context: ({ request, clientIp, liveConnection, publicBase }): RequestContext => {
      if (typeof publicBase !== 'string') {
        throw new Error('a GraphQL request without its public base');
      }
      const context = createRequestContext(
        deps.reads,
        deps.markets,
        publicBase,
        workSignalOf(request),
      );
      if (!deps.live) return context;
      // An SSE subscription is a request of its own; graphql-ws passes its socket's.
      const connection = (liveConnection as LiveConnection | undefined) ?? { open: 0 };
      const ip = typeof clientIp === 'string' ? clientIp : 'unknown';
      const live = { prices: deps.live, connection, clientIp: ip, db: deps.reads };
      return Object.assign(context, { live });
    },
    // The schema takes no uploads: a body is JSON, at most GRAPHQL_MAX_BODY_BYTES, refused
    // (413) before it is read further, let alone parsed (useBodySizeLimit, not yoga's own).
    multipart: false,
    maxRequestBodySize: false,
    plugins: [
      useJsonBodiesOnly(),
      useJsonParameters(),
      useBodySizeLimit(config.graphqlMaxBodyBytes),
      // Before compiled execution and the response cache: a refused document runs nothing.
      ...useDocumentLimits(config),
      // @defer and @stream: before compiled execution, which leaves documents with them to
      // yoga's executor unless the client takes no stream.
      ...useIncrementalDelivery(),
      useCompiledExecution(),
      useSharedSubscriptionResults(deps.onLiveEventExecuted),
      useEntityTags(),
      // After the entity tags (it marks their answers cacheable), before the response cache
      // (which reads the document it puts in place of an id).
      useTrustedDocuments({
        store: createTrustedDocumentStore(deps.reads, config.trustedDocumentsCacheSize),
        only: config.trustedDocumentsOnly,
        graphiql: config.graphiql,
      }),
      useGraphQLOverHttpStatus(),
      useClientErrorsInRequestLine(),
      ...(deps.responseCache ? [deps.responseCache] : []),
    ],
  });
}

export type GraphQLServer = ReturnType<typeof createGraphQLServer>;
