/**
 * The sample catalogue's demo partner client, whose secret the README publishes: in production
 * a start that seeds an empty catalogue adds it only when SEED_DEMO_CLIENT=true, saying so in
 * one warning that leaves the secret out. Each case seeds the sample catalogue as a start does
 * (prepareDatabase), on a database of its own.
 */
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { prepareDatabase } from '../../src/db/bootstrap.ts';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { createTestDatabase, databaseKind, type TestDatabase } from '../helpers/database.ts';

/** Seeding the sample catalogue (5,000 products) on a busy machine. */
const SEEDING_TIMEOUT_MS = 240_000;
const PRODUCTION = {
  NODE_ENV: 'production',
  TOKEN_SECRET: 'demo-client-test-token-secret-0123456789',
  SEED_ON_EMPTY: 'true',
};

let database: TestDatabase | undefined;
afterEach(async () => {
  await database?.dispose();
  database = undefined;
});

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** Prepares a fresh migrated database as a start with `env` does; its log lines and clients. */
async function startWith(env: Record<string, string>) {
  database = await createTestDatabase({ contents: 'migrated' });
  let written = '';
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      written += chunk.toString();
      done();
    },
  });
  await prepareDatabase(database, loadConfig(env), pino({ level: 'info' }, destination));
  const lines = written
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as LogLine);
  const clients = await database.db.selectFrom('api_clients').select('id').execute();
  const products = await database.db.selectFrom('products').select('id').limit(1).execute();
  return { lines, written, clients: clients.map(({ id }) => id), seeded: products.length > 0 };
}

const aboutTheDemoClient = (lines: LogLine[]) => lines.filter((line) => /demo/.test(line.msg));

describe(`the demo partner client of a start that seeds, on ${databaseKind}`, () => {
  it(
    'is left out in production when only the sample catalogue is asked for',
    async () => {
      const { lines, clients, seeded } = await startWith(PRODUCTION);
      expect(seeded).toBe(true);
      expect(clients).toEqual([]);
      expect(aboutTheDemoClient(lines)).toEqual([]);
    },
    SEEDING_TIMEOUT_MS,
  );

  it(
    'is added in production when SEED_DEMO_CLIENT=true, said in one warning without its secret',
    async () => {
      const { lines, written, clients } = await startWith({
        ...PRODUCTION,
        SEED_DEMO_CLIENT: 'true',
      });
      expect(clients).toEqual([DEMO_CLIENT.id]);
      expect(aboutTheDemoClient(lines)).toEqual([
        {
          level: 40,
          time: expect.any(Number),
          pid: expect.any(Number),
          hostname: expect.any(String),
          clientId: DEMO_CLIENT.id,
          ref: DEMO_CLIENT.ref,
          msg: expect.stringMatching(/^demo partner client added in production/),
        },
      ]);
      expect(written).not.toContain(DEMO_CLIENT.secret);
    },
    SEEDING_TIMEOUT_MS,
  );
});
