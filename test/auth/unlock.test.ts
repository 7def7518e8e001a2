/**
 * An operator lifts the delays a client's failed token requests earned (docs/operations.md,
 * "API clients"): at every address or at one, counted in the process's memory or in Redis.
 * The app serves on a socket behind the test as its trusted proxy (X-Forwarded-For names each
 * request's address). A delay is earned the way a guesser earns it: failures past the free
 * ones, each doubling the wait, waited out in turn. The notice is what `npm run clients --
 * unlock` sends every serving process; on a server the command itself runs too.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { announceNotice } from '../../src/changes/notices.ts';
import { openDatabase } from '../../src/db/client.ts';
import { migrateToLatest } from '../../src/db/migrator.ts';
import { insertPartnerClient } from '../helpers/clients.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';
import { runToEnd } from '../helpers/process.ts';
import { serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { removeKeys } from '../helpers/redis.ts';
import { useTemporaryDirectories } from '../helpers/temporary-directories.ts';

const CLIENT = { id: 'partner-locked-out', secret: 'the-right-secret', refs: [] };
/** The command is a process: a start of its own on a busy machine. */
const COMMAND_TIMEOUT_MS = 120_000;
/** How soon every process has heard a notice: milliseconds, with room for a busy machine. */
const TOLD_BOUND_MS = 5_000;
const redisUrl = inject('redisUrl');
const redisPrefix = `test-unlock-${randomBytes(4).toString('hex')}:`;
const temporaryDirectory = useTemporaryDirectories('gateway-unlock-test-');

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase({ contents: 'migrated' });
  await insertPartnerClient(database.db, CLIENT);
});
afterAll(async () => {
  await database?.dispose();
  await removeKeys(redisUrl, redisPrefix);
});

interface TokenAnswer {
  status: number;
  retryAfter: string | null;
}

