/**
 * Entity tags for successful answers, on REST and on /graphql alike: the tag is a hash of the
 * body's bytes, so it changes exactly when the answer does (whether it came from the response
 * cache or not), and a client holding the current body gets a 304 for a matching
 * If-None-Match.
 */
import { hash } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

/** One-shot `hash`: a quarter of createHash's cost on a body the size of most answers. */
export function entityTag(body: string | Uint8Array): string {
  return `"${hash('sha1', body, 'base64url')}"`;
}

/** RFC 9110 13.1.2: weak comparison; `*` matches any current representation. */
export function matchesEntityTag(header: string | null, tag: string): boolean {
  if (header === null) return false;
  return (
    header.trim() === '*' ||
    header.split(',').some((candidate) => candidate.trim().replace(/^W\//, '') === tag)
  );
}

const JSON_BODY = /^application\/(?:graphql-response\+)?json\b/;

/**
 * /graphql: a single result without errors gets an ETag over its serialised body, and a
 * matching If-None-Match turns it into a 304 without a body. Errors, batches and streamed
 * (incremental) results are answered as they are.
 */
export function useEntityTags(): Plugin {
  const taggable = new WeakSet<Request>();
  return {
    onResultProcess({ request, result }) {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      if (result.errors?.length) return;
      taggable.add(request);
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (!taggable.has(request) || response.status !== 200) return undefined;
      // A JSON body only: an event stream or a multipart answer is left to flow as it is.
      if (!JSON_BODY.test(response.headers.get('content-type') ?? '')) return undefined;
      return response.text().then((body) => {
        const tag = entityTag(body);
        // A plain object, as the answer's headers were first built: the server then writes
        // them in a single writeHead rather than header by header.
        const headers: Record<string, string> = {};
        response.headers.forEach((value, name) => (headers[name] = value));
        headers.etag = tag;
        if (matchesEntityTag(request.headers.get('if-none-match'), tag)) {
          delete headers['content-type'];
          delete headers['content-length'];
          setResponse(new fetchAPI.Response(null, { status: 304, headers }));
        } else {
          setResponse(new fetchAPI.Response(body, { status: 200, headers }));
        }
      });
    },
  };
}
