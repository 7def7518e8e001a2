/**
 * SIGTERM under load, on the service as a real process (`node --import tsx src/main.ts serve`)
 * on a seeded database: clients that keep their connections alive and clients that open one
 * per request, each sending small pages and pages of 100 products with every field.
 *
 * At a steady rate, with large pages sent just before the signal: /readyz answers 503
 * `draining` at once, over a connection opened before the signal; for the grace the service
 * still accepts and answers (a connection made then is answered), and only then drains; every
 * request written before the drain began is answered in full; once the service has stopped
 * accepting, new connections are refused (as they should be); it exits 0. Overloaded (more
 * clients than it answers promptly, who stop sending once the drain begins, as a load
 * balancer that has taken the process out does): not one request is reset, each is answered
 * in full, or refused when sent after the drain began. Connections accepted before the signal
 * whose requests arrive only after it are answered too; SIGINT skips the grace; and when the
 * drain time runs out, the process says what was left and exits 1. The counts are printed.
 */
import { once } from 'node:events';
import { Agent } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { databaseKind } from './helpers/database.ts';
import {
  EXIT_PATIENCE_MS,
  isComplete,
  seededServerDatabase,
  send,
  sleep,
  useSeededDatabase,
  withGateway,
  TEST_TIMEOUT_MS,
  type Answer,
  type GatewayProcess,
} from './helpers/gateway-process.ts';

/**
 * Clients of each kind, each sending one request after another with a pause: on a server
 * about 100 requests a second, as in the probes of issue 11. The embedded database runs its
 * statements on the service's own thread, far slower on a busy machine: a rate it keeps up
 * with (past it, new connections wait in the kernel's queue, and those still there when the
 * listener closes are reset, as they must be).
 */
const LOAD =
  databaseKind === 'postgres'
    ? { clients: 8, pauseMs: { 'keep-alive': 100, 'connection per request': 100 } }
    : { clients: 6, pauseMs: { 'keep-alive': 150, 'connection per request': 300 } };
/**
 * Clients of each kind sending large pages with no pause: far more than the service answers
 * promptly, so that requests wait for it and connections wait in the kernel's queue; fewer
 * on the embedded database, which answers far slower.
 */
const OVERLOAD = { onServer: 24, embedded: 12 };
/** A page of 100 products with every field, their offers too: a slow one. */
const LARGE_PAGE = '/v1/products?market=se&limit=100';
/** Small pages, and the large one. */
const PATHS = ['/products?market=se&limit=5', LARGE_PAGE, '/suggestions?market=se'];
/** Large pages sent by each kind of client just before the signal, so some are under way. */
const BURST = 3;
/** How long the load runs before the signal: long enough to be steady. */
const LOAD_BEFORE_SIGNAL_MS = 2000;
/** The grace the tests give: shorter than the shipped one, long enough to send through. */
const GRACE_SECONDS = 2;

const KINDS = ['keep-alive', 'connection per request'] as const;
type ClientKind = (typeof KINDS)[number];

/** One request of the load: its answer, or the code its connection failed with. */
interface Outcome {
  kind: ClientKind;
  sentAt: number;
  /** When the request had been written whole (Date.now(), to compare with log lines). */
  writtenAt?: number;
  endedAt: number;
  answer?: Answer;
  error?: string;
}

/**
 * Clients sending requests one after another, each as long as `sending()` says, pausing
 * `pauseMs` between two; `outcomes` collects every request's end. `done` settles when all
 * have stopped.
 */
