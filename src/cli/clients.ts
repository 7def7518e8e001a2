/**
 * `clients`: add, list, revoke and unlock the API clients that get tokens at the token endpoint
 * (docs/operations.md, "API clients"). What a command prints on stdout is its result (with
 * `--json`, for scripts); its log lines go to stderr. Adding and revoking tell every serving
 * process on the database (src/changes/notices.ts), which read their list of clients again:
 * a revoked client's tokens are refused from then on; unlocking tells them to forget the
 * client's failed token attempts.
 */
import { generateClientId } from '../auth/client-id.ts';
import { generateClientSecret, hashClientSecret } from '../auth/client-secrets.ts';
import { createLimitCounters } from '../auth/limit-counters.ts';
import { forgetTokenFailures } from '../auth/token-attempts.ts';
import { announceNotice } from '../changes/notices.ts';
import { redactUrl, type Config } from '../config.ts';
import type { DatabaseHandle } from '../db/client.ts';
import {
  deleteApiClient,
  findApiClientWithRefs,
  findRefOwners,
  insertApiClient,
  listApiClients,
  shopExists,
} from '../db/repositories/api-clients.ts';
import type { Logger } from '../logger.ts';
import { clientListEntry, formatClientList } from './client-list.ts';
import type { ParsedValues } from './command-line.ts';
import type { ADD_PARTNER, ADD_SHOP, LIST_CLIENTS, UNLOCK_CLIENT } from './commands.ts';
import { withMigratedDatabase } from './database.ts';
import { CommandError, UsageError } from './errors.ts';
import { withCommandRedis } from './redis.ts';

function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

function unknownClient(clientId: string): UsageError {
  return new UsageError(`no client has the id "${clientId}" (list shows them)`);
}

interface NewClient {
  name: string;
  refs: readonly string[];
  shopId: number | null;
}

/** Stores a client with a new id and secret, and prints them: the only time the secret shows. */
async function createClient(
  database: DatabaseHandle,
  logger: Logger,
  client: NewClient,
  json: boolean | undefined,
): Promise<void> {
  const clientId = generateClientId(client.shopId);
  const clientSecret = generateClientSecret();
  const secretHash = await hashClientSecret(clientSecret);
  await insertApiClient(database.db, { id: clientId, secretHash, ...client });
  await announceNotice(database.db, { kind: 'clients-changed' });
  logger.info({ clientId, refs: client.refs, shopId: client.shopId }, 'client added');
  if (json) {
    print(JSON.stringify({ clientId, clientSecret }));
    return;
  }
  print(
    [
      `client id:     ${clientId}`,
      `client secret: ${clientSecret}`,
      'The secret is shown only this once (only its hash is stored): pass it on now. With',
      'both, the client gets access tokens at POST /partner-search/token.',
    ].join('\n'),
  );
}

export async function addPartner(
  config: Config,
  logger: Logger,
  values: ParsedValues<typeof ADD_PARTNER.options>,
  [name]: string[],
): Promise<void> {
  const refs = [...new Set(values.ref)];
  await withMigratedDatabase(config, logger, 'clients', async (database) => {
    const [owned] = await findRefOwners(database.db, refs);
    if (owned) {
      throw new UsageError(
        `ref "${owned.ref}" already belongs to client ${owned.clientId} (revoke it first)`,
      );
    }
    await createClient(database, logger, { name: name!, refs, shopId: null }, values.json);
  });
}

export async function addShop(
  config: Config,
  logger: Logger,
  values: ParsedValues<typeof ADD_SHOP.options>,
  [name]: string[],
): Promise<void> {
  const shopId = Number(values.shop);
  await withMigratedDatabase(config, logger, 'clients', async (database) => {
    if (!(await shopExists(database.db, shopId))) {
      throw new UsageError(`no shop has the id ${shopId}`);
    }
    await createClient(database, logger, { name: name!, refs: [], shopId }, values.json);
  });
}

export async function listClients(
  config: Config,
  logger: Logger,
  values: ParsedValues<typeof LIST_CLIENTS.options>,
): Promise<void> {
  await withMigratedDatabase(config, logger, 'clients', async (database) => {
    const entries = (await listApiClients(database.db)).map(clientListEntry);
    print(values.json ? JSON.stringify(entries) : formatClientList(entries));
  });
}

export async function revokeClient(
  config: Config,
  logger: Logger,
  _values: unknown,
  [clientId]: string[],
): Promise<void> {
  await withMigratedDatabase(config, logger, 'clients', async (database) => {
    if (!(await deleteApiClient(database.db, clientId!))) throw unknownClient(clientId!);
    await announceNotice(database.db, { kind: 'clients-changed' });
    logger.info({ clientId }, 'client revoked');
    print(
      `revoked ${clientId}: it gets no new token, and the serving processes refuse the tokens ` +
        'it holds from now on (within TOKEN_CLIENTS_REFRESH_SECONDS of the server at most)',
    );
  });
}

export async function unlockClient(
  config: Config,
  logger: Logger,
  values: ParsedValues<typeof UNLOCK_CLIENT.options>,
  [clientId]: string[],
): Promise<void> {
  const { address } = values;
  await withMigratedDatabase(config, logger, 'clients', async (database) => {
    if (!(await findApiClientWithRefs(database.db, clientId!))) throw unknownClient(clientId!);
    // Redis first, so the count is the command's own; the processes are told even when Redis
    // could not be used: they forget what they counted in memory meanwhile.
    const forgotten = await forgetInRedis(config, logger, clientId!, address);
    const where = address === undefined ? {} : { address };
    await announceNotice(database.db, { kind: 'client-unlocked', clientId: clientId!, ...where });
    if (forgotten === null) {
      throw new CommandError(
        `could not use Redis at ${redactUrl(config.redisUrl!)}: the counts there stay until ` +
          'their window ends; the serving processes were told',
      );
    }
    logger.info({ clientId, address, forgotten }, 'client unlocked');
    const at = address === undefined ? 'at every address' : `at ${address}`;
    print(
      `unlocked ${clientId} ${at}: the serving processes forget its failed token attempts` +
        (forgotten === undefined ? '' : `, and ${forgotten} counts and delays went from Redis`),
    );
  });
}

/**
 * The failures Redis counts for the client: how many went; undefined without Redis, null when
 * it could not be used.
 */
async function forgetInRedis(
  config: Config,
  logger: Logger,
  clientId: string,
  address: string | undefined,
): Promise<number | undefined | null> {
  const url = config.redisUrl;
  if (url === undefined) return undefined;
  const forgotten = await withCommandRedis(config, url, logger, (redis) =>
    forgetTokenFailures(
      createLimitCounters({ redis, keyPrefix: config.redisKeyPrefix }),
      clientId,
      address,
    ),
  );
  return forgotten ?? null;
}
