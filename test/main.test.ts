/**
 * The service as a real process, started the way the Docker image starts it
 * (`node --import tsx src/main.ts serve`): it listens, answers, stops cleanly on SIGTERM,
 * fails fast and readably on a bad configuration, an unreachable database or a port already
 * taken, and keeps its embedded data across restarts in a directory it creates itself, locked
 * against a second process. In production it seeds nothing unless asked.
 */
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, it, type TestContext } from 'vitest';
import { createServerDatabase, dropServerDatabase, serverUrl } from './helpers/database.ts';
import { demoTokenRequest } from './helpers/rest.ts';
import {
  childEnv,
  runToEnd,
  startNode,
  untilOutput,
  type StartedProcess,
} from './helpers/process.ts';
import { useTemporaryDirectories } from './helpers/temporary-directories.ts';

const STARTUP_TIMEOUT_MS = 45_000;
/** A first start that seeds the sample catalogue (tens of seconds on a busy machine). */
const SEEDING_STARTUP_TIMEOUT_MS = 150_000;
/** A case that starts the service and then another command or a second start. */
const TWO_STARTS_TIMEOUT_MS = 2 * STARTUP_TIMEOUT_MS + 30_000;
const PRODUCTION_TOKEN_SECRET = 'main-test-token-secret-not-published-0123456789';
const SHUTDOWN_TIMEOUT_MS = 8_000;

interface LogLine {
  msg?: string;
  port?: number;
  [key: string]: unknown;
}

/** pino's JSON lines written so far (a chunk may end inside a line); any other line as a message. */
function logLines(stdout: string): LogLine[] {
  return stdout
    .split('\n')
    .slice(0, -1)
    .filter((line) => line.trim() !== '')
    .map((line) => {
      try {
        return JSON.parse(line) as LogLine;
      } catch {
        return { msg: line };
      }
    });
}

interface Gateway extends StartedProcess {
  logs(): LogLine[];
}

/** Every child still running, for the last-resort cleanup in afterAll. */
const running = new Set<Gateway>();

/** Starts the service; the child is killed when the test ends, whether it passed or not. */
function start(test: TestContext, overrides: Record<string, string>): Gateway {
  const started = startNode(['--import', 'tsx', 'src/main.ts', 'serve'], childEnv(overrides));
  const gateway: Gateway = { ...started, logs: () => logLines(started.stdout()) };
  running.add(gateway);
  void gateway.exited.then(() => running.delete(gateway));
  test.onTestFinished(async () => {
    await gateway.kill();
  });
  return gateway;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Resolves with the base URL once the process logs 'listening'; rejects if it exits first. */
async function listening(gateway: Gateway, timeoutMs = STARTUP_TIMEOUT_MS): Promise<string> {
  const found = (stdout: string) => {
    const line = logLines(stdout).find((log) => log.msg === 'listening');
    return typeof line?.port === 'number' ? `http://127.0.0.1:${line.port}` : undefined;
  };
  return untilOutput(gateway, 'listening', found, timeoutMs);
}

/** The service as the image runs it (NODE_ENV=production), on a fresh embedded database. */
async function startInProduction(
  test: TestContext,
  overrides: Record<string, string>,
): Promise<Gateway> {
  const dataDir = path.join(await temporaryDirectory(), 'pglite');
  return start(test, {
    PORT: '0',
    EMBEDDED_DATA_DIR: dataDir,
    NODE_ENV: 'production',
    TOKEN_SECRET: PRODUCTION_TOKEN_SECRET,
    ...overrides,
  });
}

/** Whether the catalogue behind a running service has a product on offer in a market. */
async function hasProducts(base: string): Promise<boolean> {
  const response = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ products(market: SE, first: 1) { edges { cursor } } }' }),
  });
  const body = (await response.json()) as { data: { products: { edges: unknown[] } } };
  return body.data.products.edges.length > 0;
}

async function stop(gateway: Gateway): Promise<number | null> {
  gateway.child.kill('SIGTERM');
  return withTimeout(gateway.exited, SHUTDOWN_TIMEOUT_MS, 'shutdown after SIGTERM');
}

