/**
 * The gateway the HTTP parts of the feed bench talk to: a real `serve` process on the bench
 * database (bench/systems.ts startSystem, through tsx so that no build is needed, on a free
 * port so that it never meets `npm run bench`'s), with the settings `npm run bench` gives
 * its gateway except the response cache, which each part chooses. A shop's feed routes
 * answer only that shop's own API client: the bench makes one as the `clients` command does
 * (insertApiClient with a hashed secret) and takes its token from the token endpoint.
 */
import { announceNotice } from '../../src/changes/notices.ts';
import type { Kysely } from 'kysely';
import { hashClientSecret } from '../../src/auth/client-secrets.ts';
import { deleteApiClient, insertApiClient } from '../../src/db/repositories/api-clients.ts';
import type { Database } from '../../src/db/types.ts';
import { freePort } from '../../test/helpers/process.ts';
import { clientToken, GATEWAY_ENV, startSystem, type RunningSystem } from '../systems.ts';

/** `serve` from the sources; bench/run.ts measures the production bundle instead. */
const ENTRY = 'src/main.ts';

/**
 * Starts the gateway with `env` over GATEWAY_ENV (e.g. RESPONSE_CACHE_TTL_SECONDS: '30',
 * FEED_WORKERS), runs `work` against it and stops it, whatever happens.
 */
export async function withGateway<T>(
  databaseUrl: string,
  env: Record<string, string>,
  work: (gateway: RunningSystem) => Promise<T>,
): Promise<T> {
  const port = await freePort();
  const gateway = await startSystem(
    {
      id: 'gateway',
      port,
      entry: ENTRY,
      env: { ...GATEWAY_ENV, PUBLIC_BASE_URL: `http://127.0.0.1:${port}`, ...env },
    },
    databaseUrl,
  );
  try {
    return await work(gateway);
  } finally {
    await gateway.stop();
  }
}

/** The Bearer token of a client of the shop, made afresh (an earlier run's is replaced). */
export async function shopToken(
  db: Kysely<Database>,
  baseUrl: string,
  shopId: number,
): Promise<string> {
  const clientId = `bench-feeds-shop-${shopId}`;
  const secret = `bench-feeds-secret-${shopId}-${Date.now()}`;
  await deleteApiClient(db, clientId);
  await insertApiClient(db, {
    id: clientId,
    name: `bench:feeds, shop ${shopId}`,
    secretHash: await hashClientSecret(secret),
    refs: [],
    shopId,
  });
  // As `npm run clients` does: running gateways that knew the client's old secret learn of
  // the new one at once, not at their next refresh.
  await announceNotice(db, { kind: 'clients-changed' });
  return clientToken(baseUrl, clientId, secret);
}
