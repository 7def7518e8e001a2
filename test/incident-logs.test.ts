/**
 * The logs an operator answers an incident from (docs/operations.md, "Logs" and "A targeted
 * client, a failing address"), read from a real `serve` with WORKERS=2 behind a trusted proxy
 * (the test, on loopback, sending X-Forwarded-For), its limits shared through the run's Redis:
 * every line names its process; every request line the client IP as TRUST_PROXY lets the
 * service believe it; token failures, their delays and 429s the client id they named, a
 * partner's 429 its client id. From those alone the test does what the manual says: find who
 * holds a partner's tokens back and from where, and every request of an address to block.
 */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { TOKEN_PATH } from '../src/auth/token-endpoint.ts';
import { removeKeys } from './helpers/redis.ts';
import { jsonLogLines, runToEnd, untilOutput, type StartedProcess } from './helpers/process.ts';
import {
  logged,
  PATIENCE_MS,
  useEmptyServerDatabase,
  workerPids,
  type LogLine,
} from './helpers/serve-processes.ts';

const REDIS_URL = inject('redisUrl');
const PREFIX = `test-incident-${randomBytes(4).toString('hex')}:`;

const GUESSER = '203.0.113.66';
const PARTNER_ADDRESS = '198.51.100.10';
const FLOODER = '203.0.113.99';
const ANONYMOUS_PER_MINUTE = 4;
const CLIENT_PER_MINUTE = 4;

const database = useEmptyServerDatabase();
let primary: StartedProcess;
let port: number;
let partner: { clientId: string; clientSecret: string };

beforeAll(async () => {
  const added = await runToEnd(
    'src/main.ts',
    ['clients', 'add-partner', 'Incident partner', '--ref', 'incident', '--json'],
    { DATABASE_URL: database.url },
  );
  expect(added.code, added.stderr).toBe(0);
  partner = JSON.parse(added.stdout);
  primary = database.serve({
    WORKERS: '2',
    TRUST_PROXY: 'loopback',
    REDIS_URL,
    REDIS_KEY_PREFIX: PREFIX,
    RESPONSE_CACHE_TTL_SECONDS: '0',
    LOG_REQUEST_SAMPLE_RATE: '1',
    RATE_LIMIT_ANONYMOUS_PER_MINUTE: String(ANONYMOUS_PER_MINUTE),
    RATE_LIMIT_CLIENT_PER_MINUTE: String(CLIENT_PER_MINUTE),
    TOKEN_FAILURES_PER_IP_AND_CLIENT: '2',
    TOKEN_FAILURES_PER_CLIENT_WARNING: '2',
  });
  const [listening] = await logged(primary, 'listening', 2);
  await logged(primary, 'all workers listening');
  port = Number(listening!.port);
}, 3 * PATIENCE_MS);

afterAll(() => removeKeys(REDIS_URL, PREFIX));

interface Sent {
  status: number;
  requestId: string;
}

/**
 * A request on a connection of its own (the primary hands each to a worker in turn), from
 * `forwardedFor` as the proxy says; resolves once its request line is logged.
 */
function send(
  method: 'GET' | 'POST',
  path: string,
  forwardedFor: string,
  options: { body?: string; headers?: Record<string, string> } = {},
): Promise<Sent> {
  const requestId = `incident-${randomBytes(6).toString('hex')}`;
  const headers = {
    'x-forwarded-for': forwardedFor,
    'x-request-id': requestId,
    ...options.headers,
  };
  return new Promise<number>((resolve, reject) => {
    const request = httpRequest({ host: '127.0.0.1', port, path, method, headers, agent: false });
    request.on('response', (response) => {
      response.resume();
      response.on('end', () => resolve(response.statusCode!));
    });
    request.on('error', reject);
    request.end(options.body);
  }).then(async (status) => {
    await untilLine(requestId);
    return { status, requestId };
  });
}

function untilLine(requestId: string): Promise<LogLine> {
  return untilOutput(
    primary,
    `the line of request ${requestId}`,
    () => requestLines().find((line) => line.requestId === requestId),
    PATIENCE_MS,
  );
}

const requestLines = () => jsonLogLines(primary).filter((line) => typeof line.status === 'number');

const graphql = (from: string, headers: Record<string, string> = {}) =>
  send('POST', '/graphql', from, {
    body: JSON.stringify({ query: '{ __typename }' }),
    headers: { 'content-type': 'application/json', ...headers },
  });

