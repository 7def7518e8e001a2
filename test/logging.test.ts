/**
 * The service's log, read from an in-memory stream: one line per request telling its route,
 * status, duration, size, request id, partner client and response cache hit or miss; the
 * successful ones sampled; and the request id on every error and warning logged while a
 * request is served (a failing database, a failing Redis), so that the X-Request-Id a client
 * reports finds them. Then the real processes: the format follows the terminal, and the
 * production bundle logs readable error names through pino-pretty and flushes its last line
 * on SIGTERM.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createApp, type App } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { openDatabase } from '../src/db/client.ts';
import { createLogger } from '../src/logger.ts';
import { DEMO_CLIENT } from '../seeds/index.ts';
import {
  createTestDatabase,
  databaseKind,
  dropServerDatabase,
  serverUrl,
} from './helpers/database.ts';
import { childEnv, root, startNode, untilOutput } from './helpers/process.ts';
import { useRestCatalogue } from './helpers/rest.ts';
import { useTemporaryDirectories } from './helpers/temporary-directories.ts';

const run = promisify(execFile);

interface LogLine {
  level: number;
  msg: string;
  requestId?: string;
  method?: string;
  route?: string;
  path?: string;
  status?: number;
  ms?: number;
  bytes?: number;
  clientId?: string;
  cache?: string;
  err?: { type: string; message: string };
  error?: { code: string; message: string };
}

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  requestId: string;
}

interface LoggedApp {
  /** A request through `app.fetch`; answers the response with its body read. */
  send(path: string, init?: RequestInit): Promise<Answer>;
  /** `send`, and the request's one line, which must tell the body's size. */
  sendLogged(path: string, init?: RequestInit): Promise<Answer & { line: LogLine }>;
  /** The lines logged for a request id. */
  linesOf(requestId: string): LogLine[];
  /** The one request line of a request id. */
  requestLine(requestId: string): LogLine;
}

// The seeded catalogue, and its demo partner token; each test builds the apps it logs.
const rest = useRestCatalogue();
const apps: App[] = [];
afterAll(() => Promise.all(apps.map((app) => app.dispose())));

const NO_RATE_LIMIT = { RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0', RATE_LIMIT_CLIENT_PER_MINUTE: '0' };

/** An app logging JSON lines at `info` into memory, on the seeded catalogue by default. */
function loggedApp(
  env: Record<string, string> = {},
  database = rest.catalogue.database,
): LoggedApp {
  const lines: LogLine[] = [];
  const logger = createLogger(
    { logLevel: 'info', logFormat: 'json' },
    {
      write: (line: string) => lines.push(JSON.parse(line) as LogLine),
    },
  );
  const app = createApp({ config: loadConfig({ ...NO_RATE_LIMIT, ...env }), database, logger });
  apps.push(app);
  const linesOf = (requestId: string) => lines.filter((line) => line.requestId === requestId);
  const send = async (path: string, init?: RequestInit): Promise<Answer> => {
    const response = await app.fetch(new Request(`http://test${path}`, init));
    const text = await response.text();
    const requestId = response.headers.get('x-request-id') ?? '';
    return { status: response.status, headers: response.headers, text, requestId };
  };
  const requestLine = (requestId: string) => {
    const found = linesOf(requestId).filter((line) => line.status !== undefined);
    expect(found, `request line of ${requestId}`).toHaveLength(1);
    return found[0]!;
  };
  return {
    send,
    async sendLogged(path, init) {
      const answer = await send(path, init);
      const line = requestLine(answer.requestId);
      expect(line.bytes, 'the body size').toBe(Buffer.byteLength(answer.text));
      return { ...answer, line };
    },
    linesOf,
    requestLine,
  };
}

const graphqlPost = (query: string, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ query }),
});

