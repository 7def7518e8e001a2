/**
 * yoga logs every error its masking replaced, at `error`, with its stack, and for a document
 * refused before execution twice (once where it masks, once where it handles the error). Most
 * of those are the client's mistakes: a document over a limit, an unknown field, a bad global
 * id or variable, invalid JSON. Those belong in the request's own line (src/request-log.ts),
 * once and without a stack, or a client could flood the log. What an operator must act on
 * stays an error, logged once: a database that cannot serve, a defect of ours.
 */
import type { Plugin, YogaLogger } from 'graphql-yoga';
import { GraphQLError } from 'graphql';
import { ERROR_STATUS, maskError, type ErrorCode } from '../errors.ts';
import type { Logger } from '../logger.ts';
import { noteClientError } from '../request-log.ts';

export function createYogaLogger(logger: Logger): YogaLogger {
  const reported = new WeakSet<object>();
  function report(error: unknown): void {
    if (typeof error !== 'object' || error === null) {
      logger.error({ value: String(error) }, 'graphql: unexpected error');
      return;
    }
    if (reported.has(error)) return;
    reported.add(error);
    const masked = maskError(error, 'Unexpected error.');
    const code = (masked instanceof GraphQLError ? masked.extensions.code : undefined) as
      ErrorCode | undefined;
    const status = code === undefined ? 500 : ERROR_STATUS[code];
    // A client's mistake is told by the request line (useClientErrorsInRequestLine).
    if (status >= 500) logger.error(error);
  }
  return {
    debug: (...args: unknown[]) => logger.debug(args.map(String).join(' ')),
    info: (...args: unknown[]) => logger.info(args.map(String).join(' ')),
    warn: (...args: unknown[]) => logger.warn(args.map(String).join(' ')),
    error: (...args: unknown[]) => args.forEach(report),
  };
}

/**
 * The first error of a result the client caused goes into the request's line: its code and
 * message. yoga's own codes (a document that does not parse or validate, a malformed request)
 * are the client's too.
 */
export function useClientErrorsInRequestLine(): Plugin {
  return {
    onResultProcess({ result }) {
      if (Array.isArray(result) || Symbol.asyncIterator in result) return;
      const [first] = result.errors ?? [];
      const code = first?.extensions?.code;
      if (typeof code !== 'string') return;
      const status = (ERROR_STATUS as Record<string, number>)[code] ?? 400;
      if (status < 500) noteClientError(code, first!.message);
    },
  };
}
