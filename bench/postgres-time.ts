/**
 * Postgres time per request, per system: the CPU time of the server backends serving the
 * system's pool, read from `/proc/<pid>/schedstat` (nanoseconds on a CPU) before and after a
 * measurement. Each system connects under its own `application_name` (PGAPPNAME, which
 * node-postgres reads), so `pg_stat_activity` names its backends.
 *
 * Why not pg_stat_statements' `total_exec_time`: it needs `shared_preload_libraries`, which
 * the benchmark's server does not load (loading it takes a restart), and it could not tell
 * the gateway's statements from the naive variant's anyway (the same texts). Backend CPU time
 * also holds parsing, planning and the wire protocol, which is Postgres's work per request
 * too; it leaves out waiting (for locks or disk), which a warm, read-only catalogue hardly
 * does. It needs the server on this machine: elsewhere, none is reported.
 */
import { readFile } from 'node:fs/promises';
import pg from 'pg';

/** The application_name a system's connections carry. */
export const applicationName = (system: string) => `bench-${system}`;

/** Backend pid → nanoseconds it has run on a CPU so far. */
export type BackendTimes = Map<number, number>;

async function runTime(pid: number): Promise<number | undefined> {
  try {
    const [onCpu] = (await readFile(`/proc/${pid}/schedstat`, 'utf8')).split(' ');
    return Number(onCpu);
  } catch {
    return undefined; // the backend has exited since it was listed
  }
}

export interface PostgresTime {
  /** Run time so far of every backend of `system`. */
  sample(system: string): Promise<BackendTimes>;
  close(): Promise<void>;
}

/**
 * Reads backend times through a connection of its own, or answers why it cannot (the server
 * runs elsewhere): then the report shows no Postgres time.
 */
export async function openPostgresTime(
  databaseUrl: string,
): Promise<PostgresTime | { unavailable: string }> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
  const comm = await readFile(`/proc/${rows[0]!.pid}/comm`, 'utf8').catch(() => '');
  if (comm.trim() !== 'postgres' || (await runTime(rows[0]!.pid)) === undefined) {
    await client.end();
    return { unavailable: 'the Postgres server does not run on this machine' };
  }
  return {
    async sample(system) {
      const backends = await client.query<{ pid: number }>(
        'select pid from pg_stat_activity where application_name = $1',
        [applicationName(system)],
      );
      const times: BackendTimes = new Map();
      for (const { pid } of backends.rows) {
        const time = await runTime(pid);
        if (time !== undefined) times.set(pid, time);
      }
      return times;
    },
    close: () => client.end(),
  };
}

/**
 * Milliseconds the backends ran between two samples; a backend absent from `before`
 * connected in between and counts from its start.
 */
export function millisecondsBetween(before: BackendTimes, after: BackendTimes): number {
  let nanoseconds = 0;
  for (const [pid, time] of after) nanoseconds += time - (before.get(pid) ?? 0);
  return nanoseconds / 1e6;
}
