/**
 * The raw-SQL baseline (performance.md's "raw"): a node:http server answering exactly
 * the bench's requests, each with ONE hand-written SQL statement whose result is the final
 * response body, built in Postgres. No GraphQL, no query builder, nothing between the socket
 * and the pool but routing, parameter checks and writing the text out: the practical ceiling
 * the gateway is compared with, answering byte for byte what the gateway answers.
 *
 * Statements are prepared per connection (named), so repeated requests skip parsing and
 * planning where Postgres finds a generic plan good enough.
 *
 * Also served: GET /metrics (Prometheus text: the statements run and the resident memory,
 * under the names the gateway uses) and GET /readyz.
 */
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import type pg from 'pg';
import type { TextSearchConfig } from '../../src/search/text-search-configs.ts';
import { typoVocabularyOf } from '../../src/search/vocabularies.ts';
import type { TypoVocabulary } from '../../src/search/typo-tolerance.ts';
import { METRICS_CONTENT_TYPE, metricsText } from '../child-server.ts';
import { RequestError } from './params.ts';
import {
  errorAnswer,
  genericProduct,
  graphql,
  partnerSearch,
  products,
  suggestions,
  type Answer,
  type RouteRequest,
  type RunStatement,
} from './routes.ts';

export interface RawServerOptions {
  pool: pg.Pool;
  /** Where failures are reported (stderr by default). */
  onError?: (error: unknown) => void;
}

export interface RawServer {
  /** Not listening yet. */
  server: http.Server;
  /** SQL statements executed so far (every request's, /readyz's included). */
  readonly statements: number;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const MAX_BODY_BYTES = 1 << 20;
const GENERIC_PRODUCT = /^\/v1\/products\/([^/]+)\/?$/;
/** src/app.ts requestIdOf: the caller's id when sane (so logs correlate), else a new one. */
const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function readBody(request: http.IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new RequestError(413, 'the body is too large'));
        request.destroy();
      } else {
        chunks.push(chunk);
      }
    });
    request.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    request.on('error', reject);
  });
}

/** The URL the gateway builds from a Node request (@whatwg-node/server buildFullUrl). */
function requestUrl(request: http.IncomingMessage): URL {
  const { socket } = request;
  const local = socket.localAddress;
  const host =
    request.headers.host ??
    (local && !local.includes(':') ? `${local}:${socket.localPort}` : 'localhost');
  return new URL(`http://${host}${request.url ?? '/'}`);
}

export function createRawServer({
  pool,
  onError = (error) => console.error(error),
}: RawServerOptions): RawServer {
  let statements = 0;

  const run: RunStatement = async (statement, values) => {
    statements += 1;
    const result = await pool.query<{ body: string }>({
      name: statement.name,
      text: statement.text,
      values,
    });
    return result.rows[0]?.body ?? null;
  };

  // Reference data, read once per language like the gateway's (not a request's statement).
  const vocabularies = new Map<TextSearchConfig, Promise<TypoVocabulary>>();
  const vocabulary = (config: TextSearchConfig) => {
    let loading = vocabularies.get(config);
    if (!loading) {
      loading = pool
        .query<{ word: string }>(
          'select word from search_vocabulary where search_config = $1::regconfig',
          [config],
        )
        .then((result) =>
          typoVocabularyOf(
            config,
            result.rows.map((row) => row.word),
          ),
        )
        .catch((error: unknown) => {
          vocabularies.delete(config);
          throw error;
        });
      vocabularies.set(config, loading);
    }
    return loading;
  };

  async function answer(request: http.IncomingMessage, requestId: string): Promise<Answer> {
    const url = requestUrl(request);
    const route: RouteRequest = { url, headers: request.headers, requestId, run, vocabulary };
    const get = request.method === 'GET';
    if (get && url.pathname === '/readyz') {
      await run({ name: 'raw_readyz', text: `select '{"status":"ready"}' as body` }, []);
      return { status: 200, body: '{"status":"ready"}' };
    }
    if (get && url.pathname === '/products') return products(route);
    if (get && url.pathname === '/suggestions') return suggestions(route);
    if (get && url.pathname === '/partner-search/products') return partnerSearch(route);
    const generic = get ? GENERIC_PRODUCT.exec(url.pathname) : null;
    if (generic) return genericProduct(route, generic[1]!);
    if (request.method === 'POST' && url.pathname === '/graphql') {
      const found = await graphql(route, await readBody(request));
      if (found) return found;
    }
    return errorAnswer(
      404,
      `the raw baseline does not answer ${request.method} ${url.pathname}`,
      requestId,
    );
  }

  const server = http.createServer((request, response) => {
    const given = request.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
    if (request.method === 'GET' && request.url === '/metrics') {
      response.writeHead(200, { 'content-type': METRICS_CONTENT_TYPE });
      response.end(metricsText(statements));
      return;
    }
    answer(request, requestId)
      .catch((error: unknown): Answer => {
        if (error instanceof RequestError)
          return errorAnswer(error.status, error.message, requestId);
        onError(error);
        return errorAnswer(500, 'internal error', requestId);
      })
      .then(({ status, body, headers }) => {
        response.writeHead(status, {
          'content-type': JSON_CONTENT_TYPE,
          'content-length': Buffer.byteLength(body),
          'x-request-id': requestId,
          ...headers,
        });
        response.end(body);
      });
  });

  return {
    server,
    get statements() {
      return statements;
    },
  };
}
