/**
 * The status of a /graphql answer with errors, by GraphQL over HTTP's rules, the same for
 * every error about the operation, whoever found it (yoga's parser and validation, our argument
 * bounds, a resolver):
 *
 *   nothing executed (no `data`)   application/graphql-response+json: the code's 4xx
 *                                  application/json: 200
 *   executed (`data`, even null)   200 for both
 *
 * Errors about the transport or the server keep their status whatever the media type: a
 * malformed HTTP request (400 BAD_REQUEST), no valid token (401), too large (413), not JSON
 * (415), too many requests (429), the database unavailable or the request out of time (503 +
 * Retry-After), a masked defect (500). REST is unaffected: it maps codes to statuses itself.
 */
import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import type { ErrorCode } from '../errors.ts';

/** Codes that say something about the operation the client sent, not about HTTP or us. */
const OPERATION_ERROR_CODES = new Set<string>([
  'BAD_USER_INPUT',
  'NOT_FOUND',
  'QUERY_TOO_COMPLEX',
  'PERSISTED_QUERY_NOT_FOUND',
  'TRUSTED_DOCUMENT_REQUIRED',
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
] satisfies (ErrorCode | `GRAPHQL_${string}`)[]);

interface HttpExtension {
  status?: number;
  headers?: Record<string, string>;
  /** yoga: an error a legacy `application/json` client gets with status 200. */
  spec?: boolean;
}

function withHttp(error: GraphQLError, http: HttpExtension): GraphQLError {
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...error.extensions, http },
  });
}

/** The error as the answer's status should count it. */
function asOperationError(error: GraphQLError, executed: boolean): GraphQLError {
  const code = error.extensions?.code;
  if (typeof code !== 'string' || !OPERATION_ERROR_CODES.has(code)) return error;
  const { status, ...http } = (error.extensions.http ?? {}) as HttpExtension;
  return withHttp(error, executed ? http : { ...http, status: status ?? 400, spec: true });
}

export function useGraphQLOverHttpStatus(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      if (!result.errors?.length) return;
      const executed = 'data' in result;
      setResult({
        ...result,
        errors: result.errors.map((error) =>
          error instanceof GraphQLError ? asOperationError(error, executed) : error,
        ),
      });
    },
  };
}
