/**
 * The gateway as a real process (`node --import tsx src/main.ts serve`) on a seeded catalogue,
 * for the shutdown tests: its log lines and a wait for one of them; plain HTTP requests that
 * report whether they travelled on a reused connection; and what counts as a complete answer.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { Agent, get, type IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { afterAll, beforeAll, inject } from 'vitest';
import { createServerDatabase, databaseKind, dropServerDatabase, serverUrl } from './database.ts';
import { childEnv, jsonLogLines, startNode, untilOutput, type StartedProcess } from './process.ts';
import { createScratchCluster, requireServerBinaries } from './scratch-cluster.ts';
import { fillScratchDatabase } from './scratch-database.ts';

/** Generous: a drain takes at most SHUTDOWN_DRAIN_SECONDS (10 s) after its grace. */
export const EXIT_PATIENCE_MS = 30_000;
/** Generous: on a machine this busy, the embedded database takes long to open. */
const START_PATIENCE_MS = 120_000;
/** What a test of a few gateway processes may take on a busy machine. */
export const TEST_TIMEOUT_MS = 300_000;

export interface SeededDatabase {
  env: Record<string, string>;
  remove(): Promise<void>;
}

/**
 * A seeded catalogue on a database server, which several processes may share (WORKERS above 1
 * needs one): on the run's server, or on a scratch cluster of its own in the embedded pass.
 */
export async function seededServerDatabase(): Promise<SeededDatabase> {
  const templates = inject('databaseTemplates');
  if (templates.kind === 'postgres') {
    const url = await createServerDatabase(serverUrl!, templates.databases.seeded);
    return { env: { DATABASE_URL: url }, remove: () => dropServerDatabase(serverUrl!, url) };
  }
  requireServerBinaries('several processes on one database need a database server');
  const cluster = await createScratchCluster();
  try {
    const url = await fillScratchDatabase(cluster, 'seeded');
    return { env: { DATABASE_URL: url }, remove: () => cluster.destroy() };
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
}

/**
 * A seeded catalogue for a gateway: a server database (which several gateways may share), or
 * an embedded data directory of its own.
 */
export async function seededDatabase(): Promise<SeededDatabase> {
  if (databaseKind === 'postgres') return seededServerDatabase();
  const templates = inject('databaseTemplates');
  if (templates.kind !== 'embedded') throw new Error('the embedded pass has embedded templates');
  const directory = await mkdtemp(path.join(tmpdir(), 'catalogue-shutdown-'));
  const dataDir = path.join(directory, 'pglite');
  const dump = new Blob([await readFile(templates.files.seeded)]);
  const pglite = await PGlite.create(dataDir, { loadDataDir: dump, extensions: { pg_trgm } });
  await pglite.close();
  return {
    env: { EMBEDDED_DATA_DIR: dataDir },
    remove: () => rm(directory, { recursive: true, force: true }),
  };
}

/** A seeded catalogue the file's tests share: made before them, removed after them. */
export function useSeededDatabase(): () => SeededDatabase {
  let database: SeededDatabase | undefined;
  beforeAll(async () => {
    database = await seededDatabase();
  });
  afterAll(async () => {
    await database?.remove();
  });
  return () => database!;
}

export interface GatewayProcess {
  service: StartedProcess;
  logLines(): Record<string, unknown>[];
  /** Every log line with this message so far (one per worker with WORKERS above 1). */
  linesOf(message: string): Record<string, unknown>[];
  /** The first log line with this message, once it is written (within `patienceMs`). */
  logged(message: string, patienceMs?: number): Promise<Record<string, unknown>>;
  /** The port it listens on, once it does. */
  port(): Promise<number>;
}

/** The gateway on `database`, logging JSON lines about its shutdown, not one per request. */
export function startGateway(
  database: SeededDatabase,
  env: Record<string, string> = {},
): GatewayProcess {
  const service = startNode(
    ['--import', 'tsx', 'src/main.ts', 'serve'],
    childEnv({
      ...database.env,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      LOG_REQUEST_SAMPLE_RATE: '0',
      // Every request reaches the database, none is rate limited.
      RESPONSE_CACHE_TTL_SECONDS: '0',
      RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
      RATE_LIMIT_CLIENT_PER_MINUTE: '0',
      ...env,
    }),
  );
  const logLines = () => jsonLogLines(service);
  const logged = (message: string, patienceMs = EXIT_PATIENCE_MS) =>
    untilOutput(
      service,
      `'${message}' logged`,
      () => logLines().find((line) => line.msg === message),
      patienceMs,
    );
  return {
    service,
    logLines,
    linesOf: (message) => logLines().filter((line) => line.msg === message),
    logged,
    port: async () => Number((await logged('listening', START_PATIENCE_MS)).port),
  };
}

/** Runs `test` with a gateway on `database`, killed afterwards however the test ends. */
export async function withGateway<T>(
  database: SeededDatabase,
  env: Record<string, string>,
  test: (gateway: GatewayProcess) => Promise<T>,
): Promise<T> {
  const gateway = startGateway(database, env);
  try {
    return await test(gateway);
  } finally {
    await gateway.service.kill();
  }
}

export interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  /** Whether the request went on a connection an earlier request had used. */
  reusedSocket: boolean;
}

/**
 * A GET through `agent` (false: a connection of its own, closed after the answer); `written`
 * is told once the request has been sent whole.
 */
export function send(
  base: string,
  requestPath: string,
  agent: Agent | false,
  written?: () => void,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = get(`${base}${requestPath}`, { agent }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('error', reject);
      response.on('end', () => {
        if (!response.complete) reject(new Error('the answer was cut short'));
        const { statusCode, headers } = response;
        resolve({ status: statusCode!, headers, body, reusedSocket: request.reusedSocket });
      });
    });
    request.on('error', reject);
    if (written) request.on('finish', written);
  });
}

/** A complete answer: a 200 whose body is as long as it says and parses. */
export function isComplete(answer: Answer | undefined): boolean {
  if (answer?.status !== 200) return false;
  if (Buffer.byteLength(answer.body) !== Number(answer.headers['content-length'])) return false;
  try {
    JSON.parse(answer.body);
    return true;
  } catch {
    return false;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
