import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config, LogFormat } from './config.ts';
import { currentRequestId } from './request-log.ts';

export type { Logger };

/**
 * JSON lines on stdout, one event per line, ready for any log shipper; or, for a person at a
 * terminal, pino-pretty's readable lines (LOG_FORMAT). Every line carries the process's
 * `pid`, and every line logged while a request is served its `requestId` (request-log.ts).
 * `destination` replaces stdout: a stream (tests), or stderr for a command whose stdout is
 * its result.
 */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  destination?: DestinationStream | 'stderr',
): Logger {
  const options = {
    level: config.logLevel,
    // The process on every line: with WORKERS above 1, which worker (or the primary) said it.
    base: { service: 'catalogue-gateway', pid: process.pid },
    mixin: currentRequestId,
    serializers: { err: withSourceClassName },
  };
  if (destination === 'stderr') {
    return pretty(config.logFormat, process.stderr)
      ? pino(options, prettyTransport(process.stderr))
      : pino(options, pino.destination({ fd: process.stderr.fd, sync: true }));
  }
  if (destination !== undefined) return pino(options, destination);
  return pretty(config.logFormat, process.stdout)
    ? pino(options, prettyTransport(process.stdout))
    : pino(options, stdoutLines());
}

/**
 * stdout written asynchronously: a line per request written synchronously was a system call
 * on the request's path; now lines logged while a write is under way go out together with
 * the next one, and none waits longer than that write. pino writes what is left when the
 * process exits (`afterLastLine` before a deliberate exit, its exit hook otherwise), so only a
 * process killed outright can lose the lines of its last write.
 */
function stdoutLines(): DestinationStream {
  const stream = pino.destination({ dest: 1, sync: false });
  endedBeforeExit.add(stream);
  return stream;
}

/**
 * Asynchronous stdout streams, which `afterLastLine` ends rather than flushes: their `flush`
 * calls back at once, while a write may still be under way in libuv's threads, and an exit
 * then loses it (the last line of a failing start, on a busy machine). Ending one waits for
 * that write; stdout itself stays open.
 */
const endedBeforeExit = new WeakSet<object>();

/** Calls `done` (an exit) once every line logged so far is written. */
export function afterLastLine(logger: Logger, done: () => void): void {
  const stream = (logger as unknown as Record<symbol, ReturnType<typeof pino.destination>>)[
    pino.symbols.streamSym
  ];
  if (stream === undefined || !endedBeforeExit.has(stream)) return logger.flush(() => done());
  stream.once('close', done);
  stream.end();
}

/**
 * pino's error serializer, with the class name as the source spells it: the bundle renames
 * classes whose names clash (`GraphQLError11`, `_GraphQLError`, `DatabaseError2`). Keeping
 * every name instead (esbuild's --keep-names) costs a call for each function created, closures
 * included, on every request: about 5 % of a request's CPU.
 */
function withSourceClassName(error: Error): ReturnType<typeof pino.stdSerializers.err> {
  const serialized = pino.stdSerializers.err(error);
  serialized.type = serialized.type.replace(/^_+/, '').replace(/\d+$/, '');
  return serialized;
}

function pretty(format: LogFormat, output: typeof process.stdout | typeof process.stderr): boolean {
  return format === 'auto' ? output.isTTY === true : format === 'pretty';
}

/**
 * pino-pretty runs in a worker thread that pino starts and resolves by module name (so pino
 * stays outside the production bundle), and pino flushes it when the process exits.
 */
function prettyTransport(output: typeof process.stdout | typeof process.stderr): DestinationStream {
  return pino.transport({
    target: 'pino-pretty',
    options: {
      destination: output.fd,
      // The worker's own output is no terminal: colours follow the process's.
      colorize: output.isTTY === true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
    },
  });
}
