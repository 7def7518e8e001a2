/**
 * Reads from streaming replicas (DATABASE_REPLICA_URLS). The request context's `db` is a
 * Kysely whose driver routes every connection it hands out: to the next replica in service,
 * in turn, or to the primary when none is. The repositories keep one code path; which server
 * answers is this driver's business alone.
 *
 * What goes to the primary: everything through the handle's own `db` (migrations, seeding,
 * the token endpoint's client reads that must see the writes just made), and, through the
 * routed `db`, a transaction (it may write, and its reads belong with its writes) and any read
 * a replica could not answer.
 *
 * A replica serves while it is reachable, is still a standby, and lags at most
 * REPLICA_MAX_LAG_MS. It is checked every REPLICA_CHECK_INTERVAL_MS, and taken out at once
 * when a statement or a connection to it fails for a connection reason; the statement is
 * then run on the primary, so the request never sees the replica go. A later check puts it
 * back.
 *
 * Lag: the primary's WAL position is sampled at every check, and a replica has everything
 * the primary had at the latest sample its replay position has reached; its lag is the age
 * of that sample (0 when it has reached the newest). `pg_last_xact_replay_timestamp()` alone
 * would call a replica of an idle primary behind by the time since the last write; it is
 * used only for a replica behind every sample kept (just after start, or long behind).
 */
import {
  PostgresDialect,
  PostgresDriver,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type pg from 'pg';
import { databaseConnectionFailure } from './connection-errors.ts';

export type ReplicaState = 'unchecked' | 'serving' | 'lagging' | 'unreachable' | 'not-a-standby';

/** One database server as /readyz and /metrics show it. */
export interface DatabaseStatus {
  /** `primary`, or `replica-N` for the Nth URL of DATABASE_REPLICA_URLS. */
  name: string;
  role: 'primary' | 'replica';
  /** Statements run on it through the handle (health checks not counted). */
  statements: number;
  /** A replica's: whether it serves reads now, and why not. */
  state?: ReplicaState;
  /** A replica's lag behind the primary at its last check, when known. */
  lagMs?: number | null;
  reason?: string;
}

export interface ReplicaServer {
  name: string;
  pool: pg.Pool;
}

export interface ReadRoutingOptions {
  primaryPool: pg.Pool;
  replicas: ReplicaServer[];
  /** Applied to every connection handed out, as the primary's own Kysely does. */
  onReserveConnection?: (connection: DatabaseConnection) => Promise<void>;
  maxLagMs: number;
  checkIntervalMs: number;
  /** Every change of a replica's state, for the log. */
  onReplicaStateChange?: (status: DatabaseStatus) => void;
}

interface Target {
  name: string;
  driver: PostgresDriver;
  statements: number;
}

interface Replica extends Target {
  pool: pg.Pool;
  state: ReplicaState;
  lagMs: number | null;
  reason: string | undefined;
}

/** The primary's WAL position (bytes from 0/0) at a moment. */
interface PositionSample {
  at: number;
  position: number;
}

/** A connection as a server's own driver hands it out. */
type ServerConnection = Parameters<PostgresDriver['releaseConnection']>[0];

/** PostgresDriver declares the general connection type for what is its own. */
async function acquireFrom({ driver }: Target): Promise<ServerConnection> {
  return (await driver.acquireConnection()) as ServerConnection;
}

/** Hot standby cancelled the read for a conflict with replay: the primary can answer it. */
const RECOVERY_CONFLICT = '40001';

/** A connection handed out by the routing driver: the server it is on may change under it. */
class RoutedConnection implements DatabaseConnection {
  inTransaction = false;
  constructor(
    public target: Target,
    public inner: ServerConnection,
    private readonly router: ReadRoutingDriver,
  ) {}

  executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
    return this.router.execute<R>(this, query);
  }

  /** The catalogue streams nothing; a stream would stay where it started. */
  streamQuery<R>(query: CompiledQuery, chunkSize: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(query, chunkSize);
  }
}

/** Postgres in every way but the driver, which routes each connection it hands out. */
export class ReadRoutingDialect extends PostgresDialect {
  readonly driver: ReadRoutingDriver;

