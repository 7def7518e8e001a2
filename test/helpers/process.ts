/**
 * Commands run as real processes, the way npm scripts and the Docker image run them
 * (`node --import tsx …`, `node dist/server/main.mjs …`), in an environment that picks no
 * database by accident, with their output read as they write it; and a port for them.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');

/**
 * This process's environment, less anything that would pick another database or mode, and
 * with no shutdown grace.
 */
export function childEnv(overrides: Record<string, string>): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'TEST_DATABASE_URL', 'EMBEDDED_DATA_DIR', 'NODE_ENV']) {
    delete env[name];
  }
  // No load balancer is in front of a test's process to wait for: SIGTERM drains at once
  // (the shutdown tests set the grace they test).
  return {
    ...env,
    LOG_LEVEL: 'info',
    SEED_ON_EMPTY: 'false',
    SHUTDOWN_GRACE_SECONDS: '0',
    ...overrides,
  };
}

export interface StartedProcess {
  readonly child: ChildProcess;
  /** What it has written to stdout so far (the last `tail` characters, when given). */
  stdout(): string;
  stderr(): string;
  /** Its exit code (null when a signal ended it), once its output is read to the end. */
  readonly exited: Promise<number | null>;
  /** Whether it has exited (or been killed). */
  hasExited(): boolean;
  /** SIGKILL unless it has exited already; resolves once it has. */
  kill(): Promise<unknown>;
}

/**
 * Starts `node …args` in the project's directory. Its output is always drained, or a full
 * pipe would block its logging; `tail` bounds what is kept of a talkative one.
 */
export function startNode(
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  tail = Infinity,
): StartedProcess {
  return startProcess(process.execPath, args, env, tail);
}

/** Starts `command …args` in the project's directory, as `startNode` starts node. */
export function startProcess(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  tail = Infinity,
): StartedProcess {
  const child = spawn(command, args, {
    cwd: root,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout = (stdout + chunk).slice(-tail);
  });
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-tail);
  });
  const exited = new Promise<number | null>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', resolve);
  });
  // Heard here too: a caller that kills the process need not wait for its end.
  exited.catch(() => undefined);
  const hasExited = () => child.exitCode !== null || child.signalCode !== null;
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    hasExited,
    kill() {
      if (!hasExited()) child.kill('SIGKILL');
      return exited;
    },
  };
}

/** The JSON log lines (LOG_FORMAT=json) a process has written to stdout so far. */
export function jsonLogLines(started: StartedProcess): Record<string, unknown>[] {
  return jsonLines(started.stdout());
}

/** The JSON lines of a process's output. */
export function jsonLines(output: string): Record<string, unknown>[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{') && line.endsWith('}'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Everything a process has written, to explain how it ended. */
function outputOf(started: StartedProcess): string {
  return `stdout:\n${started.stdout()}\nstderr:\n${started.stderr()}`;
}

/**
 * What `found` reads in the process's stdout, as soon as it reads something. Rejects, with
 * the process's output, if it exits first or `timeoutMs` passes; `what` names the awaited.
 */
export function untilOutput<T>(
  started: StartedProcess,
  what: string,
  found: (stdout: string) => T | undefined,
  timeoutMs?: number,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let check = () => {};
  const seen = new Promise<T>((resolve, reject) => {
    const fail = (reason: string) => reject(new Error(`${reason}:\n${outputOf(started)}`));
    check = () => {
      const value = found(started.stdout());
      if (value !== undefined) resolve(value);
    };
    started.child.stdout!.on('data', check);
    check();
    void started.exited.then((code) => fail(`exited with ${code} before ${what}`), reject);
    if (timeoutMs !== undefined) {
      timer = setTimeout(() => fail(`${what}: not within ${timeoutMs} ms`), timeoutMs);
    }
  });
  return seen.finally(() => {
    clearTimeout(timer);
    started.child.stdout!.off('data', check);
  });
}

export interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a script (src/main.ts, bench/run.ts) to its end. */
export async function runToEnd(
  script: string,
  args: readonly string[],
  overrides: Record<string, string> = {},
): Promise<Finished> {
  const started = startNode(['--import', 'tsx', script, ...args], childEnv(overrides));
  const code = await started.exited;
  return { code, stdout: started.stdout(), stderr: started.stderr() };
}

/** A loopback port nobody listens on at this moment. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}