describe(`one line per request (on ${databaseKind})`, () => {
  it('tells a REST route, its status, duration, size and request id, and the cache miss then hit', async () => {
    const logged = loggedApp();
    const first = await logged.sendLogged('/suggestions?market=se');
    expect(first.status).toBe(200);
    expect(first.line).toMatchObject({
      level: 30,
      msg: 'GET /suggestions 200',
      method: 'GET',
      route: 'suggestions',
      path: '/suggestions',
      status: 200,
      cache: 'miss',
    });
    expect(first.line.ms).toBeGreaterThanOrEqual(0);
    expect(first.line.clientId).toBeUndefined();
    expect(first.headers.get('content-length')).toBe(String(first.line.bytes));

    const again = await logged.send('/suggestions?market=se');
    expect(again.text).toBe(first.text);
    expect(logged.requestLine(again.requestId)).toMatchObject({ status: 200, cache: 'hit' });
  });

  it('tells /graphql requests, under the request id the client chose', async () => {
    const logged = loggedApp();
    const query = '{ markets { code currency } }';
    const first = await logged.sendLogged(
      '/graphql',
      graphqlPost(query, { 'x-request-id': 'client-1' }),
    );
    expect(first.requestId).toBe('client-1');
    expect(first.line).toMatchObject({
      msg: 'POST /graphql 200',
      method: 'POST',
      route: 'graphql',
      status: 200,
      cache: 'miss',
    });
    await logged.send('/graphql', graphqlPost(query, { 'x-request-id': 'client-2' }));
    expect(logged.requestLine('client-2').cache).toBe('hit');
  });

  it('tells a path nothing serves, with no cache lookup', async () => {
    const logged = loggedApp();
    const missing = await logged.sendLogged('/no/such/path');
    expect(missing.status).toBe(404);
    expect(missing.line).toMatchObject({
      level: 30,
      route: 'unmatched',
      path: '/no/such/path',
      status: 404,
    });
    expect(missing.line.cache).toBeUndefined();
  });

  it('names the partner client of an authenticated request', async () => {
    const logged = loggedApp();
    const search = await logged.send(
      `/partner-search/products?market=se&ref=${DEMO_CLIENT.ref}&limit=5`,
      { headers: { authorization: `Bearer ${await rest.token()}` } },
    );
    expect(search.status).toBe(200);
    expect(logged.requestLine(search.requestId)).toMatchObject({
      route: 'partnerSearchProducts',
      status: 200,
      clientId: DEMO_CLIENT.id,
      cache: 'miss',
    });
  });

  it('samples successful requests only: a 4xx is always logged', async () => {
    const logged = loggedApp({ LOG_REQUEST_SAMPLE_RATE: '0' });
    const healthy = await logged.send('/healthz');
    const found = await logged.send('/suggestions?market=se');
    const missing = await logged.send('/nope');
    expect([healthy.status, found.status, missing.status]).toEqual([200, 200, 404]);
    expect(logged.linesOf(healthy.requestId)).toEqual([]);
    expect(logged.linesOf(found.requestId)).toEqual([]);
    expect(logged.requestLine(missing.requestId).status).toBe(404);
  });
});

describe(`a client's mistake is its request line's business (on ${databaseKind})`, () => {
  const RESPONSE = { accept: 'application/graphql-response+json' };
  const mistakes: [string, RequestInit, string][] = [
    [
      'an unknown field',
      graphqlPost('{ markets { nope } }', RESPONSE),
      'GRAPHQL_VALIDATION_FAILED',
    ],
    [
      'too deep a document',
      graphqlPost(`{ markets ${'{ __typename '.repeat(40)}${'}'.repeat(40)} }`, RESPONSE),
      'QUERY_TOO_COMPLEX',
    ],
    [
      'a global id that is not one',
      graphqlPost('{ node(id: "nope") { id } }', RESPONSE),
      'BAD_USER_INPUT',
    ],
    [
      'a variable of the wrong type',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...RESPONSE },
        body: JSON.stringify({
          query: 'query ($id: Int!) { product(market: SE, id: $id) { name } }',
          variables: { id: 'one' },
        }),
      },
      'BAD_USER_INPUT',
    ],
    [
      'a body that is not JSON',
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...RESPONSE },
        body: '{"query":',
      },
      'BAD_REQUEST',
    ],
  ];

  for (const [what, init, code] of mistakes) {
    it(`${what}: one line, at info, with its code and no stack`, async () => {
      const logged = loggedApp();
      const answer = await logged.send('/graphql', init);
      // A bad global id is a field's error: the rest of the data is answered, with 200.
      expect(answer.text).toContain(`"code":"${code}"`);
      expect(answer.status).toBeLessThan(500);
      const lines = logged.linesOf(answer.requestId);
      expect(lines, JSON.stringify(lines)).toHaveLength(1);
      expect(lines[0]).toMatchObject({ level: 30, status: answer.status, error: { code } });
      expect(lines[0]!.err).toBeUndefined();
    });
  }
});

describe(`errors and warnings while serving carry the request id (on ${databaseKind})`, () => {
  it('when the database goes away: the cause, under the X-Request-Id of the 5xx', async () => {
    const database = await createTestDatabase({ contents: 'migrated' });
    try {
      const logged = loggedApp({ RESPONSE_CACHE_TTL_SECONDS: '0' }, database);
      // Dropped under the running service on a server; on PGlite, which lives in this
      // process, its tables are.
      if (database.url !== undefined) await dropServerDatabase(serverUrl!, database.url);
      else await sql`drop schema public cascade`.execute(database.db);

      const rest = await logged.send('/suggestions?market=se');
      const graphql = await logged.send('/graphql', graphqlPost('{ markets { code } }'));
      for (const failed of [rest, graphql]) {
        expect(failed.status).toBeGreaterThanOrEqual(500);
        const causes = logged.linesOf(failed.requestId).filter((line) => line.err !== undefined);
        expect(causes, failed.text).toHaveLength(1);
        expect(causes[0]!.level).toBeGreaterThanOrEqual(40);
        expect(causes[0]!.err!.message).not.toBe('');
        expect(logged.requestLine(failed.requestId)).toMatchObject({
          level: 40,
          status: failed.status,
        });
      }
    } finally {
      await database.dispose();
    }
  });

  it('when Redis refuses a lookup: the warning, under the request id', async () => {
    const redisUrl = inject('redisUrl');
    const admin = new Redis(redisUrl);
    // A Redis user that may do anything but GET: every lookup fails, with a reply.
    const user = `log-test-${randomBytes(4).toString('hex')}`;
    await admin.call('ACL', 'SETUSER', user, 'on', '>secret', '~*', '&*', '+@all', '-get');
    try {
      const url = new URL(redisUrl);
      url.username = user;
      url.password = 'secret';
      const logged = loggedApp({ REDIS_URL: url.toString(), REDIS_KEY_PREFIX: `${user}:` });
      const answer = await logged.send('/suggestions?market=se');
      expect(answer.status).toBe(200);
      const warnings = logged.linesOf(answer.requestId).filter((line) => line.level === 40);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]!.msg).toMatch(/Redis unusable/);
      expect(warnings[0]!.err?.message).toMatch(/NOPERM/);
    } finally {
      await admin.call('ACL', 'DELUSER', user);
      admin.disconnect();
    }
  });
});

