/**
 * Trusted documents on /graphql (docs/api.md, "Trusted documents"): a request naming a stored
 * document by its id (./document-ids.ts) runs that document, parsed once per process
 * (./trusted-document-store.ts); a GET of one is cacheable like a REST answer. With
 * TRUSTED_DOCUMENTS_ONLY, a document sent as text is refused, but from GraphiQL while it is
 * served: its page marks its requests with a header. Any client can send that header, so
 * the allowance is only as closed as GraphiQL is: production keeps GraphiQL off (GRAPHIQL).
 */
import type { DocumentNode } from 'graphql';
import type { GraphQLParams, Plugin } from 'graphql-yoga';
import { CACHE_CONTROL } from '../cache/cache-control.ts';
import { serviceError } from '../errors.ts';
import { requestedDocument, type RequestedDocument } from './document-ids.ts';
import type { PersistedDocument, TrustedDocumentStore } from './trusted-document-store.ts';

/** The header GraphiQL's page sends with every request (GRAPHIQL_OPTIONS). */
export const GRAPHIQL_MARKER_HEADER = 'x-graphiql';

export interface TrustedDocumentsOptions {
  store: TrustedDocumentStore;
  /** TRUSTED_DOCUMENTS_ONLY: documents sent as text are refused. */
  only: boolean;
  /** Whether GraphiQL is served, and its requests may then send any document. */
  graphiql: boolean;
}

function notFound({ hash, form }: RequestedDocument) {
  // Apollo's clients recognise the message (or the code) and may send the text next.
  const message =
    form === 'persistedQuery'
      ? 'PersistedQueryNotFound'
      : `No trusted document has the id "sha256:${hash}" (docs/api.md, "Trusted documents").`;
  return serviceError('PERSISTED_QUERY_NOT_FOUND', message, [
    {
      parameter: form === 'persistedQuery' ? 'extensions.persistedQuery' : 'documentId',
      reason: 'unknown',
    },
  ]);
}

function textRefused() {
  return serviceError(
    'TRUSTED_DOCUMENT_REQUIRED',
    'This API runs trusted documents only: send the id of a document your build persisted ' +
      '(`documentId`, or `extensions.persistedQuery.sha256Hash`), not its text.',
    [{ parameter: 'query', reason: 'not_trusted' }],
  );
}

/** The parameters yoga goes on with: `documentId` is not one of GraphQL over HTTP's own. */
function withQuery(params: GraphQLParams, query: string | undefined): GraphQLParams {
  return {
    query,
    operationName: params.operationName,
    variables: params.variables,
    extensions: params.extensions,
  };
}

export function useTrustedDocuments(options: TrustedDocumentsOptions): Plugin {
  const parsedFor = new WeakMap<object, DocumentNode>();
  const cacheable = new WeakSet<Request>();
  const textAllowed = (request: Request) =>
    !options.only || (options.graphiql && request.headers.has(GRAPHIQL_MARKER_HEADER));

  return {
    onParams({ params, request, setParams, context }) {
      const requested = requestedDocument(params, request);
      if (requested === undefined) {
        if (params.query != null && !textAllowed(request)) throw textRefused();
        return undefined;
      }
      const run = (found: PersistedDocument | undefined) => {
        if (found === undefined) {
          // Apollo's automatic persisted queries: the text the id names, sent after a miss.
          if (typeof params.query === 'string' && textAllowed(request)) {
            setParams(withQuery(params, params.query));
            return;
          }
          throw notFound(requested);
        }
        setParams(withQuery(params, found.text));
        if (found.parsed) parsedFor.set(context, found.parsed);
        if (request.method === 'GET') cacheable.add(request);
      };
      const held = options.store.held(requested.hash);
      return held ? run(held) : options.store.load(requested.hash).then(run);
    },
    onParse({ context, setParsedDocument }) {
      const parsed = parsedFor.get(context);
      if (parsed) setParsedDocument(parsed);
    },
    // After the entity tags: a tagged answer (a result without errors), or its 304.
    onResponse({ request, response }) {
      if (!cacheable.has(request) || !response.headers.has('etag')) return;
      response.headers.set('cache-control', CACHE_CONTROL.public);
      // The media type follows Accept (application/graphql-response+json or application/json).
      response.headers.set('vary', 'Accept');
    },
  };
}
