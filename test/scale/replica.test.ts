/**
 * Reads from a real streaming replica. The test builds it: a scratch primary (initdb), its
 * replica from `pg_basebackup -R`, both started with pg_ctl on this machine; the primary is
 * migrated and seeded after the replica is up, so the catalogue reaches the replica by
 * streaming. Then the service, as a process with DATABASE_REPLICA_URLS, must serve its reads
 * from the replica (the replica's own transaction counts show it), keep answering every
 * request while the replica is stopped under load and after it is started again (reads go
 * back to it), take the replica out while its replay is paused behind the primary, and stay
 * ready (`read-only`) while the primary is stopped, its reads still answered by the replica.
 *
 * The clusters are its own whichever database the suite's pass uses, so it runs in both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DatabaseStatus } from '../../src/db/replicas.ts';
import { onConnection } from '../helpers/database.ts';
import { fillScratchDatabase, SCRATCH_DATABASE as DATABASE } from '../helpers/scratch-database.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import {
  childEnv,
  freePort,
  jsonLogLines,
  startNode,
  type StartedProcess,
} from '../helpers/process.ts';
import { parseExposition, valueOf } from '../helpers/prometheus.ts';
import {
  createScratchCluster,
  requireServerBinaries,
  type ScratchCluster,
} from '../helpers/scratch-cluster.ts';

requireServerBinaries(
  "the replica test needs PostgreSQL 15's server binaries (initdb, pg_basebackup, pg_ctl)",
);

/** Generous: a loaded CI machine may be slow, but a replica never put back must fail. */
const PATIENCE_MS = 30_000;
const MAX_LAG_MS = 1_000;
/** More requests in flight than a pool's 10 connections. */
const CONCURRENCY = 16;

