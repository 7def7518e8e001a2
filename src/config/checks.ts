/**
 * The rules between settings, each checked once every setting is read, in this order.
 */
import type { Config } from './settings.ts';

export interface Check {
  /**
   * Settings whose own value was refused make the check moot: the default standing in for
   * it would only confuse.
   */
  unlessRefused: readonly (keyof Config)[];
  /** What is wrong, if anything. */
  problem(config: Config): string | undefined;
}

export const CHECKS: readonly Check[] = [
  // A token raises the caller's rate limit, so an authenticated client is never held to less
  // than an anonymous caller (0 is unlimited, the highest limit of all).
  {
    unlessRefused: ['rateLimitAnonymousPerMinute', 'rateLimitClientPerMinute'],
    problem({ rateLimitAnonymousPerMinute: anonymous, rateLimitClientPerMinute: client }) {
      const clientIsLower = client !== 0 && (anonymous === 0 || client < anonymous);
      if (!clientIsLower) return undefined;
      return (
        `RATE_LIMIT_CLIENT_PER_MINUTE must be 0 (unlimited) or at least ` +
        `RATE_LIMIT_ANONYMOUS_PER_MINUTE (${anonymous === 0 ? 'unlimited' : anonymous}), got "${client}"`
      );
    },
  },
  // The embedded database (PGlite) lives in one process, which locks its data directory:
  // several processes need a database server they can all reach.
  {
    unlessRefused: ['databaseUrl'],
    problem: ({ workers, databaseUrl }) =>
      workers > 1 && databaseUrl === undefined
        ? `WORKERS=${workers} needs DATABASE_URL: the embedded database serves one process ` +
          'only; set DATABASE_URL to a PostgreSQL server or WORKERS=1'
        : undefined,
  },
  // The embedded database has no replicas: they stream from a PostgreSQL server.
  {
    unlessRefused: ['databaseUrl'],
    problem: ({ databaseReplicaUrls, databaseUrl }) =>
      databaseReplicaUrls.length > 0 && databaseUrl === undefined
        ? 'DATABASE_REPLICA_URLS needs DATABASE_URL: the embedded database has no replicas'
        : undefined,
  },
];