describe.each<{ counted: string; env: Record<string, string> }>([
  { counted: 'in the process', env: {} },
  { counted: 'in Redis', env: { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix } },
])(
  `unlocking a client whose token requests are delayed, counted $counted, on ${databaseKind}`,
  ({ env }) => {
    let served: ServedApp;
    beforeAll(async () => {
      served = await serveApp(database, {
        ...env,
        TRUST_PROXY: 'loopback',
        TOKEN_FAILURES_PER_IP_AND_CLIENT: '2',
        TOKEN_FAILURES_PER_IP: '0',
      });
    });
    afterAll(() => served?.close());

    async function token(address: string, secret: string): Promise<TokenAnswer> {
      const response = await fetch(`http://127.0.0.1:${served.port}${TOKEN_PATH}`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          'x-forwarded-for': address,
        },
        body: new URLSearchParams({
          grant_type: 'client_credentials',
          client_id: CLIENT.id,
          client_secret: secret,
        }),
      });
      await response.arrayBuffer();
      return { status: response.status, retryAfter: response.headers.get('retry-after') };
    }

    /**
     * Four failures from the address, each delay waited out (1 s, then 2): the fourth earns a
     * delay of 4 s, and a fifth would earn 8.
     */
    async function lockOut(address: string): Promise<void> {
      for (const [failure, delay] of [
        [1, null],
        [2, '1'],
        [3, '2'],
      ] as const) {
        expect((await token(address, `wrong-${failure}`)).status).toBe(400);
        if (delay !== null) {
          const held = await token(address, CLIENT.secret);
          expect(held).toEqual({ status: 429, retryAfter: delay });
          await sleep(Number(delay) * 1000);
        }
      }
      expect((await token(address, 'wrong-4')).status).toBe(400);
      expect((await token(address, CLIENT.secret)).status).toBe(429);
    }

    /** The failures of the address were forgotten: another is a free one, not a delay of 8 s. */
    async function expectForgotten(address: string): Promise<void> {
      expect((await token(address, 'wrong-again')).status).toBe(400);
      expect((await token(address, CLIENT.secret)).status).toBe(200);
    }

    it('lifts a delay at every address as soon as the processes are told, and forgets the failures', async () => {
      await Promise.all([lockOut('198.51.100.1'), lockOut('198.51.100.2')]);

      await announceNotice(database.db, { kind: 'client-unlocked', clientId: CLIENT.id });
      await vi.waitFor(
        async () => expect((await token('198.51.100.1', CLIENT.secret)).status).toBe(200),
        { timeout: TOLD_BOUND_MS, interval: 20 },
      );
      expect((await token('198.51.100.2', CLIENT.secret)).status).toBe(200);
      await expectForgotten('198.51.100.1');
    });

    it('lifts it at one address only, when named', async () => {
      await Promise.all([lockOut('198.51.100.3'), lockOut('198.51.100.4')]);

      await announceNotice(database.db, {
        kind: 'client-unlocked',
        clientId: CLIENT.id,
        address: '198.51.100.3',
      });
      await vi.waitFor(
        async () => expect((await token('198.51.100.3', CLIENT.secret)).status).toBe(200),
        { timeout: TOLD_BOUND_MS, interval: 20 },
      );
      // The other address keeps its failures: one more (or a try while still held) is held.
      await token('198.51.100.4', 'wrong-5');
      expect((await token('198.51.100.4', CLIENT.secret)).status).toBe(429);
    });

    it.skipIf(databaseKind === 'embedded')(
      'is what `npm run clients -- unlock` does, with or without --address',
      async () => {
        const unlock = (...args: string[]) =>
          runToEnd('src/main.ts', ['clients', 'unlock', CLIENT.id, ...args], {
            ...env,
            DATABASE_URL: database.url!,
            LOG_LEVEL: 'warn',
          });
        await lockOut('198.51.100.5');
        const everywhere = await unlock();
        expect(everywhere.stderr).toBe('');
        expect(everywhere.code).toBe(0);
        expect(everywhere.stdout).toMatch(
          env.REDIS_URL
            ? new RegExp(`^unlocked ${CLIENT.id} at every address: .*, and [1-9]\\d* counts`)
            : new RegExp(`^unlocked ${CLIENT.id} at every address: the serving processes forget`),
        );
        // Whatever of the 4 s delay the command outlasted, the failures are gone.
        await expectForgotten('198.51.100.5');

        await lockOut('198.51.100.6');
        const one = await unlock('--address', '198.51.100.6');
        expect(one.code).toBe(0);
        expect(one.stdout).toContain(`unlocked ${CLIENT.id} at 198.51.100.6`);
        await expectForgotten('198.51.100.6');
      },
      COMMAND_TIMEOUT_MS,
    );

    // The serving process holds its own database, beyond the command's reach: the command, on
    // a data directory of its own knowing the client, reaches what Redis keeps.
    it.runIf(databaseKind === 'embedded' && env.REDIS_URL !== undefined)(
      'is what `npm run clients -- unlock` does with Redis on the embedded database',
      async () => {
        const dataDir = path.join(await temporaryDirectory(), 'pglite');
        const own = await openDatabase({ embeddedDataDir: dataDir });
        try {
          await migrateToLatest(own.db);
          await insertPartnerClient(own.db, CLIENT);
        } finally {
          await own.close();
        }
        await lockOut('198.51.100.7');
        const unlocked = await runToEnd('src/main.ts', ['clients', 'unlock', CLIENT.id], {
          ...env,
          EMBEDDED_DATA_DIR: dataDir,
          LOG_LEVEL: 'warn',
        });
        expect(unlocked.stderr).toBe('');
        expect(unlocked.code).toBe(0);
        expect(unlocked.stdout).toMatch(
          new RegExp(`^unlocked ${CLIENT.id} at every address: .*, and [1-9]\\d* counts`),
        );
        await expectForgotten('198.51.100.7');
      },
      COMMAND_TIMEOUT_MS,
    );
  },
);