const tokenRequest = (from: string, secret: string) =>
  send('POST', TOKEN_PATH, from, {
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: partner.clientId,
      client_secret: secret,
    }).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });

describe('the logs of an incident', () => {
  it('name the client IP as the trusted proxy gives it: the nearest address it did not write', async () => {
    const { requestId } = await send('GET', '/healthz', `192.0.2.1, ${PARTNER_ADDRESS}`);
    expect(requestLines().find((line) => line.requestId === requestId)).toMatchObject({
      path: '/healthz',
      clientIp: PARTNER_ADDRESS,
    });
  });

  it('find who holds a partner back, and from where: the token lines by client id, then by address', async () => {
    const guesses = [];
    for (let i = 0; i < 3; i++) guesses.push(await tokenRequest(GUESSER, `wrong${i}`));
    expect(guesses.map(({ status }) => status)).toEqual([400, 400, 429]);
    expect((await tokenRequest(PARTNER_ADDRESS, partner.clientSecret)).status).toBe(200);

    // The manual's steps: the warning names the client id...
    const [warning] = await logged(
      primary,
      'token requests: many failed authentications for one client id',
    );
    expect(warning).toMatchObject({ tokenClientId: partner.clientId, clientIp: GUESSER });
    // ...its token lines, grouped by address, show who fails and who is held back.
    const byAddress: Record<string, number[]> = {};
    for (const line of requestLines()) {
      if (line.route !== 'token' || line.tokenClientId !== partner.clientId) continue;
      (byAddress[String(line.clientIp)] ??= []).push(Number(line.status));
    }
    expect(byAddress).toEqual({ [GUESSER]: [400, 400, 429], [PARTNER_ADDRESS]: [200] });
    // The delay's start is a line of its own, naming the address and the client id.
    const [heldBack] = await logged(
      primary,
      'token requests: an address is held back after failed authentications',
    );
    expect(heldBack).toMatchObject({
      level: 30,
      heldBack: 'address and client id',
      clientIp: GUESSER,
      tokenClientId: partner.clientId,
      failures: 2,
      delaySeconds: 1,
    });
  });

  it("find every request of an address to block, and a partner's own 429s by client id", async () => {
    const flood = [];
    for (let i = 0; i < ANONYMOUS_PER_MINUTE + 3; i++) flood.push(await graphql(FLOODER));
    const statuses = flood.map(({ status }) => status);
    expect(statuses).toEqual([...Array(ANONYMOUS_PER_MINUTE).fill(200), 429, 429, 429]);
    const ofFlooder = requestLines().filter((line) => line.clientIp === FLOODER);
    expect(ofFlooder.map((line) => [line.route, line.status])).toEqual(
      statuses.map((status) => ['graphql', status]),
    );

    const token = await fetchToken();
    const bearer = { authorization: `Bearer ${token}` };
    const asPartner: Sent[] = [];
    for (let i = 0; i < CLIENT_PER_MINUTE + 1; i++)
      asPartner.push(await graphql(PARTNER_ADDRESS, bearer));
    expect(asPartner.map(({ status }) => status)).toEqual([
      ...Array(CLIENT_PER_MINUTE).fill(200),
      429,
    ]);
    const refused = requestLines().find((line) => line.requestId === asPartner.at(-1)!.requestId);
    expect(refused).toMatchObject({
      status: 429,
      clientId: partner.clientId,
      clientIp: PARTNER_ADDRESS,
    });
  });

  it('name the process of every line: the primary, and the worker that served each request', async () => {
    const workers = await workerPids(primary);
    const lines = jsonLogLines(primary);
    expect(lines.every((line) => typeof line.pid === 'number')).toBe(true);
    const requestPids = new Set(requestLines().map((line) => line.pid));
    // Connections handed out in turn: both workers served some.
    expect([...requestPids].sort()).toEqual([...workers].sort());
    const starting = lines.find((line) => line.msg === 'starting workers');
    expect(starting?.pid).toBe(primary.child.pid);
  });
});

/** A partner token, asked for from the partner's own address. */
async function fetchToken(): Promise<string> {
  const response = await fetch(`http://127.0.0.1:${port}${TOKEN_PATH}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      'x-forwarded-for': PARTNER_ADDRESS,
    },
    body: new URLSearchParams({
      grant_type: 'client_credentials',
      client_id: partner.clientId,
      client_secret: partner.clientSecret,
    }).toString(),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}
