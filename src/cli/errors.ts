/**
 * How a command ends when it cannot do its job: one line on stderr and an exit code, never a
 * stack trace for a failure a person can put right.
 *
 *   2  the command was used wrongly: an option, a value, the configuration (UsageError,
 *      ConfigError)
 *   1  the command was right but its surroundings were not: the port is taken, the data
 *      directory is held by another process, the database cannot be reached (CommandError), or
 *      a defect (with its stack)
 */
import { ConfigError } from '../config.ts';
import { databaseConnectionFailure } from '../db/connection-errors.ts';

export class UsageError extends Error {}

export class CommandError extends Error {}

export function exitOnFailure(error: unknown): never {
  if (error instanceof ConfigError || error instanceof UsageError) {
    console.error(error.message);
    process.exit(2);
  }
  if (error instanceof CommandError) {
    console.error(error.message);
    process.exit(1);
  }
  const unreachable = databaseConnectionFailure(error);
  if (unreachable !== undefined) {
    // The 'opening database' line logged just before names which database.
    console.error(`cannot reach the database: ${unreachable}`);
    process.exit(1);
  }
  console.error(error);
  process.exit(1);
}