  constructor(options: ReadRoutingOptions) {
    super({ pool: options.primaryPool });
    this.driver = new ReadRoutingDriver(options);
  }

  override createDriver(): Driver {
    return this.driver;
  }
}

export class ReadRoutingDriver implements Driver {
  private readonly primary: Target;
  private readonly replicas: Replica[];
  private samples: PositionSample[] = [];
  private turn = 0;
  private timer: NodeJS.Timeout | undefined;
  private checking = false;
  private destroyed = false;

  constructor(private readonly options: ReadRoutingOptions) {
    const driverOf = (pool: pg.Pool) =>
      new PostgresDriver({
        pool,
        ...(options.onReserveConnection
          ? { onReserveConnection: options.onReserveConnection }
          : {}),
      });
    this.primary = { name: 'primary', driver: driverOf(options.primaryPool), statements: 0 };
    this.replicas = options.replicas.map(({ name, pool }) => ({
      name,
      pool,
      driver: driverOf(pool),
      statements: 0,
      state: 'unchecked',
      lagMs: null,
      reason: 'not checked yet',
    }));
  }

  async init(): Promise<void> {
    await Promise.all([this.primary, ...this.replicas].map(({ driver }) => driver.init()));
  }

  /** Reads go to the primary until the first check has put a replica in service. */
  startChecks(): void {
    void this.checkReplicas();
    this.timer = setInterval(() => void this.checkReplicas(), this.options.checkIntervalMs);
    this.timer.unref();
  }

  /** Counted here for reads routed to the primary; the handle adds the primary's own. */
  primaryStatements(): number {
    return this.primary.statements;
  }

  replicaStatuses(): DatabaseStatus[] {
    return this.replicas.map(statusOf);
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const count = this.replicas.length;
    const start = this.turn++ % count;
    for (let offset = 0; offset < count; offset++) {
      const replica = this.replicas[(start + offset) % count]!;
      if (replica.state !== 'serving') continue;
      try {
        return new RoutedConnection(replica, await acquireFrom(replica), this);
      } catch (error) {
        if (!this.takeOutOnFailure(replica, error)) throw error;
      }
    }
    return new RoutedConnection(this.primary, await acquireFrom(this.primary), this);
  }

  async execute<R>(connection: RoutedConnection, query: CompiledQuery): Promise<QueryResult<R>> {
    const { target } = connection;
    target.statements++;
    try {
      return await connection.inner.executeQuery<R>(query);
    } catch (error) {
      const movable = target !== this.primary && !connection.inTransaction;
      if (
        !movable ||
        !(this.takeOutOnFailure(target as Replica, error) || recoveryConflict(error))
      ) {
        throw error;
      }
      await this.moveToPrimary(connection);
      return this.execute<R>(connection, query);
    }
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings) {
    const routed = connection as RoutedConnection;
    if (routed.target !== this.primary) await this.moveToPrimary(routed);
    routed.inTransaction = true;
    await this.primary.driver.beginTransaction(routed, settings);
  }

  async commitTransaction(connection: DatabaseConnection) {
    const routed = connection as RoutedConnection;
    routed.inTransaction = false;
    await this.primary.driver.commitTransaction(routed);
  }

  async rollbackTransaction(connection: DatabaseConnection) {
    const routed = connection as RoutedConnection;
    routed.inTransaction = false;
    await this.primary.driver.rollbackTransaction(routed);
  }

  savepoint: NonNullable<Driver['savepoint']> = (connection, name, compile) =>
    this.primary.driver.savepoint(connection, name, compile);

  rollbackToSavepoint: NonNullable<Driver['rollbackToSavepoint']> = (connection, name, compile) =>
    this.primary.driver.rollbackToSavepoint(connection, name, compile);