const temporaryDirectory = useTemporaryDirectories('gateway-main-test-');

const serverDatabases: string[] = [];

afterAll(async () => {
  await Promise.all([...running].map((gateway) => gateway.kill()));
  if (serverUrl)
    await Promise.all(serverDatabases.map((url) => dropServerDatabase(serverUrl!, url)));
});

// Each case's children are killed when that case ends (onTestFinished), pass or fail. The
// cases run one after another: side by side, their start-ups only compete for the same cores.
describe('the service as a process', () => {
  it(`listens, answers health, readiness and GraphQL on ${serverUrl ? 'a Postgres server' : 'the embedded database'}, and exits 0 on SIGTERM`, async (test) => {
    const { expect } = test;
    let database: Record<string, string>;
    if (serverUrl) {
      const url = await createServerDatabase(serverUrl);
      serverDatabases.push(url);
      database = { DATABASE_URL: url };
    } else {
      // Inside a temporary directory, so that the lock beside it goes with it.
      database = { EMBEDDED_DATA_DIR: path.join(await temporaryDirectory(), 'pglite') };
    }
    const gateway = start(test, { PORT: '0', ...database });
    const base = await listening(gateway);

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);

    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      database: serverUrl ? 'postgres' : 'embedded',
    });

    const graphiql = await fetch(`${base}/graphql`, { headers: { accept: 'text/html' } });
    expect(graphiql.status).toBe(200);
    expect(graphiql.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await graphiql.text()).toContain('GraphiQL');

    const response = await fetch(`${base}/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ markets { code currency } }' }),
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as { data: { markets: unknown[] } };
    expect(body.data.markets).toHaveLength(7);
    expect(body.data.markets).toContainEqual({ code: 'SE', currency: 'SEK' });

    expect(await stop(gateway)).toBe(0);
    expect(gateway.logs().map((log) => log.msg)).toContain('shutting down');
  });

  it('exits non-zero with a readable reason, its last log line, when the database is unreachable', async (test) => {
    const { expect } = test;
    const gateway = start(test, { PORT: '0', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' });
    const code = await withTimeout(gateway.exited, 30_000, 'exit on unreachable database');
    expect(code).toBe(1);
    // A reason, not a stack trace: JSON like every other line, nothing on stderr.
    expect(gateway.stderr()).toBe('');
    expect(gateway.logs().at(-1)).toEqual(
      expect.objectContaining({
        level: 60,
        msg: 'cannot reach the database: ECONNREFUSED',
        exitCode: 1,
        pid: gateway.child.pid,
      }),
    );
    expect(gateway.logs().at(-1)).not.toHaveProperty('err');
    expect(gateway.logs().map((log) => log.msg)).not.toContain('listening');
  });

  it('exits with code 2 and names the variable on an invalid configuration', async (test) => {
    const { expect } = test;
    const gateway = start(test, { PORT: 'abc', EMBEDDED_DATA_DIR: await temporaryDirectory() });
    const code = await withTimeout(gateway.exited, 20_000, 'exit on invalid configuration');
    expect(code).toBe(2);
    expect(gateway.stderr()).toContain('Invalid configuration');
    expect(gateway.stderr()).toContain('PORT must be an integer from 0 to 65535, got "abc"');
  });

  it(
    'creates a nested data directory and keeps its data across restarts: the second start migrates nothing',
    async (test) => {
      const { expect } = test;
      const dataDir = path.join(await temporaryDirectory(), 'not', 'yet', 'pglite');

      const first = start(test, { PORT: '0', EMBEDDED_DATA_DIR: dataDir });
      await listening(first);
      expect(first.logs().map((log) => log.msg)).toContain('migrations applied');
      expect(await stop(first)).toBe(0);

      const second = start(test, { PORT: '0', EMBEDDED_DATA_DIR: dataDir });
      const base = await listening(second);
      expect(second.logs().map((log) => log.msg)).not.toContain('migrations applied');
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready', database: 'embedded' });
      expect(await stop(second)).toBe(0);
    },
    TWO_STARTS_TIMEOUT_MS,
  );

  it('refuses a port already in use at once, in one log line, before opening the database', async (test) => {
    const { expect } = test;
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '0.0.0.0', resolve));
    test.onTestFinished(() => new Promise<void>((resolve) => taken.close(() => resolve())));
    const port = (taken.address() as { port: number }).port;
    const dataDir = path.join(await temporaryDirectory(), 'pglite');

    const gateway = start(test, { PORT: String(port), EMBEDDED_DATA_DIR: dataDir });
    const code = await withTimeout(gateway.exited, 30_000, 'exit on a port in use');
    expect(code).toBe(1);
    expect(gateway.stderr()).toBe('');
    expect(gateway.logs()).toEqual([
      expect.objectContaining({
        level: 60,
        msg: `port ${port} is already in use (another process listens on 0.0.0.0:${port}); stop it or set PORT`,
        exitCode: 1,
      }),
    ]);
    expect(gateway.logs().map((log) => log.msg)).not.toContain('opening database');
    expect(existsSync(dataDir)).toBe(false);
  });

  it(
    'refuses a seed of the embedded directory a running server holds; frees it on exit',
    async (test) => {
      const { expect } = test;
      const dataDir = path.join(await temporaryDirectory(), 'pglite');
      const gateway = start(test, { PORT: '0', EMBEDDED_DATA_DIR: dataDir });
      await listening(gateway);

      const seed = await runToEnd('src/main.ts', ['seed'], { EMBEDDED_DATA_DIR: dataDir });
      expect(seed.code).toBe(1);
      expect(seed.stderr).toBe('');
      expect(logLines(seed.stdout).at(-1)).toEqual(
        expect.objectContaining({
          level: 60,
          msg: expect.stringContaining(
            `the embedded database ${dataDir} is in use by another process`,
          ),
        }),
      );
      expect(seed.stdout).not.toContain('catalogue seeded');

      expect(await stop(gateway)).toBe(0);
      const migrate = await runToEnd('src/main.ts', ['migrate'], { EMBEDDED_DATA_DIR: dataDir });
      expect(migrate.stderr).toBe('');
      expect(migrate.code).toBe(0);
      expect(migrate.stdout).toContain('up to date');
    },
    TWO_STARTS_TIMEOUT_MS,
  );

  it('seeds nothing in production unless SEED_ON_EMPTY=true: no sample data, no demo client', async (test) => {
    const { expect } = test;
    const gateway = await startInProduction(test, { SEED_ON_EMPTY: '' });
    const base = await listening(gateway);
    expect(gateway.logs().map((log) => log.msg)).not.toContain('empty catalogue: seeding');
    expect(await hasProducts(base)).toBe(false);
    // Refused (the token endpoint's own status).
    expect((await fetch(demoTokenRequest(base))).ok).toBe(false);
    expect(await stop(gateway)).toBe(0);
  });

  it(
    'seeds in production when SEED_ON_EMPTY=true, with progress lines when stderr is no terminal',
    async (test) => {
      const { expect } = test;
      const gateway = await startInProduction(test, { SEED_ON_EMPTY: 'true' });
      const base = await listening(gateway, SEEDING_STARTUP_TIMEOUT_MS);
      const messages = gateway.logs().map((log) => log.msg);
      expect(messages.indexOf('port bound; preparing the database')).toBeLessThan(
        messages.indexOf('empty catalogue: seeding'),
      );
      expect(messages).toContain('catalogue seeded');
      // The progress of `npm run seed` (seeds/progress.ts): a line per phase, no bar.
      expect(gateway.stderr()).toMatch(/^seed +[\d.]+ s {2}products: \d+ products$/m);
      expect(gateway.stderr()).toMatch(/^seed +[\d.]+ s {2}products: done, \d+ products in /m);
      expect(gateway.stderr()).not.toContain('\r');
      expect(await hasProducts(base)).toBe(true);
      // The sample catalogue without its demo client: production adds it only when
      // SEED_DEMO_CLIENT=true (test/db/demo-client.test.ts).
      expect((await fetch(demoTokenRequest(base))).ok).toBe(false);
      expect(await stop(gateway)).toBe(0);
    },
    SEEDING_STARTUP_TIMEOUT_MS + 30_000,
  );
});
