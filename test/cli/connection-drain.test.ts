/**
 * The drain on a real listening socket whose event loop is busy, the way the embedded
 * database keeps it: turns of the loop longer than the drain's quiet moment, each accepting
 * one connection (libuv#3696). The clients run in a process of their own, so that their
 * connections are made and their requests written while this process's loop is held. Every
 * connection the kernel completed before the drain began is answered in full; and a
 * connection accepted early in a turn that outlasts the idle grace is not closed as idle
 * before the loop has had a turn to read the request its client sent.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startNode, untilOutput, type StartedProcess } from '../helpers/process.ts';
import { trackedServer } from '../helpers/tracked-server.ts';

/** Longer than the drain's quiet moment (100 ms): a turn of a busy loop. */
const BUSY_TURN_MS = 150;
/** Longer than the grace an idle connection gets (1 s). */
const LONG_TURN_MS = 1200;
/** How long the listener may stay open while clients keep connecting. */
const LISTENER_OPEN_MAX_MS = 3000;
/** How long the first request holds the loop: the other clients connect meanwhile. */
const HOLD_MS = 1000;
/** When the other clients connect, after the first request is written. */
const FOLLOWERS_AFTER_MS = 100;

/** Holds the thread, as a statement of the embedded database does. */
function busyFor(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

interface ClientResult {
  status?: number;
  body?: string;
  complete?: boolean;
  error?: string;
  /** When its request was written whole (Date.now() in the client process). */
  writtenAt?: number;
}

/**
 * A client process: sends GET /0 on a connection of its own, then, `FOLLOWERS_AFTER_MS` after
 * it is written, GET /1 … /followers at once, a connection each; prints one JSON line with
 * each request's status, body and when it was written, or the code its connection failed with.
 */
const CLIENTS = `
const http = require('node:http');
const [port, followers, followersAfterMs] = process.argv.slice(1).map(Number);
const get = (index, written = () => {}) => new Promise((resolve) => {
  const result = {};
  const request = http.get({ host: '127.0.0.1', port, path: '/' + index, agent: false }, (response) => {
    let body = '';
    response.setEncoding('utf8').on('data', (chunk) => (body += chunk));
    response.on('end', () => resolve(Object.assign(result, { status: response.statusCode, body, complete: response.complete })));
  });
  request.on('error', (error) => resolve(Object.assign(result, { error: error.code || String(error) })));
  request.on('finish', () => {
    result.writtenAt = Date.now();
    written();
  });
});
const first = get(0, () => setTimeout(() => {
  const rest = Array.from({ length: followers }, (_, index) => get(index + 1));
  Promise.all([first, ...rest]).then((results) => console.log(JSON.stringify(results)));
}, followersAfterMs));
`;

/**
 * A client process that keeps `clients` connections coming for `forMs`: each sends GET /,
 * and once answered or refused sends the next on a new connection. Prints one JSON line
 * counting the outcomes: complete answers, and each error code.
 */
const CONNECTING_CLIENTS = `
const http = require('node:http');
const [port, clients, forMs] = process.argv.slice(1).map(Number);
const until = Date.now() + forMs;
const counts = {};
const count = (key) => (counts[key] = (counts[key] || 0) + 1);
const get = () => new Promise((resolve) => {
  const request = http.get({ host: '127.0.0.1', port, path: '/', agent: false }, (response) => {
    response.resume();
    response.on('end', () => resolve(count(response.complete ? 'answered' : 'cut short')));
  });
  request.on('error', (error) => resolve(count(error.code || String(error))));
});
const client = async () => {
  while (Date.now() < until) await get();
};
Promise.all(Array.from({ length: clients }, client)).then(() => console.log(JSON.stringify(counts)));
`;

/** Runs one of the client scripts above in a process of its own. */
function startScript(script: string, ...args: number[]): StartedProcess {
  return startNode(['-e', script, ...args.map(String)], process.env);
}

/** The JSON line a client script prints once its clients are done. */
function printed<T>(clients: StartedProcess): Promise<T> {
  return untilOutput(clients, "the clients' outcome", (stdout) => {
    const line = /^[[{].*[\]}]$/m.exec(stdout);
    return line ? (JSON.parse(line[0]) as T) : undefined;
  });
}

const answered = (count: number) =>
  Array.from({ length: count }, (_, index) => ({
    status: 200,
    body: `answer to /${index}`,
    complete: true,
  }));

describe('the connection drain on a busy event loop', () => {
  const cleanups: (() => unknown)[] = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0)) await cleanup();
  });

  /**
   * A server whose first request holds the loop for `HOLD_MS` (the other clients connect
   * meanwhile) and begins the drain; `drainBefore` says whether before or after the hold.
   */
  async function drainingServer(options: { drainBefore: boolean; answer?: () => void }) {
    const state = { drained: undefined as Promise<void> | undefined, drainBeganAt: 0 };
    const listener = (request: IncomingMessage, response: ServerResponse) => {
      if (!state.drained) {
        const drain = () => {
          state.drainBeganAt = Date.now();
          state.drained = connections.drain(() => undefined, LISTENER_OPEN_MAX_MS);
        };
        if (options.drainBefore) drain();
        busyFor(HOLD_MS);
        if (!options.drainBefore) drain();
      } else {
        options.answer?.();
      }
      response.end(`answer to ${request.url}`);
    };
    const { server, connections, port } = await trackedServer(listener, cleanups);
    return { server, connections, state, port };
  }

  it('answers every connection queued before the drain, though each turn outlasts the quiet moment', async () => {
    const { connections, state, port } = await drainingServer({
      drainBefore: false,
      answer: () => busyFor(BUSY_TURN_MS),
    });
    const followers = 6;
    const clients = startScript(CLIENTS, port, followers, FOLLOWERS_AFTER_MS);
    cleanups.push(() => clients.kill());
    const outcome = await printed<ClientResult[]>(clients);
    await state.drained;

    // The premise: every follower had written its request before the drain began.
    for (const { writtenAt } of outcome.slice(1))
      expect(writtenAt).toBeLessThan(state.drainBeganAt);
    expect(outcome.map(({ writtenAt: _, ...rest }) => rest)).toEqual(answered(followers + 1));
    expect(connections.answeredWhileDraining()).toBe(followers + 1);
  });

  it('reads the request of a connection accepted early in a turn longer than the idle grace', async () => {
    const { server, connections, state, port } = await drainingServer({ drainBefore: true });
    // The turn after the hold looks at the connections, after accepting the follower's and
    // holding the loop past the grace: the loop has not yet read what its client sent.
    server.on('connection', () => {
      if (connections.draining) busyFor(LONG_TURN_MS);
    });
    const clients = startScript(CLIENTS, port, 1, FOLLOWERS_AFTER_MS);
    cleanups.push(() => clients.kill());
    const outcome = await printed<ClientResult[]>(clients);
    await state.drained;

    expect(outcome.map(({ writtenAt: _, ...rest }) => rest)).toEqual(answered(2));
  });

  it('closes the listener soon though clients keep connecting, answering whom it accepted', async () => {
    const { state, port } = await drainingServer({
      drainBefore: false,
      answer: () => busyFor(BUSY_TURN_MS / 3),
    });
    const clients = startScript(CONNECTING_CLIENTS, port, 6, 6000);
    cleanups.push(() => clients.kill());
    // The first request holds the loop for a second while the others connect, then drains.
    const counts = await printed<Record<string, number>>(clients);
    await state.drained;

    expect(counts).not.toHaveProperty(['cut short']);
    expect(counts.answered ?? 0).toBeGreaterThan(0);
    // Refused once the listener closed, well before the clients stopped trying.
    expect(counts.ECONNREFUSED ?? 0).toBeGreaterThan(0);
  });
});