function startLoad(
  base: string,
  options: {
    clients: number;
    paths: readonly string[];
    pauseMs: Record<ClientKind, number>;
    sending: () => boolean;
  },
) {
  const keepAlive = new Agent({ keepAlive: true, maxSockets: options.clients });
  const outcomes: Outcome[] = [];
  const client = async (kind: ClientKind, index: number) => {
    const agent = kind === 'keep-alive' ? keepAlive : false;
    for (let turn = index; options.sending(); turn++) {
      const outcome: Outcome = { kind, sentAt: performance.now(), endedAt: 0 };
      const path = options.paths[turn % options.paths.length]!;
      try {
        outcome.answer = await send(base, path, agent, () => (outcome.writtenAt = Date.now()));
      } catch (error) {
        outcome.error = (error as NodeJS.ErrnoException).code ?? String(error);
      }
      outcome.endedAt = performance.now();
      outcomes.push(outcome);
      await sleep(options.pauseMs[kind]);
    }
  };
  const clients = KINDS.flatMap((kind) =>
    Array.from({ length: options.clients }, (_, index) => client(kind, index)),
  );
  return {
    keepAlive,
    outcomes,
    done: Promise.all(clients).then(() => keepAlive.destroy()),
  };
}

/**
 * A connection opened now whose request is written later, perhaps in parts: a client the
 * server has accepted but not yet read a request from.
 */
