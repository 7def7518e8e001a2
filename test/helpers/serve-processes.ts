/**
 * `serve` as real processes on a server database, as an operator runs it: an empty database
 * on the run's server (or, in the PGlite pass, on a scratch cluster of its own), the service
 * started on it with JSON logs, its log lines awaited, and its workers' processes found.
 */
import { readFile } from 'node:fs/promises';
import { get } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { createServerDatabase, dropServerDatabase, serverUrl } from './database.ts';
import { requirePrerequisite } from './prerequisites.ts';
import { childEnv, jsonLogLines, startNode, untilOutput, type StartedProcess } from './process.ts';
import { createScratchCluster, postgresBinDir } from './scratch-cluster.ts';

/** Generous: a start migrates and may seed the sample catalogue (seconds on a quiet machine). */
export const PATIENCE_MS = 90_000;

export type LogLine = Record<string, unknown>;

/** An empty database on a server, and how to remove it. */
export async function emptyServerDatabase(): Promise<{ url: string; remove(): Promise<void> }> {
  if (serverUrl !== undefined) {
    const url = await createServerDatabase(serverUrl);
    return { url, remove: () => dropServerDatabase(serverUrl!, url) };
  }
  requirePrerequisite(
    postgresBinDir !== undefined,
    "several processes need a database server: PostgreSQL 15's server binaries " +
      '(apt-get install postgresql-15) or TEST_DATABASE_URL',
  );
  const cluster = await createScratchCluster();
  return { url: cluster.url(), remove: () => cluster.destroy() };
}

/**
 * An empty server database for the tests of the describe calling this, made before them and
 * removed after them, with every process `serve` started on it.
 */
export function useEmptyServerDatabase() {
  let database: Awaited<ReturnType<typeof emptyServerDatabase>> | undefined;
  const started: StartedProcess[] = [];
  beforeAll(async () => {
    database = await emptyServerDatabase();
  });
  afterAll(async () => {
    await Promise.all(started.map((process) => process.kill()));
    await database?.remove();
  });
  return {
    get url(): string {
      return database!.url;
    },
    /** `serve` on it (or on `url`), killed after the tests unless it has stopped. */
    serve(env: Record<string, string> = {}, url = database!.url): StartedProcess {
      const process = startServe(url, env);
      started.push(process);
      return process;
    },
  };
}

/** `serve` on the database at `databaseUrl`, on a free loopback port, logging JSON lines. */
export function startServe(databaseUrl: string, env: Record<string, string> = {}): StartedProcess {
  return startNode(
    ['--import', 'tsx', 'src/main.ts', 'serve'],
    childEnv({
      DATABASE_URL: databaseUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      LOG_REQUEST_SAMPLE_RATE: '0',
      ...env,
    }),
  );
}

/** The lines whose message is `message`, once there are `count` of them. */
export function logged(started: StartedProcess, message: string, count = 1): Promise<LogLine[]> {
  return untilOutput(
    started,
    `'${message}' logged ${count} times`,
    () => {
      const lines = jsonLogLines(started).filter((line) => line.msg === message);
      return lines.length >= count ? lines : undefined;
    },
    PATIENCE_MS,
  );
}

/** The processes of the primary's live workers, by the children the OS lists for it. */
export async function workerPids(primary: StartedProcess): Promise<number[]> {
  const children = await readFile(
    `/proc/${primary.child.pid}/task/${primary.child.pid}/children`,
    'utf8',
  );
  return children
    .trim()
    .split(/\s+/)
    .filter((pid) => pid !== '')
    .map(Number);
}

/**
 * A GET on a connection opened for it and closed after: a cluster's primary hands each new
 * connection to the next worker in turn.
 */
export function getOnNewConnection(
  port: unknown,
  path: string,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port: Number(port), path, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    }).on('error', reject);
  });
}
