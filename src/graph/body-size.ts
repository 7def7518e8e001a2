/**
 * /graphql bodies bounded in size (GRAPHQL_MAX_BODY_BYTES), with yoga's own errors: a
 * Content-Length that is not one number is a 400, one over the bound a 413 before anything is
 * read, and a body sent without a length (chunked) is counted as it arrives and refused (413)
 * once it passes the bound.
 *
 * In place of yoga's `maxRequestBodySize`, which pipes every body through a TransformStream
 * (a stream pipeline, an AbortController and the DOMException it aborts with, per request):
 * a body with a Content-Length needs no counting, as Node's parser delivers exactly that many
 * bytes and no more.
 */
import { createGraphQLError } from '@graphql-tools/utils';
import type { Plugin } from 'graphql-yoga';

const CONTENT_LENGTH = /^\d+$/;

function tooLarge() {
  return createGraphQLError('Request body too large', {
    extensions: { http: { status: 413 }, code: 'REQUEST_ENTITY_TOO_LARGE' },
  });
}

function invalidLength() {
  return createGraphQLError('Content-Length header is invalid.', {
    extensions: { http: { status: 400 }, code: 'BAD_REQUEST' },
  });
}

/** Runs after every request parser has been chosen: place it after the plugins that set one. */
export function useBodySizeLimit(maxBytes: number): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser, fetchAPI }) {
      const declared = request.headers.get('content-length');
      if (declared !== null) {
        if (!CONTENT_LENGTH.test(declared)) throw invalidLength();
        if (Number(declared) > maxBytes) throw tooLarge();
        return;
      }
      if (requestParser === undefined || request.body === null) return;
      setRequestParser(async (unbounded) => {
        const body = await readBounded(unbounded.body!, maxBytes);
        const { url, method, headers, signal } = unbounded;
        return requestParser(new fetchAPI.Request(url, { method, headers, signal, body }));
      });
    },
  };
}

/** The whole body, or a 413 as soon as it passes `maxBytes` (nothing more is read). */
async function readBounded(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): Promise<Uint8Array<ArrayBuffer>> {
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  const reader = body.getReader();
  for (let read = await reader.read(); !read.done; read = await reader.read()) {
    bytes += read.value.byteLength;
    if (bytes > maxBytes) {
      await reader.cancel();
      throw tooLarge();
    }
    chunks.push(read.value);
  }
  const whole = new Uint8Array(bytes);
  let at = 0;
  for (const chunk of chunks) {
    whole.set(chunk, at);
    at += chunk.byteLength;
  }
  return whole;
}
