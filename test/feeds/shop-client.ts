/**
 * A shop's API client, made as the `clients` command makes one, and tokens from the
 * token endpoint of whatever serves it (the app in-process, or a `serve` process by URL).
 */
import type { Kysely } from 'kysely';
import { hashClientSecret } from '../../src/auth/client-secrets.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { insertApiClient } from '../../src/db/repositories/api-clients.ts';
import type { Database } from '../../src/db/types.ts';

/** Sends a request to a path of the service: `app.fetch`, or `fetch` on a base URL. */
export type SendToService = (path: string, init: RequestInit) => Response | Promise<Response>;

/** Inserts the shop's client and answers a bearer token for it. */
export async function shopToken(
  db: Kysely<Database>,
  send: SendToService,
  shopId: number,
): Promise<string> {
  const secret = `secret-of-shop-${shopId}-0123456789`;
  const clientId = `shop-${shopId}-test`;
  await insertApiClient(db, {
    id: clientId,
    name: `shop ${shopId}`,
    secretHash: await hashClientSecret(secret),
    refs: [],
    shopId,
  });
  return clientToken(send, clientId, secret);
}

/** A bearer token from the token endpoint for a client's id and secret. */
export async function clientToken(
  send: SendToService,
  clientId: string,
  secret: string,
): Promise<string> {
  const response = await send(TOKEN_PATH, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: clientId,
      client_secret: secret,
    }),
  });
  if (response.status !== 200) {
    throw new Error(`the token endpoint answered ${response.status}: ${await response.text()}`);
  }
  return ((await response.json()) as { access_token: string }).access_token;
}
