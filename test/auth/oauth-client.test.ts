/**
 * A real OAuth 2.0 client library (openid-client, on oauth4webapi) against the service over
 * HTTP: it obtains a token for the demo client with the client credentials grant, calls
 * partner search with it, and understands our RFC 6749 errors.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as client from 'openid-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { databaseKind } from '../helpers/database.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const catalogue = useSeededCatalogue();
let server: Server;
let baseUrl: string;

beforeAll(async () => {
  server = createServer(catalogue.app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise<void>((resolve) => server?.close(() => resolve())));

/** The service publishes no discovery document: the metadata a client needs, by hand. */
function configuration(secret: string, authentication?: client.ClientAuth) {
  const metadata: client.ServerMetadata = {
    issuer: baseUrl,
    token_endpoint: `${baseUrl}${TOKEN_PATH}`,
  };
  const config = new client.Configuration(metadata, DEMO_CLIENT.id, secret, authentication);
  client.allowInsecureRequests(config); // plain http to the local test server
  return config;
}

async function partnerSearch(config: client.Configuration, accessToken: string) {
  const url = new URL(`/partner-search/products?market=se&ref=${DEMO_CLIENT.ref}&limit=3`, baseUrl);
  const response = await client.fetchProtectedResource(config, accessToken, url, 'GET');
  return { status: response.status, body: (await response.json()) as { data: unknown[] } };
}

describe(`openid-client's client credentials grant on ${databaseKind}`, () => {
  it('obtains a token (client_secret_post) and calls partner search with it', async () => {
    const config = configuration(DEMO_CLIENT.secret);
    const tokens = await client.clientCredentialsGrant(config);
    expect(tokens.token_type).toBe('bearer'); // the library lower-cases it
    expect(tokens.expiresIn()).toBeGreaterThan(3500);
    const search = await partnerSearch(config, tokens.access_token);
    expect(search.status).toBe(200);
    expect(search.body.data).toHaveLength(3);
  });

  it('obtains a token with HTTP Basic (client_secret_basic) too', async () => {
    const config = configuration(DEMO_CLIENT.secret, client.ClientSecretBasic());
    const tokens = await client.clientCredentialsGrant(config);
    const search = await partnerSearch(config, tokens.access_token);
    expect(search.status).toBe(200);
    expect(search.body.data.length).toBeGreaterThan(0);
  });

  it('surfaces a wrong secret as invalid_client, with our description and request id', async () => {
    const error = await client
      .clientCredentialsGrant(configuration('not-the-secret'))
      .catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(client.ResponseBodyError);
    const bodyError = error as client.ResponseBodyError;
    expect(bodyError.error).toBe('invalid_client');
    expect(bodyError.error_description).toBe('client authentication failed');
    expect(bodyError.status).toBe(400);
    expect(bodyError.cause.request_id).toBe(bodyError.response.headers.get('x-request-id'));
  });

  it('surfaces a wrong Basic secret as the 401 Basic challenge, with invalid_client in the body', async () => {
    const error = await client
      .clientCredentialsGrant(configuration('not-the-secret', client.ClientSecretBasic()))
      .catch((thrown: unknown) => thrown);
    // RFC 6749 section 5.2 requires the challenge here; the library reports it first.
    expect(error).toBeInstanceOf(client.WWWAuthenticateChallengeError);
    const challenge = error as client.WWWAuthenticateChallengeError;
    expect(challenge.status).toBe(401);
    expect(challenge.cause).toEqual([{ scheme: 'basic', parameters: { realm: 'partner-search' } }]);
    expect(await challenge.response.json()).toMatchObject({ error: 'invalid_client' });
  });
});
