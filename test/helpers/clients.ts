/**
 * API clients for tests that issue tokens themselves instead of asking the token endpoint:
 * the subject the endpoint would issue a client's token for (with its secret's generation,
 * which the service checks every token against), and a partner's client of a test's own.
 */
import type { Kysely } from 'kysely';
import { clientGeneration, hashClientSecret } from '../../src/auth/client-secrets.ts';
import type { TokenSubject } from '../../src/auth/tokens.ts';
import { findApiClientWithRefs, insertApiClient } from '../../src/db/repositories/api-clients.ts';
import type { Database } from '../../src/db/types.ts';

/** What the token endpoint issues a token for, for the client stored under `clientId`. */
export async function tokenSubjectOf(
  db: Kysely<Database>,
  clientId: string,
): Promise<TokenSubject> {
  const client = await findApiClientWithRefs(db, clientId);
  if (!client) throw new Error(`no client has the id ${clientId}`);
  const { id, refs, shopId, secretHash } = client;
  return { id, refs, shopId, generation: clientGeneration(secretHash) };
}

/** Stores a partner's client owning `refs`, with `secret`; answers its token subject. */
export async function insertPartnerClient(
  db: Kysely<Database>,
  client: { id: string; secret: string; refs: readonly string[] },
): Promise<TokenSubject> {
  const secretHash = await hashClientSecret(client.secret);
  await insertApiClient(db, {
    id: client.id,
    name: client.id,
    secretHash,
    refs: client.refs,
    shopId: null,
  });
  return { id: client.id, refs: client.refs, generation: clientGeneration(secretHash) };
}
