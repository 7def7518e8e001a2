/**
 * The command lines as a person meets them (real processes): `--help` of every command names
 * its options and the environment variables it reads, and a mistake is one line on stderr
 * with exit code 2, before anything is opened.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.ts';
import { DEFAULT_SEED } from '../../seeds/index.ts';
import { runToEnd, type Finished } from '../helpers/process.ts';
import { useTemporaryDirectories } from '../helpers/temporary-directories.ts';

/** The names loadConfig reads, recorded from a stand-in environment. */
function variablesReadByConfig(): string[] {
  const names = new Set<string>();
  loadConfig(
    new Proxy({} as Record<string, string | undefined>, {
      get: (_target, key) => (typeof key === 'string' && names.add(key), undefined),
    }),
  );
  return [...names];
}

const temporaryDirectory = useTemporaryDirectories('gateway-cli-test-');
let scratch: string;
/** A data directory that must stay absent: nothing may be opened on a mistake or --help. */
let untouched: Record<string, string>;

beforeAll(async () => {
  scratch = await temporaryDirectory();
  // An invalid PORT too: --help and usage errors come before the configuration is read.
  untouched = { EMBEDDED_DATA_DIR: path.join(scratch, 'data', 'pglite'), PORT: 'not-a-port' };
});

afterAll(() => {
  expect(existsSync(path.join(scratch, 'data'))).toBe(false);
});

function main(...args: string[]): Promise<Finished> {
  return runToEnd('src/main.ts', args, untouched);
}

function bench(...args: string[]): Promise<Finished> {
  return runToEnd('bench/run.ts', args, untouched);
}

function expectHelp(finished: Finished, names: string[]): void {
  expect(finished.stderr).toBe('');
  expect(finished.code).toBe(0);
  expect(finished.stdout).toMatch(/^Usage: /);
  for (const name of names) expect(finished.stdout, name).toContain(name);
}

function expectOneLineUsageError(finished: Finished, text: string): void {
  expect(finished.code).toBe(2);
  expect(finished.stdout).toBe('');
  expect(finished.stderr.trimEnd().split('\n')).toEqual([expect.stringContaining(text)]);
}

describe('--help', () => {
  it('of serve (npm start -- --help) names every variable the configuration reads', async () => {
    const [long, short] = await Promise.all([main('serve', '--help'), main('-h')]);
    expectHelp(long, ['npm start', '--help', ...variablesReadByConfig()]);
    expect(short.code).toBe(0);
    expect(short.stdout).toContain('serve');
    expect(short.stdout).toContain('migrate');
    expect(short.stdout).toContain('seed');
  });

  it('of migrate and seed name their options and the database variables', async () => {
    const [migrate, seed] = await Promise.all([main('migrate', '--help'), main('seed', '-h')]);
    expectHelp(migrate, ['npm run migrate', 'DATABASE_URL', 'EMBEDDED_DATA_DIR', 'LOG_LEVEL']);
    expect(migrate.stdout).not.toContain('RATE_LIMIT_');
    expectHelp(seed, [
      'npm run seed',
      '--scale SCALE',
      '--seed N',
      `default: ${DEFAULT_SEED}`,
      '--as-of YYYY-MM-DD',
      '--force',
      'DATABASE_URL',
      'EMBEDDED_DATA_DIR',
      'SEED_SCALE',
    ]);
  });

  it('of clients lists its subcommands; of each, its arguments, options and variables', async () => {
    const [group, addPartner, addShop, list, revoke, unlock] = await Promise.all([
      main('clients', '--help'),
      main('clients', 'add-partner', '--help'),
      main('clients', 'add-shop', '-h'),
      main('clients', 'list', '--help'),
      main('clients', 'revoke', '--help'),
      main('clients', 'unlock', '--help'),
    ]);
    expectHelp(group, [
      'npm run clients --',
      'add-partner NAME --ref REF …',
      'add-shop NAME --shop ID',
      'list',
      'revoke CLIENT_ID',
      'unlock CLIENT_ID',
    ]);
    expectHelp(addPartner, [
      'Usage: npm run clients -- add-partner NAME --ref REF … [options]',
      '(repeatable)',
      '--json',
      'secret',
      'DATABASE_URL',
      'EMBEDDED_DATA_DIR',
    ]);
    expectHelp(addShop, ['Usage: npm run clients -- add-shop NAME --shop ID [options]', '--json']);
    expectHelp(list, ['Usage: npm run clients -- list [options]', '--json']);
    expectHelp(revoke, [
      'Usage: npm run clients -- revoke CLIENT_ID [options]',
      'TOKEN_CLIENTS_REFRESH_SECONDS',
    ]);
    expect(revoke.stdout).not.toContain('--json');
    expectHelp(unlock, [
      'Usage: npm run clients -- unlock CLIENT_ID [options]',
      '--address IP',
      'REDIS_URL',
      'REDIS_KEY_PREFIX',
      'DATABASE_URL',
    ]);
    expect((await main('--help')).stdout).toContain('clients');
  });

  it('of cache lists purge; of purge, the variables that say where the answers are', async () => {
    const [group, purge, overview] = await Promise.all([
      main('cache', '--help'),
      main('cache', 'purge', '--help'),
      main('--help'),
    ]);
    expectHelp(group, ['npm run cache --', 'purge']);
    expectHelp(purge, [
      'Usage: npm run cache -- purge [options]',
      'REDIS_URL',
      'RESPONSE_CACHE_REDIS_URL',
      'REDIS_KEY_PREFIX',
      'DATABASE_URL',
    ]);
    // It never opens the embedded database: a serving process holds that.
    expect(purge.stdout).not.toContain('EMBEDDED_DATA_DIR');
    expect(overview.stdout).toContain('cache');
  });

  it('of the bench names its options, their defaults and BENCH_SERVER_URL', async () => {
    expectHelp(await bench('--help'), [
      'npm run bench',
      '--scale SCALE',
      '--rounds N',
      '--duration S',
      '--connections C',
      '--only',
      '--profile',
      '--server-url URL',
      '(default: bench)',
      'BENCH_SERVER_URL',
    ]);
  });
});

