/**
 * `serve` as a process on a database of its own: a fresh one on the run's server when there
 * is one, else the embedded one in memory (for tests that need no catalogue), listening on a
 * free loopback port and logging JSON lines.
 */
import { createServerDatabase, dropServerDatabase, serverUrl } from './database.ts';
import { childEnv, jsonLogLines, startNode, untilOutput, type StartedProcess } from './process.ts';

/** Generous: a start migrates a database. */
const PATIENCE_MS = 60_000;

export interface ServeProcess {
  started: StartedProcess;
  /** `http://127.0.0.1:<port>`. */
  base: string;
  /** Its JSON log lines so far. */
  logLines(): Record<string, unknown>[];
  /** Kills it and drops its database. */
  stop(): Promise<void>;
}

/** Starts `serve` with `env` over the defaults above; resolves once it listens. */
export async function startServeProcess(env: Record<string, string>): Promise<ServeProcess> {
  const database = serverUrl === undefined ? undefined : await createServerDatabase(serverUrl);
  const started = startNode(
    ['--import', 'tsx', 'src/main.ts', 'serve'],
    childEnv({
      ...(database === undefined ? { EMBEDDED_DATA_DIR: 'memory://' } : { DATABASE_URL: database }),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_FORMAT: 'json',
      LOG_REQUEST_SAMPLE_RATE: '0',
      ...env,
    }),
  );
  const stop = async () => {
    await started.kill();
    if (database !== undefined) await dropServerDatabase(serverUrl!, database);
  };
  const logLines = () => jsonLogLines(started);
  try {
    const port = await untilOutput(
      started,
      'listening',
      () => logLines().find((line) => line.msg === 'listening')?.port,
      PATIENCE_MS,
    );
    return { started, base: `http://127.0.0.1:${String(port)}`, logLines, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
