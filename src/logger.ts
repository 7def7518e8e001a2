import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.ts';

export type { Logger };

/** JSON lines on stdout: one event per line, ready for any log shipper. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, base: { service: 'catalogue-gateway' } });
}