describe('mistakes on the command line', () => {
  it('an unknown option: one line naming it (and the likely one), exit code 2', async () => {
    const [serve, migrate, seed, benchmark] = await Promise.all([
      main('serve', '--port', '4001'),
      main('migrate', '--force'),
      main('seed', '--scael', 'bench'),
      bench('--onyl', 'W1'),
    ]);
    expectOneLineUsageError(serve, 'unknown option --port');
    expectOneLineUsageError(migrate, 'unknown option --force');
    expectOneLineUsageError(seed, 'unknown option --scael; did you mean --scale?');
    expectOneLineUsageError(benchmark, 'unknown option --onyl; did you mean --only?');
    expect(seed.stderr).not.toContain('ERR_PARSE_ARGS');
  });

  it('a bad value, a missing value, a stray argument or command: one line, exit code 2', async () => {
    const [scale, seedNumber, missing, stray, command, rounds] = await Promise.all([
      main('seed', '--scale', 'huge'),
      main('seed', '--seed=-1'),
      main('seed', '--scale'),
      main('migrate', 'now'),
      main('frobnicate'),
      bench('--rounds', '0'),
    ]);
    expectOneLineUsageError(scale, '--scale must be one of sample, bench, large, got "huge"');
    expectOneLineUsageError(seedNumber, '--seed must be an integer from 0 to 4294967295, got "-1"');
    expectOneLineUsageError(missing, 'option --scale <value> argument missing');
    expectOneLineUsageError(stray, 'unexpected argument now');
    expectOneLineUsageError(command, 'unknown command "frobnicate"');
    expectOneLineUsageError(rounds, '--rounds must be an integer from 1 to 1000, got "0"');
  });

  it('clients without what a subcommand needs, or with what it does not take: one line, exit code 2', async () => {
    const mistakes = [
      [['clients'], 'a subcommand is missing (add-partner, add-shop, list, revoke, unlock;'],
      [['clients', 'remove', 'x'], 'unknown subcommand "remove"'],
      [['clients', 'add-shop', 'Shop'], '--shop ID is required'],
      [['clients', 'add-shop', 'Shop', '--shop', 'twelve'], '--shop must be an integer from 1'],
      [['clients', 'add-shop', '--shop', '12'], 'NAME is missing'],
      [['clients', 'add-shop', ' ', '--shop', '12'], 'NAME must be a name that is not blank'],
      [['clients', 'add-partner', 'Acme'], '--ref REF is required'],
      [['clients', 'add-partner', 'Acme', '--ref', 'a b'], '--ref must be 1 to 64 of'],
      [['clients', 'add-partner', 'Acme', 'AB', '--ref', 'acme'], 'unexpected argument AB'],
      [['clients', 'list', 'all'], 'unexpected argument all'],
      [['clients', 'list', '--jsno'], 'unknown option --jsno; did you mean --json?'],
      [['clients', 'revoke'], 'CLIENT_ID is missing'],
      [['clients', 'unlock', '--address', '127.0.0.2'], 'CLIENT_ID is missing'],
      [['clients', 'unlock', 'x', '--address', 'somewhere'], '--address must be an IPv4 or'],
      [['cache'], 'a subcommand is missing (purge;'],
      [['cache', 'purge', 'all'], 'unexpected argument all'],
    ] as const;
    const finished = await Promise.all(mistakes.map(([args]) => main(...args)));
    mistakes.forEach(([, text], index) => expectOneLineUsageError(finished[index]!, text));
  });

  it('an --as-of that is not a calendar day: one line, exit code 2, before the database', async () => {
    expectOneLineUsageError(
      await main('seed', '--as-of', '2026-02-30'),
      '--as-of must be a date YYYY-MM-DD, got "2026-02-30"',
    );
  });
});