describe('the format follows stdout', () => {
  const logOne = [
    '--import',
    'tsx',
    '--input-type=module',
    '-e',
    // No single quotes: the terminal test below passes it through a shell.
    'import { createLogger } from "./src/logger.ts";' +
      'createLogger({ logLevel: "info", logFormat: "auto" }).info({ answer: 42 }, "hello");',
  ];

  it('JSON lines into a pipe', async () => {
    const { stdout } = await run(process.execPath, logOne, { cwd: root, env: childEnv({}) });
    expect(JSON.parse(stdout)).toMatchObject({ level: 30, msg: 'hello', answer: 42 });
  });

  it('pino-pretty lines in a terminal', async () => {
    // script(1), of util-linux (Debian's essential bsdutils), gives the child a pseudo-terminal
    // for its stdout.
    const command = [process.execPath, ...logOne].map((arg) => `'${arg}'`).join(' ');
    const { stdout } = await run('script', ['-qec', command, '/dev/null'], {
      cwd: root,
      env: childEnv({}),
    });
    const plain = stdout.replace(/\x1b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: hello \{"answer":42\}\r?\n$/);
  });
});

// On an embedded directory whose `markets` table is gone: the markets query fails in the
// database, as on a server that lost it, whichever database the suite's pass uses.
describe('the production bundle', () => {
  const temporaryDirectory = useTemporaryDirectories('gateway-logging-test-');

  /** A migrated embedded data directory without the `markets` table. */
  async function dataDirectoryWithoutMarkets(): Promise<string> {
    const dataDir = path.join(await temporaryDirectory(), 'pglite');
    await run(process.execPath, ['dist/server/main.mjs', 'migrate'], {
      cwd: root,
      env: childEnv({ EMBEDDED_DATA_DIR: dataDir }),
    });
    const database = await openDatabase({ embeddedDataDir: dataDir });
    try {
      await sql`drop table markets cascade`.execute(database.db);
    } finally {
      await database.close();
    }
    return dataDir;
  }

  it('logs readable error names through pino-pretty, and its last line on SIGTERM', async () => {
    await run('npm', ['run', 'build', '--silent'], { cwd: root });
    const dataDir = await dataDirectoryWithoutMarkets();
    const bundle = startNode(
      ['dist/server/main.mjs', 'serve'],
      childEnv({
        EMBEDDED_DATA_DIR: dataDir,
        PORT: '0',
        SEED_ON_EMPTY: 'false',
        LOG_LEVEL: 'info',
        LOG_FORMAT: 'pretty',
      }),
    );
    try {
      const port = await untilOutput(
        bundle,
        'listening',
        (stdout) => /INFO: listening \{"port":(\d+)/.exec(stdout)?.[1],
      );
      const response = await fetch(
        `http://127.0.0.1:${port}/graphql`,
        graphqlPost('{ markets { code } }', { 'x-request-id': 'bundle-failure' }),
      );
      expect(response.status).toBe(503);
      expect(response.headers.get('x-request-id')).toBe('bundle-failure');
      bundle.child.kill('SIGTERM');
      expect(await bundle.exited).toBe(0);
    } finally {
      await bundle.kill();
    }
    const stdout = bundle.stdout();
    expect(stdout).toMatch(/ERROR: .* \{"component":"graphql","requestId":"bundle-failure"\}/);
    // The bundle renames clashing classes (`_GraphQLError`, `DatabaseError2`, …); logs must not.
    const errorTypes = [...stdout.matchAll(/"type": "([^"]*)"/g)].map((match) => match[1]);
    expect(errorTypes).toContain('GraphQLError');
    expect(errorTypes.filter((type) => !/^[A-Z][A-Za-z]*[a-z]$/.test(type!))).toEqual([]);
    expect(stdout).toMatch(/WARN: POST \/graphql 503 \{"requestId":"bundle-failure"/);
    expect(stdout).toMatch(/INFO: shutting down \{"signal":"SIGTERM"/);
    // The last line, written after the drain: flushed through pino-pretty before the exit.
    expect(stdout.trimEnd()).toMatch(/\n\[[\d:.]+\] INFO: stopped \{[^\n]*\}$/);
  });
});
