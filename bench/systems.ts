/**
 * The systems under test, each its own process on its own port: the gateway, the gateway with
 * DataLoader off (naive), the raw-SQL baseline, the gateway with its response cache on, and
 * PostGraphile v5 (bench/postgraphile).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { applicationName } from './postgres-time.ts';

export type SystemId = 'gateway' | 'raw' | 'naive' | 'cached' | 'postgraphile';

export const GATEWAY_PORT = 4101;

/**
 * The gateway's settings for every variant: as deployed (the image sets NODE_ENV=production,
 * which also turns off graphql-js's development checks), no rate limit, and no response cache
 * unless asked: headline figures reach Postgres on every request (performance.md), and no
 * catalogue clock: a benchmark measures reads of a fixed catalogue, not a day's rebuild. Links
 * (`self`, `next`) are built on the public base, by default each process's own address: one
 * base for all, the gateway's, lets the variants answer byte for byte alike.
 */
export const GATEWAY_ENV = {
  NODE_ENV: 'production',
  PUBLIC_BASE_URL: `http://127.0.0.1:${GATEWAY_PORT}`,
  TOKEN_SECRET: 'benchmark-only-token-secret-0123456789abcdef',
  SEED_ON_EMPTY: 'false',
  CATALOGUE_CLOCK: 'false',
  RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
  RATE_LIMIT_CLIENT_PER_MINUTE: '0',
  RESPONSE_CACHE_TTL_SECONDS: '0',
};

/** The gateway as the image runs it: the production bundle `npm run build` writes. */
export const GATEWAY_ENTRY = 'dist/server/main.mjs';

export interface SystemSpec {
  id: SystemId;
  port: number;
  /** A built JavaScript file, run as it is, or a TypeScript file, run through tsx. */
  entry: string;
  env: Record<string, string>;
  /** Extra flags for node, e.g. --cpu-prof. */
  nodeFlags?: string[];
}

export interface RunningSystem {
  spec: SystemSpec;
  baseUrl: string;
  /** From spawning the process to the first 200 from /readyz. */
  readyMs: number;
  process: ChildProcess;
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 60_000;

async function ready(baseUrl: string): Promise<boolean> {
  try {
    const response = await fetch(`${baseUrl}/readyz`);
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

export async function startSystem(spec: SystemSpec, databaseUrl: string): Promise<RunningSystem> {
  const baseUrl = `http://127.0.0.1:${spec.port}`;
  if (await ready(baseUrl)) throw new Error(`port ${spec.port} is taken by a running service`);
  const startedAt = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...(spec.nodeFlags ?? []),
      ...(spec.entry.endsWith('.ts') ? ['--import', 'tsx'] : []),
      spec.entry,
    ],
    {
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(spec.port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        // Names the system's Postgres backends (bench/postgres-time.ts).
        PGAPPNAME: applicationName(spec.id),
        ...spec.env,
      },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
  let exitCode: number | null | undefined;
  void exited.then((code) => (exitCode = code));

  while (!(await ready(baseUrl))) {
    if (exitCode !== undefined) throw new Error(`${spec.id} exited with ${exitCode} at start`);
    if (performance.now() - startedAt > READY_TIMEOUT_MS) {
      child.kill('SIGKILL');
      throw new Error(`${spec.id} was not ready within ${READY_TIMEOUT_MS / 1000} s`);
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return {
    spec,
    baseUrl,
    readyMs: performance.now() - startedAt,
    process: child,
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Resident set size of a process in bytes (Linux). */
export async function residentBytes(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const kilobytes = /^VmRSS:\s+(\d+) kB$/m.exec(status);
  return kilobytes ? Number(kilobytes[1]) * 1024 : 0;
}

/** Samples a process's resident set while a measurement runs; `stop` gives the peak. */
export function sampleResidentSet(pid: number, intervalMs = 100) {
  let peak = 0;
  const sample = () =>
    residentBytes(pid).then(
      (bytes) => (peak = Math.max(peak, bytes)),
      () => undefined,
    );
  void sample();
  const timer = setInterval(sample, intervalMs);
  return {
    async stop(): Promise<number> {
      clearInterval(timer);
      await sample();
      return peak;
    },
  };
}

/** The SQL statements a system has run so far (its /metrics counter). */
export async function statementsSoFar(system: RunningSystem): Promise<number> {
  const response = await fetch(`${system.baseUrl}/metrics`);
  const text = await response.text();
  const line = /^catalogue_sql_statements_total(?:\{[^}]*\})? (\d+(?:\.\d+)?(?:e\+\d+)?)$/m.exec(
    text,
  );
  if (!line) throw new Error(`${system.spec.id}: /metrics has no catalogue_sql_statements_total`);
  return Number(line[1]);
}

/** The machine's CPU time so far, in clock ticks: all of it, and what the hypervisor stole. */
export async function machineCpuTicks(): Promise<{ total: number; steal: number }> {
  const [line = ''] = (await readFile('/proc/stat', 'utf8')).split('\n');
  // cpu  user nice system idle iowait irq softirq steal guest guest_nice
  const ticks = line.trim().split(/\s+/).slice(1, 9).map(Number);
  return { total: ticks.reduce((sum, tick) => sum + tick, 0), steal: ticks[7] ?? 0 };
}

/** An API client's Bearer token from the gateway's token endpoint (client credentials). */
export async function clientToken(
  baseUrl: string,
  clientId: string,
  secret: string,
): Promise<string> {
  const response = await fetch(`${baseUrl}/partner-search/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }),
  });
  if (!response.ok) {
    throw new Error(`token of ${clientId}: ${response.status} ${await response.text()}`);
  }
  return ((await response.json()) as { access_token: string }).access_token;
}
