/**
 * Incremental delivery: @defer and @stream (the schema declares both, src/graph/schema.ts),
 * so that a product page can show the product before its offers and history. yoga's executor
 * (@graphql-tools/executor) runs such a document and answers it in parts, as multipart/mixed
 * or as an event stream, whichever the client accepts (docs/api.md, "Incremental delivery").
 *
 * The directives are hints (the incremental delivery RFC lets a server deliver everything at
 * once): a client accepting neither stream (`application/json` only) gets the whole answer in
 * one body. Its document runs without them, on the compiled path like any other; yoga would
 * otherwise execute it, answer 406, and leave the deferred parts running with nobody waiting.
 *
 * Everything else holds for an incremental document as for any: its cost is that of the whole
 * document (a deferred fragment costs what it selects), the depth and other bounds apply, and
 * its statements stop at the request's deadline (src/http/pipeline.ts holds the deadline until
 * the stream ends). Loaders batch within each part: the deferred fragments of a list's items
 * start together, so a page of products with their offers deferred loads the offers of all of
 * them in one statement. Nothing incremental is stored by the response cache, nor tagged.
 * Errors in later parts are masked as the first part's are (yoga masks only a result's own
 * `errors`, not those of its `incremental` patches).
 */
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import {
  BREAK,
  GraphQLError,
  Kind,
  visit,
  type DirectiveNode,
  type DocumentNode,
  type ExecutionResult,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { maskError } from '../errors.ts';
import { holdDeadlineForParts } from '../request-deadline.ts';

const INCREMENTAL_DIRECTIVES = new Set(['defer', 'stream']);

function isIncremental(directive: DirectiveNode): boolean {
  return INCREMENTAL_DIRECTIVES.has(directive.name.value);
}

/** Per document: yoga's parse cache and the REST engine hand the same object for the same text. */
const incrementalDocuments = new WeakMap<DocumentNode, boolean>();

/** Whether the document asks for any part of its answer later: a @defer or a @stream. */
export function deliversIncrementally(document: DocumentNode): boolean {
  let found = incrementalDocuments.get(document);
  if (found === undefined) {
    found = false;
    visit(document, {
      Directive(directive) {
        if (!isIncremental(directive)) return undefined;
        found = true;
        return BREAK;
      },
    });
    incrementalDocuments.set(document, found);
  }
  return found;
}

const wholeDocuments = new WeakMap<DocumentNode, DocumentNode>();

/**
 * The document without its @defer and @stream, made once per document. It has no `loc` of its
 * own, so the response cache keys its answer by its printed text, without the directives: a
 * client taking a stream, sending the text with them, is never answered from that entry.
 */
function withoutIncrementalDelivery(document: DocumentNode): DocumentNode {
  let whole = wholeDocuments.get(document);
  if (whole === undefined) {
    const visited = visit(document, {
      Directive: (directive) => (isIncremental(directive) ? null : undefined),
    });
    whole = { kind: Kind.DOCUMENT, definitions: visited.definitions };
    wholeDocuments.set(document, whole);
  }
  return whole;
}

/** The media types yoga answers in parts. */
const STREAMS = [
  ['multipart', 'mixed'],
  ['text', 'event-stream'],
] as const;

/**
 * Whether yoga can answer the request in parts: its Accept header (none: `*\/*`) names
 * multipart/mixed or text/event-stream, or a wildcard covering one, in UTF-8: the header read
 * as yoga reads it to choose how to answer.
 */
export function acceptsStream(request: Request): boolean {
  const accept = (request.headers.get('accept') ?? '*/*').replace(/\s/g, '').toLowerCase();
  return accept.split(',').some((range) => {
    const [mediaType = '', ...parameters] = range.split(';');
    const charset = parameters.find((parameter) => parameter.startsWith('charset='));
    if (charset !== undefined && charset !== 'charset=utf-8') return false;
    const [type, subtype] = mediaType.split('/');
    return STREAMS.some(
      ([streamType, streamSubtype]) =>
        (type === '*' || type === streamType) && (subtype === '*' || subtype === streamSubtype),
    );
  });
}

/** A later part: patches, each with the errors of the fields it holds. */
interface SubsequentResult extends ExecutionResult {
  incremental?: { errors?: readonly GraphQLError[] }[];
}

/** yoga's own message for an error it masks. */
const UNEXPECTED = 'Unexpected error.';

/**
 * The error as the service answers it (src/errors.ts), without the HTTP status and headers it
 * may carry for a whole answer: yoga leaves them out of a result's own errors only.
 */
function maskedInPart(error: GraphQLError): GraphQLError {
  const masked = maskError(error, UNEXPECTED) as GraphQLError;
  const { http: _http, ...extensions } = masked.extensions ?? {};
  return new GraphQLError(masked.message, {
    nodes: masked.nodes,
    source: masked.source,
    positions: masked.positions,
    path: masked.path,
    originalError: masked.originalError,
    extensions,
  });
}

function withMaskedPatches(result: SubsequentResult): SubsequentResult | undefined {
  if (!result.incremental?.some((patch) => patch.errors?.length)) return undefined;
  return {
    ...result,
    incremental: result.incremental.map((patch) =>
      patch.errors?.length ? { ...patch, errors: patch.errors.map(maskedInPart) } : patch,
    ),
  };
}

/**
 * The directives' validation (yoga's plugin); for a client that takes no stream, the document
 * without them (before compiled execution, which then compiles it); for one that does, the
 * errors of every later part masked.
 */
export function useIncrementalDelivery(): Plugin[] {
  return [
    useDeferStream(),
    {
      onExecute({ args }) {
        if (!deliversIncrementally(args.document)) return undefined;
        const { request } = args.contextValue as { request?: Request };
        if (request !== undefined && !acceptsStream(request)) {
          args.document = withoutIncrementalDelivery(args.document);
          return undefined;
        }
        if (request !== undefined) holdDeadlineForParts(request);
        return {
          onExecuteDone: () => ({
            onNext({ result, setResult }) {
              const masked = withMaskedPatches(result as SubsequentResult);
              if (masked) setResult(masked);
            },
          }),
        };
      },
    },
  ];
}
