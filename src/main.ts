/**
 * The only file that listens: the command line of the service. Commands (src/cli/):
 *   serve (default)   bind PORT, migrate, seed when empty, serve
 *   migrate           apply pending migrations and exit
 *   seed              fill the catalogue at a scale
 *   clients           add, list, revoke and unlock API clients (partners' and shops')
 *   feed              apply a shop's full feed from a file
 *   documents         add and list the trusted documents /graphql runs by id
 *   cache             purge the response cache
 * `<command> --help` lists a command's options and environment variables; src/cli/errors.ts
 * says how each failure ends (a log line or a line on stderr, exit code 1 or 2).
 */
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import {
  columns,
  readCommandLineWithOperands,
  readSubcommand,
  type CommandGroupSpec,
  type CommandSpec,
  type OptionSpec,
  type ParsedValues,
} from './cli/command-line.ts';
import { exitLoggingFailure, exitOnFailure, logCrashes, UsageError } from './cli/errors.ts';
import {
  ADD_PARTNER,
  ADD_DOCUMENTS,
  ADD_SHOP,
  CACHE,
  CLIENTS,
  DOCUMENTS,
  FEED,
  LIST_CLIENTS,
  LIST_DOCUMENTS,
  MIGRATE,
  PURGE_CACHE,
  REVOKE_CLIENT,
  SEED,
  SERVE,
  UNLOCK_CLIENT,
} from './cli/commands.ts';

type Run<Options extends Record<string, OptionSpec>> = (
  config: Config,
  logger: Logger,
  values: ParsedValues<Options>,
  operands: string[],
) => Promise<void>;

interface Command {
  summary: string;
  start(args: readonly string[]): Promise<void>;
}

/**
 * A command: its arguments checked (or its help printed) before the configuration is read,
 * and its module loaded only then.
 */
function command<Options extends Record<string, OptionSpec>>(
  spec: CommandSpec<Options>,
  load: () => Promise<Run<Options>>,
): Command {
  return {
    summary: spec.summary.split('\n')[0]!,
    async start(args: readonly string[]): Promise<void> {
      const { values, operands } = readCommandLineWithOperands(spec, args);
      const config = loadConfig();
      const run = await load();
      if (spec.logsToStderr) {
        return run(config, createLogger(config, 'stderr'), values, operands);
      }
      // The service and its deploy steps end a failure, or a crash, with their last log line.
      const logger = createLogger(config);
      logCrashes(logger);
      await run(config, logger, values, operands).catch((error: unknown) =>
        exitLoggingFailure(logger, error),
      );
    },
  };
}

/** A command whose first word names one of its subcommands, which reads the rest. */
function commandGroup<Group extends CommandGroupSpec>(
  spec: Group,
  subcommands: Record<keyof Group['subcommands'], Command>,
): Command {
  return {
    summary: spec.summary.split('\n')[0]!,
    async start(args: readonly string[]): Promise<void> {
      const chosen = readSubcommand(spec, args);
      await subcommands[chosen.name as keyof Group['subcommands']].start(chosen.args);
    },
  };
}

const loadClients = () => import('./cli/clients.ts');
const loadDocuments = () => import('./cli/documents.ts');

const COMMANDS: Record<string, Command> = {
  serve: command(SERVE, async () => (await import('./cli/serve.ts')).serve),
  migrate: command(MIGRATE, async () => (await import('./cli/migrate.ts')).migrate),
  seed: command(SEED, async () => (await import('./cli/seed.ts')).seed),
  clients: commandGroup(CLIENTS, {
    'add-partner': command(ADD_PARTNER, async () => (await loadClients()).addPartner),
    'add-shop': command(ADD_SHOP, async () => (await loadClients()).addShop),
    list: command(LIST_CLIENTS, async () => (await loadClients()).listClients),
    revoke: command(REVOKE_CLIENT, async () => (await loadClients()).revokeClient),
    unlock: command(UNLOCK_CLIENT, async () => (await loadClients()).unlockClient),
  }),
  feed: command(FEED, async () => (await import('./cli/feed.ts')).feed),
  documents: commandGroup(DOCUMENTS, {
    add: command(ADD_DOCUMENTS, async () => (await loadDocuments()).addDocuments),
    list: command(LIST_DOCUMENTS, async () => (await loadDocuments()).listDocuments),
  }),
  cache: commandGroup(CACHE, {
    purge: command(PURGE_CACHE, async () => (await import('./cli/cache.ts')).purgeCache),
  }),
};

function overview(): string {
  return [
    'Usage: node src/main.ts [command] [options]  (npm start, npm run migrate, npm run seed,',
    '       npm run clients, npm run feed, npm run documents, npm run cache)',
    '',
    'Commands:',
    ...columns(Object.entries(COMMANDS).map(([name, { summary }]) => [name, summary])),
    '',
    'serve is the default. <command> --help lists its options and environment variables.',
    '',
  ].join('\n');
}

async function main(argv: readonly string[]): Promise<void> {
  const [first, ...rest] = argv;
  if (first === '--help' || first === '-h') {
    process.stdout.write(overview());
    return;
  }
  // Options with no command are serve's, the default command's.
  const [name, args] =
    first === undefined || first.startsWith('-') ? ['serve', argv] : [first, rest];
  const chosen = COMMANDS[name];
  if (!chosen) {
    const known = Object.keys(COMMANDS).join(', ');
    throw new UsageError(`unknown command "${name}" (${known}; --help lists them)`);
  }
  await chosen.start(args);
}

main(process.argv.slice(2)).catch(exitOnFailure);
