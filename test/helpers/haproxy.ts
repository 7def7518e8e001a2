/**
 * HAProxy as the project ships it (deploy/haproxy/haproxy.cfg, the load balancer of
 * docker-compose.yml): its health-check timings read from the file, and the file itself run
 * by a real `haproxy` (Debian's package) with only its addresses changed, so that a test
 * checks what ships.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { requirePrerequisite } from './prerequisites.ts';
import { root, startProcess, type StartedProcess } from './process.ts';

export const SHIPPED_CONFIG = path.join(root, 'deploy/haproxy/haproxy.cfg');
const BINARY = '/usr/sbin/haproxy';

export function shippedConfig(): string {
  return readFileSync(SHIPPED_CONFIG, 'utf8');
}

/** An HAProxy time (`500ms`, `2s`, `1h`; milliseconds without a unit) in milliseconds. */
export function durationMs(value: string): number {
  const [, amount, unit = 'ms'] = /^(\d+(?:\.\d+)?)(us|ms|s|m|h|d)?$/.exec(value) ?? [];
  if (amount === undefined) throw new Error(`not an HAProxy time: ${value}`);
  const perUnit = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };
  return Number(amount) * perUnit[unit as keyof typeof perUnit];
}

/** The value of `timeout <name>` in the config, in milliseconds. */
export function timeoutMs(config: string, name: string): number {
  const value = new RegExp(`^\\s*timeout ${name} (\\S+)$`, 'm').exec(config)?.[1];
  if (value === undefined) throw new Error(`no "timeout ${name}" in the HAProxy config`);
  return durationMs(value);
}

export interface CheckTimings {
  interMs: number;
  fastInterMs: number;
  fall: number;
  rise: number;
  /** How long one check may take before it counts as failed. */
  checkTimeoutMs: number;
}

/** The health-check timings the `default-server` line and `timeout check` set. */
export function checkTimings(config: string): CheckTimings {
  const line = /^\s*default-server (.+)$/m.exec(config)?.[1] ?? '';
  const option = (name: string) => {
    const value = new RegExp(`(?:^| )${name} (\\S+)`).exec(line)?.[1];
    if (value === undefined) throw new Error(`no ${name} on the default-server line`);
    return value;
  };
  const interMs = durationMs(option('inter'));
  return {
    interMs,
    fastInterMs: durationMs(option('fastinter')),
    fall: Number(option('fall')),
    rise: Number(option('rise')),
    // Without `timeout check`, `inter` bounds a whole check.
    checkTimeoutMs: /^\s*timeout check /m.test(config) ? timeoutMs(config, 'check') : interMs,
  };
}

/**
 * The longest a server that starts failing its checks stays in service: the wait for the next
 * check, then `fall` failed checks, each taking up to the check timeout, `fastinter` apart.
 */
export function outOfServiceWithinMs(timings: CheckTimings): number {
  const { interMs, fastInterMs, fall, checkTimeoutMs } = timings;
  return interMs + fastInterMs * (fall - 1) + fall * checkTimeoutMs;
}

/**
 * The shipped config with its frontend bound to `bind` and each server at the address given
 * for its name; every other line as it ships.
 */
export function configFor(bind: string, servers: Record<string, string>): string {
  let bound = 0;
  const placed = new Set<string>();
  const config = shippedConfig()
    .replace(/^(\s*bind )\S+$/gm, (_line, prefix: string) => {
      bound++;
      return `${prefix}${bind}`;
    })
    .replace(/^(\s*server (\S+) )\S+( .*)$/gm, (line, prefix: string, name: string, rest) => {
      const address = servers[name];
      if (address === undefined) return line;
      placed.add(name);
      return `${prefix}${address}${rest as string}`;
    });
  if (bound !== 1) throw new Error(`expected one bind line in ${SHIPPED_CONFIG}, found ${bound}`);
  const missing = Object.keys(servers).filter((name) => !placed.has(name));
  if (missing.length > 0) throw new Error(`no server ${missing.join(', ')} in ${SHIPPED_CONFIG}`);
  return config;
}

export interface RunningHaproxy {
  process: StartedProcess;
  /** Stops it and removes its config file. */
  stop(): Promise<void>;
}

/** Runs HAProxy in the foreground on `config`, logging to its stdout. */
export function startHaproxy(config: string): RunningHaproxy {
  requirePrerequisite(
    existsSync(BINARY),
    `the load balancer tests run HAProxy: apt-get install haproxy (${BINARY})`,
  );
  const directory = mkdtempSync(path.join(tmpdir(), 'haproxy-'));
  const file = path.join(directory, 'haproxy.cfg');
  writeFileSync(file, config);
  const started = startProcess(BINARY, ['-f', file, '-db'], process.env);
  return {
    process: started,
    async stop() {
      await started.kill();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
