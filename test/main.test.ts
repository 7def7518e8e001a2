/**
 * The service as a real process, started the way the Docker image starts it
 * (`node --import tsx src/main.ts serve`): it listens, answers, stops cleanly on SIGTERM,
 * fails fast and readably on a bad configuration or an unreachable database, and keeps its
 * embedded data across restarts.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, it, type TestContext } from 'vitest';
import { createServerDatabase, dropServerDatabase, serverUrl } from './helpers/database.ts';

const root = path.resolve(import.meta.dirname, '..');
const STARTUP_TIMEOUT_MS = 45_000;
const SHUTDOWN_TIMEOUT_MS = 8_000;

interface LogLine {
  msg?: string;
  port?: number;
  [key: string]: unknown;
}

interface Gateway {
  child: ChildProcess;
  logs: LogLine[];
  stdout: () => string;
  stderr: () => string;
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>;
}

/** Every child still running, for the last-resort cleanup in afterAll. */
const running = new Set<Gateway>();

/** The environment of a child: this one's, less anything that would pick another database. */
function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'EMBEDDED_DATA_DIR', 'NODE_ENV']) {
    delete env[name];
  }
  return { ...env, LOG_LEVEL: 'info', SEED_ON_EMPTY: 'false', ...overrides };
}

function kill(gateway: Gateway): Promise<unknown> {
  if (gateway.child.exitCode === null && gateway.child.signalCode === null) {
    gateway.child.kill('SIGKILL');
  }
  return gateway.exited;
}

/** Starts the service; the child is killed when the test ends, whether it passed or not. */
function start(test: TestContext, overrides: Record<string, string>): Gateway {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', 'serve'], {
    cwd: root,
    env: childEnv(overrides),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  const logs: LogLine[] = [];
  let partial = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
    // pino writes one JSON object per line; a chunk may end inside a line.
    const lines = (partial + chunk).split('\n');
    partial = lines.pop()!;
    for (const line of lines.filter((l) => l.trim() !== '')) {
      try {
        logs.push(JSON.parse(line) as LogLine);
      } catch {
        logs.push({ msg: line });
      }
    }
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const gateway: Gateway = { child, logs, stdout: () => stdout, stderr: () => stderr, exited };
  running.add(gateway);
  void exited.then(() => running.delete(gateway));
  test.onTestFinished(async () => {
    await kill(gateway);
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
async function listening(gateway: Gateway): Promise<string> {
  const found = new Promise<string>((resolve, reject) => {
    const check = () => {
      const line = gateway.logs.find((log) => log.msg === 'listening');
      if (line && typeof line.port === 'number') resolve(`http://127.0.0.1:${line.port}`);
    };
    gateway.child.stdout!.on('data', check);
    check();
    void gateway.exited.then((code) =>
      reject(new Error(`exited with ${code} before listening:\n${gateway.stderr()}`)),
    );
  });
  return withTimeout(found, STARTUP_TIMEOUT_MS, 'start-up').catch((error: Error) => {
    error.message += `\nstdout:\n${gateway.stdout()}\nstderr:\n${gateway.stderr()}`;
    throw error;
  });
}

async function stop(gateway: Gateway): Promise<number | null> {
  gateway.child.kill('SIGTERM');
  return withTimeout(gateway.exited, SHUTDOWN_TIMEOUT_MS, 'shutdown after SIGTERM');
}

const temporaryDirectories: string[] = [];
async function temporaryDirectory(): Promise<string> {
  const directory = await mkdtemp(path.join(tmpdir(), 'gateway-main-test-'));
  temporaryDirectories.push(directory);
  return directory;
}

const serverDatabases: string[] = [];

afterAll(async () => {
  await Promise.all([...running].map(kill));
  await Promise.all(temporaryDirectories.map((d) => rm(d, { recursive: true, force: true })));
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
      database = { EMBEDDED_DATA_DIR: await temporaryDirectory() };
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
    expect(gateway.logs.map((log) => log.msg)).toContain('shutting down');
  });

  it('exits non-zero with a readable reason when the database is unreachable', async (test) => {
    const { expect } = test;
    const gateway = start(test, { PORT: '0', DATABASE_URL: 'postgres://postgres@127.0.0.1:1/x' });
    const code = await withTimeout(gateway.exited, 30_000, 'exit on unreachable database');
    expect(code).not.toBe(0);
    expect(code).not.toBeNull();
    expect(gateway.stderr()).toContain('cannot reach the database: ECONNREFUSED');
    expect(gateway.stderr()).not.toMatch(/\n\s+at /); // a reason, not a stack trace
    expect(gateway.logs.map((log) => log.msg)).not.toContain('listening');
  });

  it('exits with code 2 and names the variable on an invalid configuration', async (test) => {
    const { expect } = test;
    const gateway = start(test, { PORT: 'abc', EMBEDDED_DATA_DIR: await temporaryDirectory() });
    const code = await withTimeout(gateway.exited, 20_000, 'exit on invalid configuration');
    expect(code).toBe(2);
    expect(gateway.stderr()).toContain('Invalid configuration');
    expect(gateway.stderr()).toContain('PORT must be an integer from 0 to 65535, got "abc"');
  });

  it('keeps embedded data across restarts: the second start migrates nothing and is ready', async (test) => {
    const { expect } = test;
    const dataDir = await temporaryDirectory();

    const first = start(test, { PORT: '0', EMBEDDED_DATA_DIR: dataDir });
    await listening(first);
    expect(first.logs.map((log) => log.msg)).toContain('migrations applied');
    expect(await stop(first)).toBe(0);

    const second = start(test, { PORT: '0', EMBEDDED_DATA_DIR: dataDir });
    const base = await listening(second);
    expect(second.logs.map((log) => log.msg)).not.toContain('migrations applied');
    const ready = await fetch(`${base}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ready', database: 'embedded' });
    expect(await stop(second)).toBe(0);
  });
});
