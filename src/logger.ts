import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config, LogFormat } from './config.ts';
import { currentRequestId } from './request-log.ts';

export type { Logger };

/**
 * JSON lines on stdout, one event per line, ready for any log shipper; or, for a person at a
 * terminal, pino-pretty's readable lines (LOG_FORMAT). Every line logged while a request is
 * served carries its `requestId` (request-log.ts). `destination` replaces stdout (tests).
 */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'logFormat'>,
  destination?: DestinationStream,
): Logger {
  const options = {
    level: config.logLevel,
    base: { service: 'catalogue-gateway' },
    mixin: currentRequestId,
    serializers: { err: withSourceClassName },
  };
  if (destination !== undefined) return pino(options, destination);
  return pretty(config.logFormat) ? pino(options, prettyTransport()) : pino(options, stdoutLines());
}

/**
 * stdout written asynchronously: a line per request written synchronously was a system call
 * on the request's path; now lines logged while a write is under way go out together with
 * the next one, and none waits longer than that write. pino writes what is left when the
 * process exits (`logger.flush` on a drained shutdown, its exit hook otherwise), so only a
 * process killed outright can lose the lines of its last write.
 */
function stdoutLines(): DestinationStream {
  return pino.destination({ dest: 1, sync: false });
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

function pretty(format: LogFormat): boolean {
  return format === 'auto' ? process.stdout.isTTY === true : format === 'pretty';
}

/**
 * pino-pretty runs in a worker thread that pino starts and resolves by module name (so pino
 * stays outside the production bundle), and pino flushes it when the process exits.
 */
function prettyTransport(): DestinationStream {
  return pino.transport({
    target: 'pino-pretty',
    options: {
      // The worker's own stdout is no terminal: colours follow the process's.
      colorize: process.stdout.isTTY === true,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,service',
    },
  });
}