const REQUESTS = [
  () => new Request('http://gateway/products?market=se&limit=5'),
  () => new Request('http://gateway/products/10,11,23?market=se'),
  () =>
    new Request('http://gateway/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({
        query: '{ products(market: SE, first: 5) { edges { node { id name } } } }',
      }),
    }),
];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = performance.now() + PATIENCE_MS;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${PATIENCE_MS} ms`);
    await sleep(50);
  }
}

/**
 * Scans of the catalogue's tables a server has run: its own statistics, which count what its
 * sessions read, and which the gateway's health checks (they read no table) leave alone.
 */
async function tableScans(cluster: ScratchCluster): Promise<number> {
  return onConnection(cluster.url(DATABASE), async (client) => {
    const { rows } = await client.query<{ scans: number }>(
      'select sum(seq_scan + coalesce(idx_scan, 0))::float8 as scans from pg_stat_user_tables',
    );
    return rows[0]!.scans;
  });
}

async function walPosition(cluster: ScratchCluster, expression: string): Promise<number> {
  return onConnection(cluster.url(), async (client) => {
    const { rows } = await client.query<{ position: number }>(
      `select pg_wal_lsn_diff(${expression}, '0/0')::float8 as position`,
    );
    return rows[0]!.position;
  });
}

describe('reads from a streaming replica', () => {
  let primary: ScratchCluster | undefined;
  let replica: ScratchCluster | undefined;
  let gateway: StartedProcess | undefined;
  let base: string;

  /** Sends `request` to the service; its status ('reset' when no answer came). */
  async function send(request: Request): Promise<number | 'reset'> {
    const url = new URL(request.url);
    try {
      const response = await fetch(new Request(`${base}${url.pathname}${url.search}`, request));
      await response.arrayBuffer();
      return response.status;
    } catch {
      return 'reset';
    }
  }

  /** Requests, CONCURRENCY at a time, until stopped; the count of each status. */
  function startLoad() {
    const statuses: Record<string, number> = {};
    let running = true;
    const workers = Array.from({ length: CONCURRENCY }, async (_, worker) => {
      for (let turn = worker; running; turn++) {
        const status = await send(REQUESTS[turn % REQUESTS.length]!());
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    });
    return {
      async stop() {
        running = false;
        await Promise.all(workers);
        return statuses;
      },
    };
  }

  async function replicaStatus(): Promise<DatabaseStatus> {
    gatewayAlive();
    const response = await fetch(`${base}/readyz`);
    const body = (await response.json()) as { databases: DatabaseStatus[] };
    expect(response.status).toBe(200);
    return body.databases.find((database) => database.name === 'replica-1')!;
  }

  function untilReplica(state: DatabaseStatus['state']): Promise<DatabaseStatus> {
    return waitFor(`replica-1 ${state}`, async () => {
      const status = await replicaStatus();
      return status.state === state ? status : undefined;
    });
  }

  /** The service's statements by database server, from /metrics. */
  async function statementsByServer(): Promise<{ primary: number; replica: number }> {
    const exposition = parseExposition(await (await fetch(`${base}/metrics`)).text());
    const statements = (database: string) =>
      valueOf(exposition, 'catalogue_database_statements_total', { database });
    return { primary: statements('primary'), replica: statements('replica-1') };
  }

  function gatewayAlive() {
    if (!gateway?.hasExited()) return;
    throw new Error(`the service exited:\n${gateway.stdout()}${gateway.stderr()}`);
  }

  beforeAll(async () => {
    primary = await createScratchCluster();
    replica = await createScratchCluster({ replicaOf: primary });
    await fillScratchDatabase(primary, 'seeded');
    const written = await walPosition(primary, 'pg_current_wal_lsn()');
    await waitFor('the replica to replay the seeding', async () =>
      (await walPosition(replica!, 'pg_last_wal_replay_lsn()')) >= written ? true : undefined,
    );

    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    gateway = startNode(
      ['--import', 'tsx', 'src/main.ts', 'serve'],
      childEnv({
        DATABASE_URL: primary.url(DATABASE),
        DATABASE_REPLICA_URLS: replica.url(DATABASE),
        REPLICA_MAX_LAG_MS: String(MAX_LAG_MS),
        REPLICA_CHECK_INTERVAL_MS: '100',
        PORT: String(port),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'warn',
        // Every request reaches a database, and the load is not rate limited.
        RESPONSE_CACHE_TTL_SECONDS: '0',
        RATE_LIMIT_ANONYMOUS_PER_MINUTE: '0',
        RATE_LIMIT_CLIENT_PER_MINUTE: '0',
        // The catalogue stays as seeded: its clock writes on the primary, and the primary's
        // statement count must move only for what reads could not do on the replica.
        CATALOGUE_CLOCK: 'false',
      }),
      20_000,
    );
    await untilReplica('serving');
  });

  afterAll(async () => {
    await gateway?.kill();
    await replica?.destroy();
    await primary?.destroy();
  });

  it('serves reads from the replica, and nothing of them from the primary', async () => {
    // The start's own work on the primary (the feed run queue's first look for runs) settles
    // first: no request's doing.
    let before = await statementsByServer();
    for (;;) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const now = await statementsByServer();
      if (now.primary === before.primary) break;
      before = now;
    }
    const replicaScans = await tableScans(replica!);
    const sent = 60;
    for (let index = 0; index < sent; index++) {
      expect(await send(REQUESTS[index % REQUESTS.length]!())).toBe(200);
    }
    const after = await statementsByServer();
    expect(after.primary).toBe(before.primary);
    expect(after.replica - before.replica).toBeGreaterThanOrEqual(sent);
    // The replica's own count: its backends report what they read within seconds.
    await waitFor('the replica counting the reads', async () =>
      (await tableScans(replica!)) - replicaScans >= sent ? true : undefined,
    );
    const status = await replicaStatus();
    expect(status).toMatchObject({ role: 'replica', state: 'serving' });
    expect(status.lagMs).toBeLessThanOrEqual(MAX_LAG_MS);
  });

  it('answers every request while the replica stops and starts under load', async () => {
    const load = startLoad();
    await sleep(300);
    await replica!.stop();
    const out = await untilReplica('unreachable');
    expect(out.reason).toEqual(expect.any(String));
    const whileDown = await statementsByServer();
    await sleep(300);
    expect((await statementsByServer()).primary).toBeGreaterThan(whileDown.primary);

    await replica!.start();
    await untilReplica('serving');
    const back = await statementsByServer();
    await sleep(300);
    const statuses = await load.stop();
    expect(statuses).toEqual({ '200': expect.any(Number) });
    expect((await statementsByServer()).replica).toBeGreaterThan(back.replica);
  });

  it('takes a replica out while it lags, and back once it has caught up', async () => {
    await untilReplica('serving');
    await onConnection(replica!.url(), (client) => client.query('select pg_wal_replay_pause()'));
    try {
      await onConnection(primary!.url(), (client) =>
        client.query('create table lag_probe as select 1 as written'),
      );
      const lagging = await untilReplica('lagging');
      expect(lagging.lagMs).toBeGreaterThan(MAX_LAG_MS);
      const before = await statementsByServer();
      for (const request of REQUESTS) expect(await send(request())).toBe(200);
      const after = await statementsByServer();
      expect(after.replica).toBe(before.replica);
      expect(after.primary - before.primary).toBeGreaterThanOrEqual(REQUESTS.length);
    } finally {
      await onConnection(replica!.url(), (client) => client.query('select pg_wal_replay_resume()'));
    }
    await untilReplica('serving');
  });

  it('shows each database on /metrics', async () => {
    const exposition = parseExposition(await (await fetch(`${base}/metrics`)).text());
    expect(
      valueOf(exposition, 'catalogue_database_replica_serving', {
        database: 'replica-1',
        state: 'serving',
      }),
    ).toBe(1);
    const lag = exposition.samples.find(
      (sample) => sample.name === 'catalogue_database_replica_lag_seconds',
    );
    expect(lag?.labels).toEqual({ database: 'replica-1' });
    expect(lag!.value).toBeLessThanOrEqual(MAX_LAG_MS / 1000);
  });

  it('stays ready, read-only, while the primary is down: reads answered, writes refused', async () => {
    await untilReplica('serving');
    await primary!.stop();
    try {
      const readOnly = await waitFor('/readyz read-only', async () => {
        const response = await fetch(`${base}/readyz`);
        const body = (await response.json()) as { status: string; databases: DatabaseStatus[] };
        return response.status === 200 && body.status === 'read-only' ? body : undefined;
      });
      expect(readOnly.databases).toEqual([
        expect.objectContaining({ name: 'primary', state: 'unreachable', reason: 'ECONNREFUSED' }),
        expect.objectContaining({ name: 'replica-1', state: 'serving' }),
      ]);
      for (const request of REQUESTS) expect(await send(request())).toBe(200);
      // A write needs the primary: the token endpoint reads its clients there.
      const token = await fetch(`${base}${TOKEN_PATH}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'grant_type=client_credentials&client_id=demo-partner&client_secret=guess',
      });
      expect(token.status).toBe(503);
      expect(token.headers.get('retry-after')).not.toBeNull();
    } finally {
      await primary!.start();
    }
    await waitFor('/readyz ready', async () => {
      const response = await fetch(`${base}/readyz`);
      return response.status === 200 &&
        ((await response.json()) as { status: string }).status === 'ready'
        ? true
        : undefined;
    });
    const warnings = jsonLogLines(gateway!).filter((line) =>
      String(line.msg).startsWith('readiness: the primary is unreachable'),
    );
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, reason: 'ECONNREFUSED' });
  });
});
