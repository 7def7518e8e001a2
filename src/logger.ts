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
  };
  if (destination !== undefined) return pino(options, destination);
  return pretty(config.logFormat) ? pino(options, prettyTransport()) : pino(options);
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
