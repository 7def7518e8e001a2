/**
 * No Docker engine runs where these tests run, so docker-compose.yml and the Dockerfile are
 * checked by construction: the compose environment is fed to the gateway's own loadConfig,
 * the healthcheck one-liner is run against a stub server, and the files the image copies are
 * compared with what the production bundle is built from (everything `src/main.ts` loads).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { ConfigError, loadConfig } from '../src/config.ts';
import { checkTimings, outOfServiceWithinMs, timeoutMs } from './helpers/haproxy.ts';

const root = path.resolve(import.meta.dirname, '..');
const read = (file: string) => readFileSync(path.join(root, file), 'utf8');

// ---------------------------------------------------------------------------------------------
// docker-compose.yml

type Env = Record<string, string>;

/**
 * Compose's variable interpolation: `$$`, `$VAR`, `${VAR}`, `${VAR:-default}` and
 * `${VAR-default}`. Anything else fails the test rather than being guessed at.
 */
function interpolate(value: string, env: Env): string {
  return value.replace(
    /\$(\$|\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?-)([^}]*))?\}|([A-Za-z_][A-Za-z0-9_]*)|\{[^}]*\})/g,
    (match, _whole, braced?: string, operator?: string, fallback?: string, bare?: string) => {
      if (match === '$$') return '$';
      const name = braced ?? bare;
      if (name === undefined) throw new Error(`unsupported interpolation ${match}`);
      const set = env[name];
      if (operator === ':-') return set === undefined || set === '' ? (fallback ?? '') : set;
      if (operator === '-') return set ?? fallback ?? '';
      return set ?? '';
    },
  );
}

function interpolateAll(node: unknown, env: Env): unknown {
  if (typeof node === 'string') return interpolate(node, env);
  if (Array.isArray(node)) return node.map((item) => interpolateAll(item, env));
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(
      Object.entries(node).map(([key, value]) => [key, interpolateAll(value, env)]),
    );
  }
  return node;
}

interface Healthcheck {
  test: string[] | string;
  interval?: string;
  timeout?: string;
  retries?: number;
  start_period?: string;
}

interface Service {
  image?: string;
  entrypoint?: string[] | string;
  command?: string[] | string;
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number)[];
  volumes?: string[];
  healthcheck?: Healthcheck;
  restart?: string;
  stop_grace_period?: string;
}

interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const rawCompose = read('docker-compose.yml');

/** The compose file as `docker compose config` would see it with the given environment. */
function compose(env: Env = {}): Compose {
  return interpolateAll(parse(rawCompose), env) as Compose;
}

/** A service's environment as plain strings (compose accepts a map or KEY=VALUE list). */
function environmentOf(service: Service): Env {
  const { environment = {} } = service;
  const entries = Array.isArray(environment)
    ? environment.map((line) => {
        const at = line.indexOf('=');
        return [line.slice(0, at), line.slice(at + 1)] as const;
      })
    : Object.entries(environment).map(([key, value]) => [key, String(value ?? '')] as const);
  return Object.fromEntries(entries);
}

/** Compose durations: `1m30s`, `5s`, `500ms`, `2h`. */
const DURATION = /^(\d+(\.\d+)?(h|m|s|ms|us|ns))+$/;

/** A compose duration in milliseconds. */
function durationOf(value: string): number {
  expect(value).toMatch(DURATION);
  const perUnit: Record<string, number> = {
    h: 3_600_000,
    m: 60_000,
    s: 1000,
    ms: 1,
    us: 1e-3,
    ns: 1e-6,
  };
  return [...value.matchAll(/(\d+(?:\.\d+)?)(h|ms|m|s|us|ns)/g)].reduce(
    (total, [, amount, unit]) => total + Number(amount) * perUnit[unit!]!,
    0,
  );
}

