/**
 * A shared cache that cannot help never hurts: with REDIS_URL pointing at nothing, at a Redis
 * that answers every lookup with an error, or at one that stops answering, every request is
 * answered uncached (the same bytes, its SQL run each time), never with a 500 and never held
 * longer than the command timeout; the outage is logged once, and /readyz stays ready.
 */
import { createServer, type Server, type Socket } from 'node:net';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { App } from '../../src/app.ts';
import { databaseKind } from '../helpers/database.ts';
import { scrape, valueOf } from '../helpers/prometheus.ts';
import { distinct, PRODUCT_PAGE, restPaths, useCacheTestbed } from './testbed.ts';

type Behaviour = 'errors' | 'silent-once-ready' | 'mute';

/**
 * A stand-in for a Redis that misbehaves: it speaks enough of the protocol for a client to
 * connect (RESP arrays in; OK, INFO and errors out), then answers GET and SET with an error
 * ('errors'), not at all ('silent-once-ready'), or answers nothing from the start ('mute').
 */
async function startFakeRedis(behaviour: Behaviour): Promise<{ url: string; server: Server }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let pending = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      pending = Buffer.concat([pending, chunk]);
      for (;;) {
        const parsed = readCommand(pending);
        if (!parsed) break;
        pending = pending.subarray(parsed.length);
        const reply = replyTo(parsed.name.toUpperCase(), behaviour);
        if (reply !== undefined) socket.write(reply);
      }
    });
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { url: `redis://127.0.0.1:${address.port}`, server };
}

function replyTo(command: string, behaviour: Behaviour): string | undefined {
  if (behaviour === 'mute') return undefined;
  if (command === 'GET' || command === 'SET') {
    return behaviour === 'errors' ? '-ERR injected failure\r\n' : undefined;
  }
  if (command === 'INFO') {
    const info = '# Server\r\nredis_version:7.0.0\r\nloading:0\r\n';
    return `$${Buffer.byteLength(info)}\r\n${info}\r\n`;
  }
  return '+OK\r\n';
}

/** One RESP array of bulk strings from the front of `buffer`, or null while incomplete. */
function readCommand(buffer: Buffer): { name: string; length: number } | null {
  let offset = 0;
  const line = () => {
    const end = buffer.indexOf('\r\n', offset);
    if (end < 0) return null;
    const text = buffer.subarray(offset, end).toString('latin1');
    offset = end + 2;
    return text;
  };
  const header = line();
  if (header === null) return null;
  if (!header.startsWith('*')) throw new Error(`not a RESP array: ${header}`);
  let name = '';
  for (let i = 0; i < Number(header.slice(1)); i++) {
    const size = line();
    if (size === null) return null;
    const length = Number(size.slice(1));
    if (buffer.length < offset + length + 2) return null;
    if (i === 0) name = buffer.subarray(offset, offset + length).toString('latin1');
    offset += length + 2;
  }
  return { name, length: offset };
}

const bed = useCacheTestbed(() => ({}));
const servers: Server[] = [];
afterAll(() => servers.forEach((server) => server.close()));

interface Scenario {
  name: string;
  url: () => string;
  /** What the one warning logs as the reason. */
  reason: RegExp;
}

const fakes: Partial<Record<Behaviour, string>> = {};
beforeAll(async () => {
  for (const behaviour of ['errors', 'silent-once-ready', 'mute'] as const) {
    const fake = await startFakeRedis(behaviour);
    servers.push(fake.server);
    fakes[behaviour] = fake.url;
  }
});

const scenarios: Scenario[] = [
  {
    name: 'nothing listens at REDIS_URL',
    url: () => 'redis://127.0.0.1:1',
    reason: /ECONNREFUSED/,
  },
  {
    name: 'Redis answers every lookup with an error',
    url: () => fakes.errors!,
    reason: /injected failure/,
  },
  {
    name: 'Redis stops answering once connected',
    url: () => fakes['silent-once-ready']!,
    reason: /timed out/i,
  },
  {
    name: 'Redis accepts the connection and never answers',
    url: () => fakes.mute!,
    reason: /timed out/i,
  },
];

describe.each(scenarios)(`when $name (on ${databaseKind})`, ({ url, reason }) => {
  let app: App;
  const logs: { level: number; msg: string; err?: { message: string } }[] = [];

  beforeAll(async () => {
    const logger = pino(
      { level: 'warn' },
      { write: (line: string) => logs.push(JSON.parse(line)) },
    );
    app = await bed.build({ REDIS_URL: url() }, logger);
  });

  it('answers every request uncached, with the same bytes, never a 500', async () => {
    const variables = { id: bed.productIds[0], market: 'SE' };
    const reference = await bed.graphql(bed.uncached, PRODUCT_PAGE, variables);
    for (let i = 0; i < 3; i++) {
      const answer = await bed.graphql(app, PRODUCT_PAGE, variables);
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(reference.text);
      expect(distinct(answer.statements)).toEqual(distinct(reference.statements));
    }
    for (const { path, partner } of restPaths(bed.productIds)) {
      const options = partner ? { token: 'demo' } : {};
      const expected = await bed.get(bed.uncached, path, options);
      for (let i = 0; i < 2; i++) {
        const answer = await bed.get(app, path, options);
        expect(answer.status, path).toBe(200);
        expect(answer.text, path).toBe(expected.text);
        expect(answer.statements.length, path).toBeGreaterThan(0);
      }
    }
  });

  it('still answers 304 on /graphql for a matching If-None-Match', async () => {
    const variables = { id: bed.productIds[1], market: 'SE' };
    const first = await bed.graphql(app, PRODUCT_PAGE, variables);
    const again = await bed.graphql(app, PRODUCT_PAGE, variables, {
      'if-none-match': first.headers.get('etag')!,
    });
    expect(again.status).toBe(304);
  });

  it('logs the outage once, as a warning, and counts the failed lookups', async () => {
    const warnings = logs.filter((entry) => entry.msg.startsWith('response cache:'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe(40);
    expect(warnings[0]!.err?.message).toMatch(reason);
    const metrics = await scrape(app);
    expect(valueOf(metrics, 'catalogue_response_cache_errors_total')).toBeGreaterThan(0);
    expect(valueOf(metrics, 'catalogue_response_cache_hits_total')).toBe(0);
  });

  it('stays ready: /readyz does not depend on Redis', async () => {
    const response = await app.fetch(new Request('http://test/readyz'));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: 'ready', database: databaseKind });
  });
});
