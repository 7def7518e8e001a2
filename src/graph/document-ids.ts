/**
 * How a /graphql request names a persisted document instead of sending its text:
 *
 * - `documentId` (GraphQL over HTTP's persisted documents), in a JSON body or, on GET, in the
 *   URL: `sha256:<hex>`, or the bare hex GraphQL Code Generator's client preset sends;
 * - `extensions.persistedQuery.sha256Hash` (Apollo's automatic persisted queries), version 1.
 *
 * Both name a document by the lowercase hex sha256 of its text. A request may carry the text
 * as well (Apollo's clients do after a PersistedQueryNotFound): it must then hash to the id.
 */
import { createHash } from 'node:crypto';
import type { GraphQLParams } from 'graphql-yoga';
import { serviceError } from '../errors.ts';

/** How the id was sent: the answer to an unknown one follows that form's convention. */
export type DocumentIdForm = 'documentId' | 'persistedQuery';

export interface RequestedDocument {
  /** The lowercase hex sha256 of the document's text. */
  hash: string;
  form: DocumentIdForm;
}

const SHA256_HEX = /^[0-9a-f]{64}$/;

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

export function isSha256Hex(value: string): boolean {
  return SHA256_HEX.test(value);
}

function badId(message: string, parameter: string) {
  return serviceError('BAD_REQUEST', message, [{ parameter, reason: 'invalid' }]);
}

function fromDocumentId(value: unknown): string {
  const hex = typeof value === 'string' ? value.replace(/^sha256:/, '') : undefined;
  if (hex === undefined || !isSha256Hex(hex)) {
    throw badId(
      '`documentId` must be "sha256:" and the 64 lowercase hex digits of the document\'s sha256, or the digits alone.',
      'documentId',
    );
  }
  return hex;
}

function fromPersistedQuery(value: unknown): string {
  const { version, sha256Hash } = (value ?? {}) as { version?: unknown; sha256Hash?: unknown };
  if (version !== 1 || typeof sha256Hash !== 'string' || !isSha256Hex(sha256Hash)) {
    throw badId(
      '`extensions.persistedQuery` must be { "version": 1, "sha256Hash": "<64 lowercase hex digits>" }.',
      'extensions.persistedQuery',
    );
  }
  return sha256Hash;
}

/** `documentId` as the request carries it: yoga's GET parser leaves it in the URL. */
function documentIdOf(params: GraphQLParams, request: Request): unknown {
  const inBody = (params as { documentId?: unknown }).documentId;
  if (inBody != null || request.method !== 'GET') return inBody;
  const search = request.url.indexOf('?');
  if (search < 0) return undefined;
  return new URLSearchParams(request.url.slice(search + 1)).get('documentId') ?? undefined;
}

/**
 * The persisted document the request names, or undefined when it names none. A malformed id,
 * two ids naming different documents, or a text that is not the named document is a 400.
 */
export function requestedDocument(
  params: GraphQLParams,
  request: Request,
): RequestedDocument | undefined {
  const documentId = documentIdOf(params, request);
  const persistedQuery = (params.extensions as { persistedQuery?: unknown } | undefined)
    ?.persistedQuery;
  const byId = documentId == null ? undefined : fromDocumentId(documentId);
  const byExtension = persistedQuery == null ? undefined : fromPersistedQuery(persistedQuery);
  if (byId !== undefined && byExtension !== undefined && byId !== byExtension) {
    throw badId(
      '`documentId` and `extensions.persistedQuery` name different documents.',
      'documentId',
    );
  }
  const hash = byId ?? byExtension;
  if (hash === undefined) return undefined;
  if (typeof params.query === 'string' && sha256Hex(params.query) !== hash) {
    throw badId('The query sent is not the document its id names (sha256 mismatch).', 'query');
  }
  return { hash, form: byId !== undefined ? 'documentId' : 'persistedQuery' };
}