function expectWellFormedHealthcheck(healthcheck: Healthcheck | undefined) {
  expect(healthcheck).toBeDefined();
  const { test, interval, timeout, retries, start_period } = healthcheck!;
  expect(Array.isArray(test), 'test in exec form').toBe(true);
  expect(['CMD', 'CMD-SHELL']).toContain((test as string[])[0]);
  expect((test as string[]).length).toBeGreaterThan(1);
  for (const duration of [interval, timeout, start_period]) expect(duration).toMatch(DURATION);
  expect(Number.isInteger(retries) && retries! > 0).toBe(true);
}

/** Every variable name loadConfig looks at, recorded as it reads them. */
function variablesReadByConfig(): Set<string> {
  const names = new Set<string>();
  const recorder = new Proxy({} as Env, {
    get(_target, key) {
      if (typeof key === 'string') names.add(key);
      return undefined;
    },
  });
  loadConfig(recorder);
  return names;
}

/** KEY=VALUE lines of an .env file, as compose reads them; comments and blank lines skipped. */
function parseDotEnv(source: string): Env {
  const entries = source
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const [, name, value] = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/.exec(line) ?? [];
      if (name === undefined) throw new Error(`not a KEY=VALUE line: ${line}`);
      return [name, value!] as const;
    });
  return Object.fromEntries(entries);
}

/** The `${NAME…}` variables the compose file takes from the environment or .env. */
const interpolatedVariables = new Set(
  [...rawCompose.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1]!),
);

/** The problems loadConfig reports for an environment (none when it is accepted). */
function configProblems(env: Env): { problems: string[]; message: string } {
  try {
    loadConfig(env);
    return { problems: [], message: '' };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problems: error.problems, message: error.message };
  }
}

/** The gateway replicas: every service built from the repository's Dockerfile. */
const GATEWAYS = ['gateway-1', 'gateway-2'];

