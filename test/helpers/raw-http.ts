/**
 * The app on a real socket, as src/main.ts serves it (node:http around `createApp`), and
 * requests written byte for byte over node:net: fetch cannot send an absolute-form or `*`
 * target, nor choose its own Host header.
 */
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { pino } from 'pino';
import { createApp, type App } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import type { DatabaseHandle } from '../../src/db/client.ts';
import type { Logger } from '../../src/logger.ts';
import type { RestResponse } from './rest.ts';

export interface ServedApp {
  readonly port: number;
  readonly app: App;
  close(): Promise<void>;
}

/**
 * Builds an app on `database` with `env` as its configuration and listens on 127.0.0.1 (a
 * client may still connect from any loopback address: 127.0.0.2, 127.0.0.3, …).
 */
export async function serveApp(
  database: DatabaseHandle,
  env: Record<string, string> = {},
  logger: Logger = pino({ level: 'silent' }),
): Promise<ServedApp> {
  const app = createApp({ config: loadConfig(env), database, logger });
  // Hearing the database's notices (an operator's command) from the start, as a process does.
  await app.listening;
  const server: Server = createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return {
    port: address.port,
    app,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.dispose();
    },
  };
}

export interface RawRequest {
  method: string;
  /** Exactly what goes between the method and `HTTP/1.1`. */
  target: string;
  /** Sent as given and in order; `Connection: close` is added. */
  headers?: [string, string][];
  body?: string;
}

/** Sends one request on a fresh connection and reads the answer until the server closes. */
export function sendRaw(port: number, request: RawRequest): Promise<RestResponse> {
  const headers = [...(request.headers ?? [])];
  if (!headers.some(([name]) => name.toLowerCase() === 'host')) headers.push(['Host', 'localhost']);
  if (request.body !== undefined) {
    headers.push(['Content-Length', String(Buffer.byteLength(request.body))]);
  }
  headers.push(['Connection', 'close']);
  const head = [
    `${request.method} ${request.target} HTTP/1.1`,
    ...headers.map(([name, value]) => `${name}: ${value}`),
  ].join('\r\n');
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks), request.method));
      } catch (error) {
        reject(error);
      }
    });
    socket.write(`${head}\r\n\r\n${request.body ?? ''}`);
  });
}

function parseResponse(raw: Buffer, method: string): RestResponse {
  const headEnd = raw.indexOf('\r\n\r\n');
  if (headEnd === -1) throw new Error(`no complete response: ${JSON.stringify(String(raw))}`);
  const [statusLine, ...headerLines] = raw.subarray(0, headEnd).toString('latin1').split('\r\n');
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine!)?.[1]);
  const headers = new Headers();
  for (const line of headerLines) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  const rest = method === 'HEAD' ? Buffer.alloc(0) : raw.subarray(headEnd + 4);
  const chunked = headers.get('transfer-encoding') === 'chunked';
  const text = (chunked ? dechunk(rest) : rest).toString('utf8');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // not JSON: tests look at `text`
  }
  return { status, headers, text, body };
}

/** A chunked body's data. */
function dechunk(raw: Buffer): Buffer {
  const chunks: Buffer[] = [];
  let at = 0;
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at);
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16);
    if (!(size > 0)) return Buffer.concat(chunks);
    chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
}
