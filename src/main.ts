/**
 * The only file that listens: the command line of the service. Commands (src/cli/):
 *   serve (default)   bind PORT, migrate, seed when empty, serve
 *   migrate           apply pending migrations and exit
 *   seed              fill the catalogue at a scale
 * `<command> --help` lists a command's options and environment variables; src/cli/errors.ts
 * says how each failure ends (one line, exit code 1 or 2).
 */
import { loadConfig, type Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import {
  columns,
  readCommandLine,
  type CommandSpec,
  type OptionSpec,
  type ParsedValues,
} from './cli/command-line.ts';
import { exitOnFailure, UsageError } from './cli/errors.ts';
import { MIGRATE, SEED, SERVE } from './cli/commands.ts';

type Run<Options extends Record<string, OptionSpec>> = (
  config: Config,
  logger: Logger,
  values: ParsedValues<Options>,
) => Promise<void>;

/**
 * A command: its arguments checked (or its help printed) before the configuration is read,
 * and its module loaded only then.
 */
function command<Options extends Record<string, OptionSpec>>(
  spec: CommandSpec<Options>,
  load: () => Promise<Run<Options>>,
) {
  return {
    summary: spec.summary.split('\n')[0]!,
    async start(args: readonly string[]): Promise<void> {
      const values = readCommandLine(spec, args);
      const config = loadConfig();
      const run = await load();
      await run(config, createLogger(config), values);
    },
  };
}

const COMMANDS: Record<string, ReturnType<typeof command>> = {
  serve: command(SERVE, async () => (await import('./cli/serve.ts')).serve),
  migrate: command(MIGRATE, async () => (await import('./cli/migrate.ts')).migrate),
  seed: command(SEED, async () => (await import('./cli/seed.ts')).seed),
};

function overview(): string {
  return [
    'Usage: node src/main.ts [command] [options]  (npm start, npm run migrate, npm run seed)',
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
