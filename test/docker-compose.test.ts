/**
 * No Docker engine runs where these tests run, so docker-compose.yml and the Dockerfile are
 * checked by construction: the compose environment is fed to the gateway's own loadConfig,
 * the healthcheck one-liner is run against a stub server, and the files the image copies are
 * compared with what the production bundle is built from (everything `src/main.ts` loads).
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadConfig } from '../src/config.ts';

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
  build?: string | { context?: string; dockerfile?: string };
  environment?: Record<string, string | number | boolean | null> | string[];
  depends_on?: string[] | Record<string, { condition?: string }>;
  ports?: (string | number)[];
  volumes?: string[];
  healthcheck?: Healthcheck;
  restart?: string;
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

describe('docker-compose.yml', () => {
  const { services, volumes } = compose();
  const postgres = services.postgres!;
  const gateway = services.gateway!;
  const postgresEnv = environmentOf(postgres);
  const gatewayEnv = environmentOf(gateway);

  it('defines a postgres and a gateway service and a named data volume', () => {
    expect(Object.keys(services).sort()).toEqual(['gateway', 'postgres']);
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

  it('starts the gateway only once postgres is healthy', () => {
    expect(gateway.depends_on).toEqual({ postgres: { condition: 'service_healthy' } });
  });

  it('points the gateway at the postgres service with its credentials', () => {
    for (const env of [{}, { POSTGRES_PASSWORD: 'another-password' }] as Env[]) {
      const { services } = compose(env);
      const expected = environmentOf(services.postgres!);
      const url = new URL(environmentOf(services.gateway!).DATABASE_URL!);
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

    const config = loadConfig(gatewayEnv);
    expect(config).toMatchObject({
      port: 4000,
      host: '0.0.0.0',
      databaseUrl: gatewayEnv.DATABASE_URL,
      production: true,
      seedOnEmpty: true,
    });
    // A placeholder overridable from the environment, long enough for production.
    expect(rawCompose).toMatch(/TOKEN_SECRET: \$\{TOKEN_SECRET:-[^}]{32,}\}/);
    const custom = 'x'.repeat(40);
    const overridden = environmentOf(compose({ TOKEN_SECRET: custom }).services.gateway!);
    expect(loadConfig(overridden).tokenSecret).toBe(custom);
  });

  it('publishes the gateway on 4000 and postgres on the loopback interface', () => {
    expect(gateway.ports).toEqual(['4000:4000']);
    expect(gatewayEnv.PORT).toBe('4000');
    for (const port of postgres.ports ?? [])
      expect(String(port)).toMatch(/^127\.0\.0\.1:\d+:5432$/);
  });

  it('restarts both services unless stopped', () => {
    expect(postgres.restart).toBe('unless-stopped');
    expect(gateway.restart).toBe('unless-stopped');
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
    expect(build).toContain(`--outfile=${bundle}`);
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