async function rawConnection(port: number) {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let received = '';
  socket.setEncoding('utf8').on('data', (chunk: string) => (received += chunk));
  const closed = new Promise<void>((resolve, reject) => {
    socket.once('close', () => resolve());
    socket.once('error', reject);
  });
  closed.catch(() => undefined);
  return {
    write: (text: string) => socket.write(text),
    /** The answer, once the server has closed the connection after it. */
    async answer(): Promise<Answer> {
      await closed;
      const [head = '', ...body] = received.split('\r\n\r\n');
      const [statusLine = '', ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(
        fields.map((field) => {
          const colon = field.indexOf(':');
          return [field.slice(0, colon).toLowerCase(), field.slice(colon + 1).trim()];
        }),
      );
      const status = Number(statusLine.split(' ')[1]);
      return { status, headers, body: body.join('\r\n\r\n'), reusedSocket: false };
    },
  };
}

/** Requests sent, answered in full, and how the others ended, by kind of client. */
function tally(outcomes: Outcome[]) {
  return Object.fromEntries(
    KINDS.map((kind) => {
      const ofKind = outcomes.filter((o) => o.kind === kind);
      const failures: Record<string, number> = {};
      for (const { answer, error } of ofKind.filter((o) => !isComplete(o.answer))) {
        const key = error ?? `status ${answer?.status}`;
        failures[key] = (failures[key] ?? 0) + 1;
      }
      const complete = ofKind.filter((o) => isComplete(o.answer)).length;
      return [kind, { sent: ofKind.length, complete, failures }];
    }),
  );
}

/** The middle time from sending to the end, in milliseconds. */
function medianMs(outcomes: Outcome[]): number {
  const times = outcomes.map((o) => o.endedAt - o.sentAt).sort((a, b) => a - b);
  return Math.round(times[times.length >> 1] ?? 0);
}

/** Written before the drain began: accepted or queued by then, so it must be answered. */
const writtenBefore = (at: number) => (o: Outcome) => o.writtenAt !== undefined && o.writtenAt < at;

/**
 * Clients sending large pages with no pause through the grace, stopping once the drain has
 * begun, as a load balancer that has taken the process out does; then what became of each
 * request, and of the process.
 */
async function overloadedShutdown(gateway: GatewayProcess, clients: number) {
  const { service, logged, linesOf } = gateway;
  const base = `http://127.0.0.1:${await gateway.port()}`;
  let drainSeen = false;
  const load = startLoad(base, {
    clients,
    paths: [LARGE_PAGE],
    pauseMs: { 'keep-alive': 0, 'connection per request': 0 },
    sending: () => !drainSeen,
  });
  await sleep(LOAD_BEFORE_SIGNAL_MS);
  const signalledAt = performance.now();
  service.child.kill('SIGTERM');
  const draining = await logged('draining');
  drainSeen = true;
  const code = await Promise.race([
    service.exited,
    sleep(EXIT_PATIENCE_MS).then(() => 'still running'),
  ]);
  await load.done;

  const drainBegan = Number(draining.time);
  const beforeSignal = load.outcomes.filter((o) => o.sentAt < signalledAt);
  const before = load.outcomes.filter(writtenBefore(drainBegan));
  const after = load.outcomes.filter((o) => !writtenBefore(drainBegan)(o));
  const sum = (message: string, field: string) =>
    linesOf(message).reduce((total, line) => total + Number(line[field] ?? 0), 0);
  // Requests waiting at the drain: under way, or on connections accepted only during it.
  const waitingAtDrain =
    sum('draining', 'requestsInFlight') +
    sum('stopped accepting connections', 'acceptedWhileDraining');
  console.info(
    `shutdown overloaded: ${JSON.stringify({
      clients: 2 * clients,
      medianMsBeforeSignal: medianMs(beforeSignal.filter((o) => o.answer)),
      waitingAtDrain,
      listener: linesOf('stopped accepting connections').map(
        ({ queuedAtDrain, acceptedWhileDraining }) => ({ queuedAtDrain, acceptedWhileDraining }),
      ),
      sentBeforeSignal: tally(beforeSignal),
      writtenBeforeDrain: tally(before),
      afterDrainBegan: tally(after),
      answeredSinceSignal: sum('stopped', 'answeredWhileDraining'),
      exit: code,
    })}`,
  );

  expect(code, service.stderr()).toBe(0);
  // The premise: the service was behind, at least as many requests waiting for it at the drain
  // as one kind of client sends at once.
  expect(waitingAtDrain).toBeGreaterThanOrEqual(clients);
  const failed = before.filter((o) => !isComplete(o.answer));
  expect(failed.map((o) => o.error ?? o.answer?.status)).toEqual([]);
  // Sent in the moment before the clients heard of the drain: answered, or refused by a closed
  // listener; never reset.
  for (const { answer, error } of after) {
    if (answer) expect(isComplete(answer)).toBe(true);
    else expect(error).toBe('ECONNREFUSED');
  }
}

describe('SIGTERM under load', () => {
  const database = useSeededDatabase();

  it(
    'serves through the grace with /readyz 503, answers every request written before the drain, then exits 0',
    () =>
      withGateway(
        database(),
        { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS) },
        async (gateway) => {
          const { service, logLines, logged } = gateway;
          const base = `http://127.0.0.1:${await gateway.port()}`;
          // The load balancer's connection: opened before the signal, asked again after it.
          const probes = new Agent({ keepAlive: true, maxSockets: 1 });
          expect((await send(base, '/readyz', probes)).status).toBe(200);

          let loading = true;
          const load = startLoad(base, {
            clients: LOAD.clients,
            paths: PATHS,
            pauseMs: LOAD.pauseMs,
            sending: () => loading,
          });

          await sleep(LOAD_BEFORE_SIGNAL_MS);
          const burst = KINDS.flatMap((kind) =>
            Array.from({ length: BURST }, () => {
              const agent = kind === 'keep-alive' ? load.keepAlive : false;
              let written: () => void = () => undefined;
              const sent = new Promise<void>((resolve) => (written = resolve));
              const answered = send(base, LARGE_PAGE, agent, written).then(
                (answer) => ({ answer, error: undefined }),
                (error: NodeJS.ErrnoException) => ({
                  answer: undefined,
                  error: error.code ?? String(error),
                }),
              );
              return { sent, answered };
            }),
          );
          await Promise.all(burst.map(({ sent }) => sent));

          const signalledAt = performance.now();
          service.child.kill('SIGTERM');
          const shuttingDown = await logged('shutting down');
          const readiness = await send(base, '/readyz', probes);
          // Still accepting: a connection made during the grace is answered.
          const duringGrace = await send(base, PATHS[0]!, false).catch((error: Error) => error);
          const draining = await logged('draining');
          await logged('stopped accepting connections');
          const newConnection = await send(base, '/healthz', false).then(
            (answer) => `answered ${answer.status}`,
            (error: NodeJS.ErrnoException) => error.code,
          );
          const burstOutcomes = await Promise.all(burst.map(({ answered }) => answered));

          const code = await Promise.race([
            service.exited,
            sleep(EXIT_PATIENCE_MS).then(() => 'still running'),
          ]);
          loading = false;
          await load.done;
          probes.destroy();

          const drainBegan = Number(draining.time);
          const before = load.outcomes.filter(writtenBefore(drainBegan));
          const after = load.outcomes.filter((o) => !writtenBefore(drainBegan)(o));
          const stopped = logLines().find((line) => line.msg === 'stopped');
          console.info(
            `shutdown under load: ${JSON.stringify({
              burstBeforeSignal: {
                sent: burstOutcomes.length,
                complete: burstOutcomes.filter((o) => isComplete(o.answer)).length,
              },
              sentBeforeSignal: tally(load.outcomes.filter((o) => o.sentAt < signalledAt)),
              writtenBeforeDrain: tally(before),
              afterDrainBegan: tally(after),
              answeredWhileDraining: stopped?.answeredWhileDraining,
              graceMs: draining.graceMs,
              shutdownMs: stopped?.ms,
              exit: code,
            })}`,
          );

          expect(code, service.stderr()).toBe(0);
          expect(logLines().map((line) => line.msg)).toEqual(
            expect.arrayContaining(['shutting down', 'draining', 'stopped']),
          );
          expect({
            status: readiness.status,
            body: JSON.parse(readiness.body) as unknown,
            connection: readiness.headers.connection,
            reusedSocket: readiness.reusedSocket,
          }).toEqual({
            status: 503,
            body: { status: 'draining' },
            connection: 'close',
            reusedSocket: true,
          });
          expect(isComplete(duringGrace as Answer), String(duringGrace)).toBe(true);
          // The grace is the feature: the drain waits for it.
          expect(drainBegan - Number(shuttingDown.time)).toBeGreaterThanOrEqual(
            GRACE_SECONDS * 1000,
          );
          // Not accepted: refused by the kernel, as a rule; or reset, when it reached the kernel's
          // queue between the line this test waits for and the listener's close right after it.
          // Either way the service answered no new connection.
          expect(['ECONNREFUSED', 'ECONNRESET']).toContain(newConnection);
          expect(burstOutcomes.filter((o) => !isComplete(o.answer))).toEqual([]);

          for (const kind of KINDS) {
            const failed = before.filter((o) => o.kind === kind && !isComplete(o.answer));
            expect(
              failed.map((o) => o.error ?? o.answer?.status),
              kind,
            ).toEqual([]);
          }
          // Sent once the drain had begun, by clients that nothing stopped: answered in full, or
          // refused (the listener is closed) or its connection closed; never an answer cut short.
          for (const { answer, error } of after) {
            if (answer) expect(isComplete(answer)).toBe(true);
            else expect(error).toMatch(/^(ECONNREFUSED|ECONNRESET|Error: socket hang up)$/);
          }
        },
      ),
    TEST_TIMEOUT_MS,
  );

  /**
   * With WORKERS=2 the cluster's primary accepts the connections and hands them to the workers
   * one at a time, out of the kernel's count: a worker cannot see how many still wait for it.
   */
  for (const workers of [1, 2]) {
    it(
      `overloaded, WORKERS=${workers}: resets no request, answering each in full or refusing it once the drain began`,
      async () => {
        const onItsOwn = workers > 1 ? await seededServerDatabase() : undefined;
        try {
          const env = { SHUTDOWN_GRACE_SECONDS: String(GRACE_SECONDS), WORKERS: String(workers) };
          const onServer = databaseKind === 'postgres' || onItsOwn !== undefined;
          const clients = onServer ? OVERLOAD.onServer : OVERLOAD.embedded;
          await withGateway(onItsOwn ?? database(), env, (gateway) =>
            overloadedShutdown(gateway, clients),
          );
        } finally {
          await onItsOwn?.remove();
        }
      },
      TEST_TIMEOUT_MS,
    );
  }

  it(
    'answers connections made before the signal whose requests arrive after it (SIGINT: no grace)',
    () =>
      withGateway(database(), { SHUTDOWN_GRACE_SECONDS: '30' }, async (gateway) => {
        const { service, logged } = gateway;
        const port = await gateway.port();
        const base = `http://127.0.0.1:${port}`;
        // A keep-alive connection between two requests, one with nothing written yet, and one
        // with half a request line. The kernel hands connections over in order, so once a
        // later one has been answered, the server has accepted them all.
        const keptAlive = new Agent({ keepAlive: true, maxSockets: 1 });
        expect((await send(base, PATHS[0]!, keptAlive)).status).toBe(200);
        const silent = await rawConnection(port);
        const halfWritten = await rawConnection(port);
        halfWritten.write('GET /products?market=se&li');
        await send(base, '/healthz', false);

        // An operator at a terminal: the drain begins at once, whatever the grace.
        service.child.kill('SIGINT');
        expect(await logged('shutting down')).toMatchObject({ signal: 'SIGINT', graceSeconds: 0 });
        // With nobody else connecting, the service soon stops accepting; connections made
        // before have a moment longer to send their requests.
        await logged('stopped accepting connections');
        silent.write(`GET ${LARGE_PAGE} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
        halfWritten.write('mit=5 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        const second = await send(base, PATHS[0]!, keptAlive).catch((error: Error) => error);
        keptAlive.destroy();

        expect(second).toMatchObject({ reusedSocket: true });
        for (const answer of [
          second as Answer,
          await silent.answer(),
          await halfWritten.answer(),
        ]) {
          expect(isComplete(answer), `${answer.status} ${answer.body.slice(0, 200)}`).toBe(true);
          expect(answer.headers.connection).toBe('close');
        }
        expect(await service.exited).toBe(0);
      }),
    TEST_TIMEOUT_MS,
  );

  it(
    'cuts the grace short on a second signal',
    () =>
      withGateway(database(), { SHUTDOWN_GRACE_SECONDS: '600' }, async (gateway) => {
        const { service, logged } = gateway;
        await gateway.port();
        service.child.kill('SIGTERM');
        expect(await logged('shutting down')).toMatchObject({
          signal: 'SIGTERM',
          graceSeconds: 600,
        });
        service.child.kill('SIGTERM');
        await logged('draining');
        expect(await service.exited).toBe(0);
      }),
    TEST_TIMEOUT_MS,
  );

  it(
    'exits 1 when the drain time runs out, naming what was still in flight',
    () =>
      withGateway(database(), { SHUTDOWN_DRAIN_SECONDS: '2' }, async (gateway) => {
        const { service, logLines } = gateway;
        const port = await gateway.port();
        // A request whose body never arrives whole: under way until the drain gives up on it.
        const stalled = await rawConnection(port);
        stalled.write(
          'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n' +
            'Content-Length: 100\r\n\r\n{"query":',
        );
        // Once a later request is answered, the server has read the stalled one's headers.
        await send(`http://127.0.0.1:${port}`, '/healthz', false);
        service.child.kill('SIGTERM');
        expect(await service.exited).toBe(1);
        const ranOut = logLines().find((line) => String(line.msg).startsWith('drain time'));
        expect(ranOut).toMatchObject({
          msg: 'drain time of 2 s ran out; exiting',
          waitingFor: 'requests in flight',
          inFlight: [{ method: 'POST', path: '/graphql', ms: expect.any(Number) }],
        });
      }),
    TEST_TIMEOUT_MS,
  );
});
