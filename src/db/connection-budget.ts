/**
 * How many connections the service may open to each database server, against what the server
 * allows (docs/operations.md, "Database connections"): on the primary, each process's pool
 * and its connection listening for catalogue changes; on each replica, each process's pool
 * there. Checked once at start, warned of in one line when a server would run out, since a
 * pool that cannot connect fails requests only under load, long after the start.
 */
import { sql } from 'kysely';
import pg from 'pg';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { DatabaseHandle } from './client.ts';

/** Connections each serving process holds outside its pool: the catalogue changes listener. */
export const LISTENER_CONNECTIONS = 1;

export interface ServerBudget {
  database: string;
  /** The most connections this service opens to the server. */
  needed: number;
  /** How: processes × (pool + listener). */
  arithmetic: string;
  maxConnections: number;
}

/** Each server's need, given how many processes serve and each one's pool size. */
export function connectionBudget(
  processes: number,
  poolSize: number,
  maxConnections: { primary: number; replicas: (number | undefined)[] },
): ServerBudget[] {
  const onPrimary = poolSize + LISTENER_CONNECTIONS;
  const budgets: ServerBudget[] = [
    {
      database: 'primary',
      needed: processes * onPrimary,
      arithmetic: `${processes} × (${poolSize} pool + ${LISTENER_CONNECTIONS} listener)`,
      maxConnections: maxConnections.primary,
    },
  ];
  maxConnections.replicas.forEach((max, index) => {
    if (max === undefined) return;
    budgets.push({
      database: `replica-${index + 1}`,
      needed: processes * poolSize,
      arithmetic: `${processes} × ${poolSize} pool`,
      maxConnections: max,
    });
  });
  return budgets;
}

/**
 * Warns, in one line with the arithmetic, when the service's processes could open more
 * connections to a server than its `max_connections`. A replica that does not answer now is
 * left out (its own checks report it).
 */
export async function warnOfConnectionBudget(
  database: DatabaseHandle,
  config: Pick<Config, 'workers' | 'databasePoolSize' | 'databaseReplicaUrls'>,
  logger: Logger,
): Promise<void> {
  if (database.kind !== 'postgres') return;
  const { rows } = await sql<{ max_connections: string }>`show max_connections`.execute(
    database.db,
  );
  const replicas = await Promise.all(config.databaseReplicaUrls.map(replicaMaxConnections));
  const budgets = connectionBudget(config.workers, config.databasePoolSize, {
    primary: Number(rows[0]!.max_connections),
    replicas,
  });
  const over = budgets.filter((budget) => budget.needed > budget.maxConnections);
  if (over.length === 0) return;
  const said = over.map(
    (b) => `${b.database}: ${b.arithmetic} = ${b.needed} > max_connections ${b.maxConnections}`,
  );
  logger.warn(
    { connections: over, processes: config.workers, poolSize: config.databasePoolSize },
    `database connections: the service may open more than the server allows (${said.join('; ')}); ` +
      'lower DATABASE_POOL_SIZE or WORKERS, or raise max_connections',
  );
}

async function replicaMaxConnections(url: string): Promise<number | undefined> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  client.on('error', () => undefined);
  try {
    await client.connect();
    const { rows } = await client.query<{ max_connections: string }>('show max_connections');
    return Number(rows[0]!.max_connections);
  } catch {
    return undefined;
  } finally {
    await client.end().catch(() => undefined);
  }
}