describe('docker-compose.yml', () => {
  const { services, volumes } = compose();
  const postgres = services.postgres!;
  const redis = services.redis!;
  const gateway = services['gateway-1']!;
  const postgresEnv = environmentOf(postgres);
  const gatewayEnv = environmentOf(gateway);
  /** A secret as .env would hold one. */
  const secret = 'a'.repeat(64);

  it('defines the primary, its replica, redis, two gateways, the load balancer and volumes', () => {
    expect(Object.keys(services).sort()).toEqual([
      ...GATEWAYS,
      'load-balancer',
      'postgres',
      'postgres-replica',
      'redis',
    ]);
    const built = Object.keys(services).filter((name) => services[name]!.build !== undefined);
    expect(built).toEqual(GATEWAYS);
    // Copies of one definition: the replicas of one stateless service.
    expect(services['gateway-2']).toEqual(gateway);
    const [volume, mountPoint] = postgres.volumes?.[0]?.split(':') ?? [];
    expect(mountPoint).toBe('/var/lib/postgresql/data');
    expect(Object.keys(volumes ?? {})).toContain(volume);
  });

  it('runs PostgreSQL 15 with its user, password and database set', () => {
    expect(postgres.image).toMatch(/^postgres:15(\.\d+)*(-(alpine|bookworm|bullseye)[\d.]*)?$/);
    expect(postgresEnv).toMatchObject({
      POSTGRES_USER: expect.any(String),
      POSTGRES_PASSWORD: expect.any(String),
      POSTGRES_DB: expect.any(String),
    });
    for (const value of Object.values(postgresEnv)) expect(value).not.toBe('');
  });

  it('checks postgres health with pg_isready for its own user and database', () => {
    expectWellFormedHealthcheck(postgres.healthcheck);
    const command = (postgres.healthcheck!.test as string[]).slice(1).join(' ');
    expect(command).toMatch(/^pg_isready\b/);
    expect(command).toContain(`-U ${postgresEnv.POSTGRES_USER}`);
    expect(command).toContain(`-d ${postgresEnv.POSTGRES_DB}`);
  });

  it('builds the gateway from the Dockerfile in the repository root', () => {
    const build = typeof gateway.build === 'string' ? { context: gateway.build } : gateway.build;
    expect(build?.context).toBe('.');
    expect(existsSync(path.join(root, build?.dockerfile ?? 'Dockerfile'))).toBe(true);
  });

  it('starts the gateways once both databases are healthy and redis has started', () => {
    // Not redis healthy: a Redis that is down only makes answers uncached.
    expect(gateway.depends_on).toEqual({
      postgres: { condition: 'service_healthy' },
      'postgres-replica': { condition: 'service_healthy' },
      redis: { condition: 'service_started' },
    });
  });

  describe('the redis service', () => {
    const command = Array.isArray(redis.command) ? redis.command : [];
    const option = (name: string) => {
      const at = command.indexOf(`--${name}`);
      return at < 0 ? undefined : command[at + 1];
    };

    it('runs the official Redis 7 image as a cache: nothing on disk, memory bounded', () => {
      expect(redis.image).toMatch(/^redis:7(\.\d+)*(-(alpine|bookworm)[\d.]*)?$/);
      expect(command[0], 'command in exec form').toBe('redis-server');
      expect(option('save')).toBe('');
      expect(option('appendonly')).toBe('no');
      expect(redis.volumes).toBeUndefined();
      expect(option('maxmemory')).toMatch(/^\d+(mb|gb)$/);
      expect(option('maxmemory-policy')).toMatch(/^allkeys-(lru|lfu)$/);
    });

    it('checks its health with redis-cli ping', () => {
      expectWellFormedHealthcheck(redis.healthcheck);
      expect(redis.healthcheck!.test).toEqual(['CMD', 'redis-cli', 'ping']);
    });

    it('is reached by the gateway through REDIS_URL, and published nowhere', () => {
      const url = new URL(gatewayEnv.REDIS_URL!);
      expect(url.protocol).toBe('redis:');
      expect(url.hostname).toBe('redis');
      expect(url.port || '6379').toBe(option('port') ?? '6379');
      expect(loadConfig({ ...gatewayEnv, TOKEN_SECRET: secret }).redisUrl).toBe(
        gatewayEnv.REDIS_URL,
      );
      expect(redis.ports).toBeUndefined();
    });
  });

  it('points the gateway at the postgres service with its credentials', () => {
    for (const env of [{}, { POSTGRES_PASSWORD: 'another-password' }] as Env[]) {
      const { services } = compose(env);
      const expected = environmentOf(services.postgres!);
      const url = new URL(environmentOf(services['gateway-1']!).DATABASE_URL!);
      expect(url.protocol).toMatch(/^postgres(ql)?:$/);
      expect(url.hostname).toBe('postgres');
      expect(url.port || '5432').toBe('5432');
      expect(decodeURIComponent(url.username)).toBe(expected.POSTGRES_USER);
      expect(decodeURIComponent(url.password)).toBe(expected.POSTGRES_PASSWORD);
      expect(url.pathname).toBe(`/${expected.POSTGRES_DB}`);
    }
  });

  it('sets only variables the gateway reads, and ones its configuration accepts', () => {
    const known = variablesReadByConfig();
    expect([...known]).toContain('DATABASE_URL');
    for (const name of Object.keys(gatewayEnv)) expect([...known], name).toContain(name);

    const withSecret = environmentOf(compose({ TOKEN_SECRET: secret }).services['gateway-1']!);
    expect(loadConfig(withSecret)).toMatchObject({
      port: 4000,
      host: '0.0.0.0',
      databaseUrl: gatewayEnv.DATABASE_URL,
      tokenSecrets: [secret],
      production: true,
      // Explicit: production seeds only when asked, and compose is the local demo.
      seedOnEmpty: true,
      seedDemoClient: true,
    });
  });

  describe('the token secret', () => {
    const readme = read('README.md');
    const example = read('.env.example');
    /** The one command the README and .env.example give for creating .env. */
    const CREATE_DOT_ENV = `printf 'TOKEN_SECRET=%s\\n' "$(openssl rand -hex 32)" > .env`;

    it('without .env, is a placeholder the production gateway refuses in one line', () => {
      expect(gatewayEnv.NODE_ENV).toBe('production');
      const { problems, message } = configProblems(gatewayEnv);
      expect(problems).toHaveLength(1);
      expect(message).not.toContain('\n');
      expect(message).toMatch(
        /^Invalid configuration: TOKEN_SECRET is the placeholder from docker-compose\.yml\b/,
      );
      expect(message).toContain('.env');
      // Outside production the same placeholder is fine (a developer's own machine).
      expect(configProblems({ ...gatewayEnv, NODE_ENV: '' }).problems).toEqual([]);
    });

    it('is taken from .env as the README says to create it, and accepted', () => {
      expect(readme).toContain(CREATE_DOT_ENV);
      expect(example).toContain(CREATE_DOT_ENV);
      const directory = mkdtempSync(path.join(tmpdir(), 'compose-dotenv-'));
      try {
        const created = spawnSync('sh', ['-c', CREATE_DOT_ENV], { cwd: directory });
        expect(created.status, created.stderr?.toString()).toBe(0);
        const dotEnv = parseDotEnv(readFileSync(path.join(directory, '.env'), 'utf8'));
        expect(dotEnv.TOKEN_SECRET).toMatch(/^[0-9a-f]{64}$/);
        const env = environmentOf(compose(dotEnv).services['gateway-1']!);
        expect(env.TOKEN_SECRET).toBe(dotEnv.TOKEN_SECRET);
        expect(configProblems(env).problems).toEqual([]);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    it('is left for the user to fill in .env.example, which names only variables compose reads', () => {
      const dotEnv = parseDotEnv(example);
      expect(dotEnv).toEqual({ TOKEN_SECRET: '' });
      const commented = [...example.matchAll(/^# ([A-Z_]+)=/gm)].map((match) => match[1]!);
      for (const name of [...Object.keys(dotEnv), ...commented]) {
        expect([...interpolatedVariables], name).toContain(name);
      }
      // Copied as it is, it changes nothing: the placeholder, refused.
      const env = environmentOf(compose(dotEnv).services['gateway-1']!);
      expect(configProblems(env).problems).toHaveLength(1);
    });

    it('stays out of git and out of the image build', () => {
      const ignoredBy = (file: string) =>
        read(file)
          .split('\n')
          .map((line) => line.trim());
      expect(ignoredBy('.gitignore')).toContain('.env');
      expect(ignoredBy('.gitignore')).toContain('!.env.example');
      expect(ignoredBy('.dockerignore')).toContain('.env');
    });
  });

  describe('the streaming replica and the load balancer', () => {
    const replica = services['postgres-replica']!;
    const replicaEnv = environmentOf(replica);
    const balancer = services['load-balancer']!;
    /** The file a service mounts from the repository at `target`, read. */
    const mounted = (service: Service, target: string) => {
      const volume = service.volumes?.find((entry) => entry.split(':')[1] === target);
      expect(volume, target).toBeDefined();
      const [source] = volume!.split(':');
      expect(source).toMatch(/^\.\//);
      return { file: source!, text: read(source!) };
    };
    const replicaScript = mounted(replica, (replica.entrypoint as string[])[0]!);
    const primaryInit = mounted(
      postgres,
      postgres
        .volumes!.map((entry) => entry.split(':')[1]!)
        .find((target) => target.startsWith('/docker-entrypoint-initdb.d/'))!,
    );
    const haproxy = mounted(balancer, '/usr/local/etc/haproxy/haproxy.cfg').text;

    it('gives every gateway the primary, the replica and redis, as services that exist', () => {
      for (const name of GATEWAYS) {
        const env = environmentOf(services[name]!);
        const config = loadConfig({ ...env, TOKEN_SECRET: secret });
        const hostOf = (url: string) => new URL(url).hostname;
        expect(hostOf(config.databaseUrl!), name).toBe('postgres');
        expect(config.databaseReplicaUrls.map(hostOf), name).toEqual(['postgres-replica']);
        expect(hostOf(config.redisUrl!), name).toBe('redis');
        // A physical replica has the primary's roles and databases: the same credentials.
        const primaryUrl = new URL(config.databaseUrl!);
        const replicaUrl = new URL(config.databaseReplicaUrls[0]!);
        expect(replicaUrl.port || '5432').toBe('5432');
        for (const part of ['username', 'password', 'pathname'] as const) {
          expect(replicaUrl[part], part).toBe(primaryUrl[part]);
        }
      }
    });

    it('runs the official image, and takes a base backup of the primary service with -R', () => {
      expect(replica.image).toBe(postgres.image);
      expect(replica.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
      expect(replicaEnv.PRIMARY_HOST).toBe('postgres');
      expect(replicaScript.text).toMatch(
        /pg_basebackup --host="\$PRIMARY_HOST" --username=replicator/,
      );
      expect(replicaScript.text).toContain('--write-recovery-conf');
      expect(replicaScript.text).toContain('--wal-method=stream');
      // Only into an empty data directory, then the official entrypoint with the command.
      expect(replicaScript.text).toContain('if [ ! -s "$PGDATA/PG_VERSION" ]');
      expect(replicaScript.text.trim().split('\n').at(-1)).toBe('exec docker-entrypoint.sh "$@"');
      expect(replica.command).toEqual(['postgres', '-c', 'hot_standby=on']);
      const [dataVolume] = replica.volumes!.map((entry) => entry.split(':'));
      expect(dataVolume).toEqual(['postgres-replica-data', replicaEnv.PGDATA]);
      expect(Object.keys(volumes ?? {})).toContain('postgres-replica-data');
      expectWellFormedHealthcheck(replica.healthcheck);
    });

    it('replicates with a role the primary creates, and its password on both sides', () => {
      expect(primaryInit.text).toContain('create role replicator with replication login');
      expect(primaryInit.text).toContain('host replication replicator all scram-sha-256');
      expect(postgres.command).toEqual(
        expect.arrayContaining(['wal_level=replica', 'max_wal_senders=10']),
      );
      for (const env of [{}, { REPLICATION_PASSWORD: 'another-password' }] as Env[]) {
        const { services } = compose(env);
        expect(environmentOf(services['postgres-replica']!).PGPASSWORD).toBe(
          environmentOf(services.postgres!).REPLICATION_PASSWORD,
        );
      }
    });

    it('mounts shell scripts that parse and may be executed', () => {
      for (const { file } of [replicaScript, primaryInit]) {
        const checked = spawnSync('sh', ['-n', path.join(root, file)]);
        expect(checked.status, checked.stderr.toString()).toBe(0);
        expect(statSync(path.join(root, file)).mode & 0o111, file).not.toBe(0);
      }
    });

    it('balances over both gateways, each health-checked on /readyz', () => {
      expect(balancer.image).toMatch(/^haproxy:\d+(\.\d+)*(-alpine)?$/);
      const servers = [...haproxy.matchAll(/^\s*server (\S+) (\S+):(\d+) check$/gm)];
      expect(servers.map(([, name]) => name)).toEqual(GATEWAYS);
      for (const [, , host, port] of servers) {
        expect(GATEWAYS).toContain(host);
        expect(port).toBe(environmentOf(services[host!]!).PORT);
      }
      expect(haproxy).toMatch(/^\s*option httpchk GET \/readyz$/m);
      expect(haproxy).toMatch(/^\s*http-check expect status 200$/m);
      expect(haproxy).toMatch(/^\s*bind :4000$/m);
      expect(balancer.depends_on).toEqual(
        Object.fromEntries(GATEWAYS.map((name) => [name, { condition: 'service_healthy' }])),
      );
      expectWellFormedHealthcheck(balancer.healthcheck);
      const monitor = /^\s*monitor-uri (\S+)$/m.exec(haproxy)?.[1];
      expect((balancer.healthcheck!.test as string[]).join(' ')).toContain(
        `http://127.0.0.1:4000${monitor}`,
      );
    });

    describe('timed with the gateway', () => {
      const config = loadConfig({ ...gatewayEnv, TOKEN_SECRET: secret });

      it('takes a stopping gateway out within its shutdown grace, a second to spare', () => {
        expect(haproxy).toMatch(/^\s*option httpchk GET \/readyz$/m);
        const outWithin = outOfServiceWithinMs(checkTimings(haproxy));
        expect(outWithin + 1000).toBeLessThanOrEqual(config.shutdownGraceSeconds * 1000);
      });

      it("sends a request a stopped gateway refused to the other, and never reuses a gateway's idle connection", () => {
        expect(Number(/^\s*retries (\d+)$/m.exec(haproxy)?.[1])).toBeGreaterThanOrEqual(1);
        expect(haproxy).toMatch(/^\s*option redispatch 1$/m);
        expect(haproxy).toMatch(/^\s*option http-server-close$/m);
        // Only requests that could not be sent are retried: a feed upload is not idempotent.
        expect(haproxy).not.toMatch(/^\s*retry-on /m);
      });

      it('keeps SSE streams and WebSockets open between their keep-alives', () => {
        // An SSE stream sends a comment every 12 s (graphql-yoga's interval).
        expect(timeoutMs(haproxy, 'server')).toBeGreaterThanOrEqual(2 * 12_000);
        expect(timeoutMs(haproxy, 'server')).toBeGreaterThan(config.requestTimeoutMs);
        expect(timeoutMs(haproxy, 'tunnel')).toBeGreaterThanOrEqual(
          2 * config.liveKeepAliveSeconds * 1000,
        );
      });

      it('lets a gateway finish its grace and its drain before Docker kills it', () => {
        const shutdownMs = (config.shutdownGraceSeconds + config.shutdownDrainSeconds) * 1000;
        expect(durationOf(gateway.stop_grace_period ?? '10s')).toBeGreaterThan(shutdownMs);
      });
    });

    it('trusts the balancer, on the private network, for the client address', () => {
      expect(loadConfig({ ...gatewayEnv, TOKEN_SECRET: secret }).trustProxy).toEqual([
        'uniquelocal',
      ]);
      expect(haproxy).toMatch(/^\s*option forwardfor$/m);
    });
  });

  it('publishes only the load balancer on 4000, and postgres on the loopback interface', () => {
    expect(services['load-balancer']!.ports).toEqual(['4000:4000']);
    for (const name of [...GATEWAYS, 'postgres-replica', 'redis']) {
      expect(services[name]!.ports, name).toBeUndefined();
    }
    expect(gatewayEnv.PORT).toBe('4000');
    for (const port of postgres.ports ?? [])
      expect(String(port)).toMatch(/^127\.0\.0\.1:\d+:5432$/);
  });

  it('restarts every service unless stopped', () => {
    for (const [name, service] of Object.entries(services)) {
      expect(service.restart, name).toBe('unless-stopped');
    }
  });

  describe('the gateway healthcheck', () => {
    let status = 200;
    let server: Server;
    let port: number;
    beforeAll(async () => {
      server = createServer((request, response) => {
        response.statusCode = request.url === '/readyz' ? status : 404;
        response.end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      port = (server.address() as AddressInfo).port;
    });
    afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

    /** Runs the healthcheck's command, aimed at the stub server instead of port 4000. */
    function runHealthcheck(targetPort: number): Promise<number | null> {
      const [, executable, ...args] = gateway.healthcheck!.test as string[];
      const retargeted = args.map((arg) => arg.replace(':4000/', `:${targetPort}/`));
      expect(retargeted).not.toEqual(args);
      return new Promise((resolve, reject) => {
        const child = spawn(executable === 'node' ? process.execPath : executable!, retargeted, {
          stdio: 'ignore',
        });
        child.on('error', reject);
        child.on('exit', (code) => resolve(code));
      });
    }

    it('is well formed and asks /readyz on port 4000 with node (the image has no curl)', () => {
      expectWellFormedHealthcheck(gateway.healthcheck);
      const test = gateway.healthcheck!.test as string[];
      expect(test.slice(0, 2)).toEqual(['CMD', 'node']);
      expect(test.join(' ')).toMatch(/http:\/\/(localhost|127\.0\.0\.1):4000\/readyz/);
    });

    it('passes on 200, fails on 503 and when nothing listens', async () => {
      status = 200;
      expect(await runHealthcheck(port)).toBe(0);
      status = 503;
      expect(await runHealthcheck(port)).toBe(1);
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise<void>((resolve) => closed.close(() => resolve()));
      expect(await runHealthcheck(closedPort)).toBe(1);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Dockerfile

interface Instruction {
  keyword: string;
  args: string;
  stage: number;
}

/** Instructions in order, continuation lines joined, comments dropped, with their stage. */
function dockerfileInstructions(source: string): Instruction[] {
  const logical = source
    .split('\n')
    .filter((line) => !/^\s*#/.test(line))
    .join('\n')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  let stage = -1;
  return logical.map((line) => {
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    if (keyword.toUpperCase() === 'FROM') stage += 1;
    return { keyword: keyword.toUpperCase(), args, stage };
  });
}

/** The file names a COPY takes from the build context (none for `COPY --from=stage`). */
function copiedSources(instruction: Instruction): string[] {
  const words = instruction.args.split(/\s+/);
  if (words.some((word) => word.startsWith('--from='))) return [];
  const paths = words.filter((word) => !word.startsWith('--'));
  return paths.slice(0, -1);
}

/** Module specifiers a file loads at run time (`import type` is erased, so left out). */
function runtimeSpecifiers(file: string): string[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest);
  const specifiers: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isImportDeclaration(node) && !node.importClause?.isTypeOnly) {
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && !node.isTypeOnly) {
      specifiers.push((node.moduleSpecifier as ts.StringLiteral).text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      specifiers.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return specifiers;
}

/** The file a relative specifier names, as Node's resolution with tsx would find it. */
function resolveRelative(from: string, specifier: string): string {
  const base = path.resolve(path.dirname(from), specifier);
  const candidate = [base, `${base}.ts`, path.join(base, 'index.ts')].find(
    (file) => existsSync(file) && !statSync(file).isDirectory(),
  );
  if (candidate === undefined) throw new Error(`${from} imports ${specifier}: not found`);
  return candidate;
}

/** Every project file and every package the service loads, starting from its entry file. */
function runtimeClosure(entry: string): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const queue = [path.join(root, entry)];
  while (queue.length > 0) {
    const file = queue.pop()!;
    if (files.has(file)) continue;
    files.add(file);
    if (!/\.[cm]?[jt]s$/.test(file)) continue;
    for (const specifier of runtimeSpecifiers(file)) {
      if (specifier.startsWith('.')) {
        queue.push(resolveRelative(file, specifier));
      } else if (!specifier.startsWith('node:') && !builtinModules.includes(specifier)) {
        const [scope, name] = specifier.split('/');
        packages.add(scope!.startsWith('@') ? `${scope}/${name}` : scope!);
      }
    }
  }
  return { files, packages };
}

describe('Dockerfile', () => {
  const instructions = dockerfileInstructions(read('Dockerfile'));
  const finalStage = Math.max(...instructions.map((instruction) => instruction.stage));
  const final = instructions.filter((instruction) => instruction.stage === finalStage);
  const last = (keyword: string) => final.filter((i) => i.keyword === keyword).at(-1)?.args;
  const copies = instructions.filter((instruction) => instruction.keyword === 'COPY');
  const copied = copies.flatMap(copiedSources);
  const packageJson = JSON.parse(read('package.json')) as {
    dependencies: Record<string, string>;
    scripts: Record<string, string>;
  };

  it('builds every stage on Node 20 slim', () => {
    const bases = instructions.filter((i) => i.keyword === 'FROM').map((i) => i.args);
    expect(bases.length).toBeGreaterThan(0);
    for (const base of bases) expect(base).toMatch(/^node:20[\w.-]*-slim\b/);
  });

  it('installs from the lockfile, and keeps production dependencies only', () => {
    const runs = instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
    expect(runs.some((run) => /\bnpm ci\b/.test(run))).toBe(true);
    expect(runs.some((run) => /\bnpm prune --omit=dev\b/.test(run))).toBe(true);
  });

  it('runs the production bundle as node directly, as a non-root user, on port 4000', () => {
    const cmd = JSON.parse(last('CMD') ?? 'null') as string[];
    const bundle = 'dist/server/main.mjs';
    expect(cmd).toEqual(['node', bundle, 'serve']);
    // The bundle is what `npm run build` writes from src/main.ts, built in an earlier stage.
    const build = packageJson.scripts.build;
    expect(build).toMatch(/^esbuild src\/main\.ts --bundle /);
    // src/main.ts becomes dist/server/main.mjs; what it imports only on demand (seeding, say)
    // goes to chunks beside it, which the image copies along with the rest of dist/.
    for (const option of [
      '--outdir=dist/server',
      '--entry-names=[name]',
      '--out-extension:.js=.mjs',
    ]) {
      expect(build).toContain(option);
    }
    const buildStage = instructions.filter((i) => i.stage < finalStage);
    expect(buildStage.some((i) => i.keyword === 'RUN' && /\bnpm run build\b/.test(i.args))).toBe(
      true,
    );
    expect(final.some((i) => i.keyword === 'COPY' && /--from=\S+ \/app\/dist /.test(i.args))).toBe(
      true,
    );
    expect(last('USER')).toMatch(/^(?!root$|0$)\S+$/);
    expect(last('EXPOSE')).toBe('4000');
    expect(last('WORKDIR')).toBe('/app');
  });

  it('copies paths that exist and that .dockerignore does not exclude', () => {
    const ignored = read('.dockerignore')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#'));
    expect(ignored).toEqual(expect.arrayContaining(['.git', 'node_modules', 'data']));
    expect(copied.length).toBeGreaterThan(0);
    for (const source of copied) {
      expect(existsSync(path.join(root, source)), source).toBe(true);
      const topLevel = source.replace(/^\.\//, '').split('/')[0];
      expect(ignored, source).not.toContain(topLevel);
    }
  });

  it('copies every file the service loads, and installs every package it imports', () => {
    const { files, packages } = runtimeClosure('src/main.ts');
    const inImage = (file: string) =>
      copied.some((source) => {
        const relative = path.relative(path.join(root, source), file);
        return relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative));
      });
    for (const file of files) expect(inImage(file), path.relative(root, file)).toBe(true);
    expect(inImage(path.join(root, 'tsconfig.json'))).toBe(true);
    expect(inImage(path.join(root, 'package-lock.json'))).toBe(true);
    expect(packages.size).toBeGreaterThan(0);
    for (const name of packages) expect(Object.keys(packageJson.dependencies)).toContain(name);
  });
});

// ---------------------------------------------------------------------------------------------
// README

describe('README', () => {
  it('documents every variable the gateway reads', () => {
    const readme = read('README.md');
    for (const name of variablesReadByConfig()) {
      expect(readme, name).toContain(`\`${name}\``);
    }
  });
});
