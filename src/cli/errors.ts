/**
 * How a command ends when it cannot do its job: one message and an exit code, never a stack
 * trace for a failure a person can put right.
 *
 *   2  the command was used wrongly: an option, a value, the configuration (UsageError,
 *      ConfigError)
 *   1  the command was right but its surroundings were not: the port is taken, the data
 *      directory is held by another process, the database cannot be reached (CommandError),
 *      its schema is a newer release's that this one cannot run on (IncompatibleSchemaError),
 *      or a defect
 *
 * Where it is said: a command whose log lines are its output (serve, migrate, seed: what an
 * orchestrator runs and a log shipper reads) says it as its last log line, at `fatal`, JSON
 * like every other line (a defect's stack inside it, as `err`), and so does a crash of one
 * (exitLoggingFailure, logCrashes). A mistake found before the logger exists (the command
 * line, the configuration), and any failure of a command whose stdout is its result, is one
 * line on stderr (exitOnFailure).
 */
import { ConfigError } from '../config.ts';
import { databaseConnectionFailure } from '../db/connection-errors.ts';
import { IncompatibleSchemaError } from '../db/incompatible-schema.ts';
import { afterLastLine, type Logger } from '../logger.ts';
import { tellPrimaryWhyThisWorkerEnds } from './workers.ts';

export class UsageError extends Error {}

export class CommandError extends Error {}

interface Failure {
  exitCode: 1 | 2;
  message: string;
  /** What a log line adds to the message. */
  fields?: object;
  /** The error itself, when it is a defect: its stack is what explains it. */
  defect?: unknown;
}

function failureOf(error: unknown): Failure {
  if (error instanceof ConfigError || error instanceof UsageError) {
    return { exitCode: 2, message: error.message };
  }
  if (error instanceof CommandError) return { exitCode: 1, message: error.message };
  if (error instanceof IncompatibleSchemaError) {
    return { exitCode: 1, message: error.message, fields: error.details };
  }
  const unreachable = databaseConnectionFailure(error);
  if (unreachable !== undefined) {
    // The 'opening database' line logged just before names which database.
    return { exitCode: 1, message: `cannot reach the database: ${unreachable}` };
  }
  const message = error instanceof Error ? error.message : String(error);
  return { exitCode: 1, message, defect: error };
}

export function exitOnFailure(error: unknown): never {
  const { exitCode, message, defect } = failureOf(error);
  console.error(defect ?? message);
  process.exit(exitCode);
}

let ending = false;

/**
 * Logs the failure that ends the command as its last line, then exits once the line is
 * written (and, in a worker, once the primary has its reason: /readyz tells it).
 */
export function exitLoggingFailure(logger: Logger, error: unknown, how = 'failed'): void {
  if (ending) return;
  ending = true;
  const { exitCode, message, fields, defect } = failureOf(error);
  if (defect === undefined) logger.fatal({ ...fields, exitCode }, message);
  else logger.fatal({ err: defect, exitCode }, `${how}: ${message}`);
  void tellPrimaryWhyThisWorkerEnds(message).finally(() =>
    afterLastLine(logger, () => process.exit(exitCode)),
  );
}

/** An uncaught exception or unhandled rejection ends the process as a logged failure. */
export function logCrashes(logger: Logger): void {
  process.on('uncaughtException', (error) => exitLoggingFailure(logger, error, 'crashed'));
  process.on('unhandledRejection', (reason) => exitLoggingFailure(logger, reason, 'crashed'));
}
