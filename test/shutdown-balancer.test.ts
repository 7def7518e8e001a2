/**
 * The shipped load balancer in front of two gateways, as real processes: HAProxy
 * (deploy/haproxy/haproxy.cfg, only its addresses changed) health-checking two `serve`
 * processes with the shipped shutdown grace, clients sending through HAProxy (keep-alive and a
 * connection per request, small and large pages), and SIGTERM to one gateway mid-load. Not one
 * request fails: HAProxy takes the gateway out within its grace, during which it still serves,
 * and sends everything to the other; the stopped gateway exits 0. The counts are printed.
 */
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { databaseKind } from './helpers/database.ts';
import {
  EXIT_PATIENCE_MS,
  isComplete,
  seededDatabase,
  send,
  sleep,
  startGateway,
  TEST_TIMEOUT_MS,
  type Answer,
  type GatewayProcess,
  type SeededDatabase,
} from './helpers/gateway-process.ts';
import { configFor, startHaproxy, type RunningHaproxy } from './helpers/haproxy.ts';
import { freePort, untilOutput } from './helpers/process.ts';

/** Clients of each kind, each pausing between two requests: a steady load both can carry. */
const LOAD = { clients: databaseKind === 'postgres' ? 4 : 3, pauseMs: 100 };
const PATHS = [
  '/products?market=se&limit=5',
  '/v1/products?market=se&limit=100',
  '/suggestions?market=se',
];
/** How long the load runs before the signal, and on after the stopped gateway has exited. */
const STEADY_MS = 2000;
const SERVERS = ['gateway-1', 'gateway-2'] as const;

interface Outcome {
  answer?: Answer;
  error?: string;
}

/** Waits until `condition` holds, polling. */
async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + EXIT_PATIENCE_MS;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${EXIT_PATIENCE_MS} ms: ${what}`);
    await sleep(50);
  }
}

/** Clients of both kinds sending through `base` until `stop()`; every request's outcome. */
function startLoad(base: string) {
  const keepAlive = new Agent({ keepAlive: true, maxSockets: LOAD.clients });
  const outcomes: Outcome[] = [];
  let loading = true;
  const client = async (agent: Agent | false, index: number) => {
    for (let turn = index; loading; turn++) {
      const outcome: Outcome = {};
      try {
        outcome.answer = await send(base, PATHS[turn % PATHS.length]!, agent);
      } catch (error) {
        outcome.error = (error as NodeJS.ErrnoException).code ?? String(error);
      }
      outcomes.push(outcome);
      await sleep(LOAD.pauseMs);
    }
  };
  const clients = [keepAlive, false as const].flatMap((agent) =>
    Array.from({ length: LOAD.clients }, (_, index) => client(agent, index)),
  );
  return {
    outcomes,
    async stop() {
      loading = false;
      await Promise.all(clients);
      keepAlive.destroy();
    },
  };
}

/** How the requests that were not answered in full ended, by error code or status. */
function failuresOf(outcomes: Outcome[]): Record<string, number> {
  const failures: Record<string, number> = {};
  for (const { answer, error } of outcomes.filter((o) => !isComplete(o.answer))) {
    const key = error ?? `status ${answer?.status}`;
    failures[key] = (failures[key] ?? 0) + 1;
  }
  return failures;
}

describe('SIGTERM to one of two gateways behind the shipped HAProxy', () => {
  /** One database both gateways share on a server; an embedded one of its own each. */
  const databases: SeededDatabase[] = [];
  const gateways: GatewayProcess[] = [];
  let balancer: RunningHaproxy | undefined;
  let base = '';

  beforeAll(async () => {
    databases.push(await seededDatabase());
    databases.push(databaseKind === 'postgres' ? databases[0]! : await seededDatabase());
    // The grace as it ships: the HAProxy timings are matched to it.
    const grace = String(loadConfig({}).shutdownGraceSeconds);
    const ports = [await freePort(), await freePort()];
    for (const [index, database] of databases.entries()) {
      gateways.push(
        startGateway(database, { PORT: String(ports[index]), SHUTDOWN_GRACE_SECONDS: grace }),
      );
    }
    // Warmed up first: a gateway's first answers (documents compiled, statements prepared)
    // hold its loop long enough to fail a check.
    for (const [index, gateway] of gateways.entries()) {
      await gateway.port();
      for (const path of PATHS) await send(`http://127.0.0.1:${ports[index]}`, path, false);
    }
    const frontend = await freePort();
    const servers = SERVERS.map((name, index) => [name, `127.0.0.1:${ports[index]}`]);
    balancer = startHaproxy(configFor(`127.0.0.1:${frontend}`, Object.fromEntries(servers)));
    base = `http://127.0.0.1:${frontend}`;
    await until(
      () =>
        send(base, '/readyz', false).then(
          (answer) => answer.status === 200,
          () => false,
        ),
      'HAProxy answers /readyz 200',
    );
  });

  afterAll(async () => {
    await balancer?.stop();
    await Promise.all(gateways.map((gateway) => gateway.service.kill()));
    for (const database of new Set(databases)) await database.remove();
  });

  it(
    'fails no request of clients sending through HAProxy, and the gateway exits 0',
    async () => {
      const [stopped, other] = gateways as [GatewayProcess, GatewayProcess];
      const load = startLoad(base);
      await sleep(STEADY_MS);
      await until(() => load.outcomes.length >= 2 * LOAD.clients, 'the load is answered');

      const sentBeforeSignal = load.outcomes.length;
      stopped.service.child.kill('SIGTERM');
      const takenOut = untilOutput(balancer!.process, 'gateway-1 taken out', (stdout) =>
        /Server gateways\/gateway-1 is DOWN/.test(stdout) ? true : undefined,
      );
      const code = await Promise.race([
        stopped.service.exited,
        sleep(EXIT_PATIENCE_MS).then(() => 'still running'),
      ]);
      const sentUntilExit = load.outcomes.length;
      await sleep(STEADY_MS);
      await load.stop();

      const failures = failuresOf(load.outcomes);
      const log = (message: string) =>
        stopped.logLines().find((line) => line.msg === message) ?? {};
      console.info(
        `SIGTERM behind HAProxy: ${JSON.stringify({
          sent: load.outcomes.length,
          sentBeforeSignal,
          sentUntilExit: sentUntilExit - sentBeforeSignal,
          failures,
          balancer: balancer!.process
            .stdout()
            .split('\n')
            .filter((line) => /^Server |no server available/.test(line))
            .map((line) => line.split(', info')[0]),
          stoppedGateway: {
            graceMs: log('draining').graceMs,
            answeredSinceSignal: log('stopped').answeredWhileDraining,
            shutdownMs: log('stopped').ms,
            exit: code,
          },
        })}`,
      );

      expect(failures).toEqual({});
      expect(code, stopped.service.stderr()).toBe(0);
      await takenOut;
      // It served through its grace, until HAProxy had taken it out.
      expect(Number(log('stopped').answeredWhileDraining)).toBeGreaterThan(0);
      // The other served on, alone.
      expect(load.outcomes.length).toBeGreaterThan(sentUntilExit);
      expect(other.service.hasExited()).toBe(false);
    },
    TEST_TIMEOUT_MS,
  );
});
