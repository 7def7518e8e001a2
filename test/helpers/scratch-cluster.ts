/**
 * A throw-away PostgreSQL cluster of the locally installed server, for tests that stop and
 * restart the server under a running service (the shared test server must stay up). It
 * listens on 127.0.0.1 at a free port with trust authentication and fsync off; its files live
 * in a temporary directory that `destroy()` removes. initdb refuses to run as root: as root,
 * every server command runs as the `postgres` user.
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { freePort } from './process.ts';
import { requirePrerequisite } from './prerequisites.ts';

const run = promisify(execFile);
const INSTALLATIONS = '/usr/lib/postgresql';

/** The newest installed server's bin directory (Debian's layout), if any. */
export const postgresBinDir: string | undefined = (() => {
  if (!existsSync(INSTALLATIONS)) return undefined;
  const versions = readdirSync(INSTALLATIONS)
    .filter((version) => existsSync(path.join(INSTALLATIONS, version, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] === undefined ? undefined : path.join(INSTALLATIONS, versions[0], 'bin');
})();

/**
 * Fails the test file at once, in one line, when no PostgreSQL server binaries are installed:
 * `what` is who needs them and which, e.g. "the outage test … (initdb, pg_ctl)".
 */
export function requireServerBinaries(what: string): void {
  requirePrerequisite(
    postgresBinDir !== undefined,
    `${what} under ${INSTALLATIONS}: apt-get install postgresql-15`,
  );
}

const asRoot = process.getuid?.() === 0;

/** Runs a program of the installation, as `postgres` when we are root. */
async function runServerCommand(program: string, args: string[]): Promise<string> {
  const [file, argv] = asRoot
    ? ['runuser', ['-u', 'postgres', '--', program, ...args]]
    : [program, args];
  const { stdout } = await run(file, argv, { encoding: 'utf8' });
  return stdout;
}

export interface ScratchCluster {
  readonly port: number;
  /** The URL of a database of this cluster (`postgres` by default). */
  url(database?: string): string;
  /** `pg_ctl restart -m fast`: every session is terminated; returns once it accepts again. */
  restart(): Promise<void>;
  /** `pg_ctl stop -m fast`: returns once the server is down. */
  stop(): Promise<void>;
  /** `pg_ctl start`: returns once it accepts connections. */
  start(): Promise<void>;
  /** Whether the server accepts connections now (pg_isready). */
  acceptsConnections(): Promise<boolean>;
  /** Stops the server if it runs and removes its files; safe to call more than once. */
  destroy(): Promise<void>;
}

/**
 * `replicaOf`: a streaming replica of that cluster instead of a fresh one: its data directory
 * is the primary's base backup (`pg_basebackup -R`, which also writes the standby's
 * connection to the primary), and it starts as a hot standby, replaying the primary's WAL.
 */
export async function createScratchCluster(
  options: { replicaOf?: ScratchCluster } = {},
): Promise<ScratchCluster> {
  if (postgresBinDir === undefined) throw new Error(`no PostgreSQL server under ${INSTALLATIONS}`);
  const bin = (program: string) => path.join(postgresBinDir!, program);
  // Created by the user that runs the server, so that it owns the directory.
  const directory = (
    await runServerCommand('mktemp', ['-d', '/tmp/catalogue-scratch-cluster-XXXXXX'])
  ).trim();
  const dataDir = path.join(directory, 'data');
  const logFile = path.join(directory, 'server.log');
  const port = await freePort();
  const serverOptions = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${directory}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
  ].join(' ');
  const pgCtl = (...args: string[]) =>
    runServerCommand(bin('pg_ctl'), ['-D', dataDir, '-l', logFile, '-w', '-t', '60', ...args]);

  let removed = false;
  const cluster: ScratchCluster = {
    port,
    url: (database = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${database}`,
    restart: async () => void (await pgCtl('restart', '-m', 'fast', '-o', serverOptions)),
    stop: async () => void (await pgCtl('stop', '-m', 'fast')),
    start: async () => void (await pgCtl('start', '-o', serverOptions)),
    async acceptsConnections() {
      try {
        await run(bin('pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]);
        return true;
      } catch {
        return false;
      }
    },
    async destroy() {
      if (removed) return;
      removed = true;
      await pgCtl('stop', '-m', 'immediate').catch(() => undefined);
      await rm(directory, { recursive: true, force: true });
    },
  };
  try {
    if (options.replicaOf) {
      // A fast checkpoint on the primary: the default spreads it over minutes.
      await runServerCommand(bin('pg_basebackup'), [
        ...['-h', '127.0.0.1', '-p', String(options.replicaOf.port), '-U', 'postgres'],
        ...['-D', dataDir, '-R', '-X', 'stream', '--checkpoint=fast', '--no-sync'],
      ]);
    } else {
      await runServerCommand(bin('initdb'), [
        '-D',
        dataDir,
        '-U',
        'postgres',
        '-A',
        'trust',
        '-E',
        'UTF8',
        '--no-sync',
      ]);
    }
    await cluster.start();
  } catch (error) {
    await cluster.destroy();
    throw error;
  }
  return cluster;
}