  releaseSavepoint: NonNullable<Driver['releaseSavepoint']> = (connection, name, compile) =>
    this.primary.driver.releaseSavepoint(connection, name, compile);

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    const { target, inner } = connection as RoutedConnection;
    await target.driver.releaseConnection(inner);
  }

  /**
   * Stops the checks and ends the replicas' pools, once however often it is called; the
   * primary's pool belongs to the handle's own Kysely.
   */
  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    clearInterval(this.timer);
    await Promise.all(this.replicas.map(({ pool }) => pool.end()));
  }

  private async moveToPrimary(connection: RoutedConnection): Promise<void> {
    await connection.target.driver.releaseConnection(connection.inner);
    connection.inner = await acquireFrom(this.primary);
    connection.target = this.primary;
  }

  /** Takes a replica out when the error says it cannot serve; whether it did. */
  private takeOutOnFailure(replica: Replica, error: unknown): boolean {
    const reason = databaseConnectionFailure(error);
    if (reason === undefined) return false;
    this.setState(replica, 'unreachable', null, reason);
    return true;
  }

  private setState(replica: Replica, state: ReplicaState, lagMs: number | null, reason?: string) {
    const changed = replica.state !== state;
    replica.state = state;
    replica.lagMs = lagMs;
    replica.reason = reason;
    if (changed) this.options.onReplicaStateChange?.(statusOf(replica));
  }

  /** One round of checks; a round still running when the next is due lets it pass. */
  private async checkReplicas(): Promise<void> {
    if (this.checking || this.destroyed) return;
    this.checking = true;
    try {
      await this.samplePrimaryPosition();
      await Promise.all(this.replicas.map((replica) => this.checkReplica(replica)));
    } finally {
      this.checking = false;
    }
  }

  private async samplePrimaryPosition(): Promise<void> {
    try {
      const { rows } = await this.options.primaryPool.query<{ position: number }>(
        `select pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::float8 as position`,
      );
      const at = Date.now();
      this.samples.push({ at, position: rows[0]!.position });
      // Older samples can only tell of lags far past the bound: one beyond it is enough.
      const horizon = at - this.options.maxLagMs - 2 * this.options.checkIntervalMs;
      while (this.samples.length > 1 && this.samples[1]!.at < horizon) this.samples.shift();
    } catch {
      // A primary that does not answer writes nothing: the samples taken stay the measure.
    }
  }

  private async checkReplica(replica: Replica): Promise<void> {
    let row: { standby: boolean; replayed: number | null; replayAgeMs: number | null };
    try {
      const { rows } = await replica.pool.query<typeof row>(
        `select pg_is_in_recovery() as standby,
                pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '0/0')::float8 as replayed,
                (extract(epoch from clock_timestamp() - pg_last_xact_replay_timestamp())
                  * 1000)::float8 as "replayAgeMs"`,
      );
      row = rows[0]!;
    } catch (error) {
      this.setState(
        replica,
        'unreachable',
        null,
        databaseConnectionFailure(error) ?? (error as Error).message,
      );
      return;
    }
    if (!row.standby) {
      this.setState(replica, 'not-a-standby', null, 'the server is not in recovery');
      return;
    }
    const lagMs = Math.round(this.lagOf(row.replayed ?? 0, row.replayAgeMs));
    if (!(lagMs <= this.options.maxLagMs)) {
      const known = Number.isFinite(lagMs);
      const reason = known ? `${lagMs} ms behind the primary` : 'has replayed nothing yet';
      this.setState(replica, 'lagging', known ? lagMs : null, reason);
    } else {
      this.setState(replica, 'serving', lagMs);
    }
  }

  private lagOf(replayed: number, replayAgeMs: number | null): number {
    const now = Date.now();
    for (let index = this.samples.length - 1; index >= 0; index--) {
      const sample = this.samples[index]!;
      if (sample.position <= replayed) {
        return index === this.samples.length - 1 ? 0 : now - this.samples[index + 1]!.at;
      }
    }
    return replayAgeMs ?? Number.POSITIVE_INFINITY;
  }
}

function statusOf({ name, statements, state, lagMs, reason }: Replica): DatabaseStatus {
  return {
    name,
    role: 'replica',
    statements,
    state,
    lagMs,
    ...(reason === undefined ? {} : { reason }),
  };
}

function recoveryConflict(error: unknown): boolean {
  return (error as { code?: unknown } | undefined)?.code === RECOVERY_CONFLICT;
}
