/**
 * What each command of src/main.ts accepts and says in `--help`. The commands themselves
 * (serve.ts, migrate.ts, seed.ts) are loaded only to run: `--help` and a mistake on the command
 * line answer without loading the service.
 */
import { SEED_SCALES } from '../config.ts';
import { environmentOf, type CommandSpec, type OptionSpec } from './command-line.ts';

const MAX_SEED = 0xffff_ffff;

export const SERVE = {
  invocation: 'npm start --',
  summary:
    'Serves the catalogue on PORT: GraphQL, the REST routes and the operations routes.\n' +
    'It binds the port first, then migrates and fills an empty catalogue (SEED_ON_EMPTY);\n' +
    '/readyz answers 503 until that is done. SIGTERM or SIGINT stops it gracefully.',
  options: {},
  environment: environmentOf('serve'),
} satisfies CommandSpec<Record<never, never>>;

export const MIGRATE = {
  invocation: 'npm run migrate --',
  summary: 'Applies the pending migrations (schema/migrations/) and exits.',
  options: {},
  environment: environmentOf('migrate'),
} satisfies CommandSpec<Record<never, never>>;

export const SEED = {
  invocation: 'npm run seed --',
  summary:
    'Fills the catalogue with the deterministic generated catalogue, after migrating.\n' +
    'Refuses a catalogue that is not empty unless --force is given, and an embedded data\n' +
    'directory that another process (a running server) holds.',
  options: {
    scale: {
      type: 'string',
      value: 'SCALE',
      description: `catalogue size: ${SEED_SCALES.join(', ')} (default: SEED_SCALE)`,
      choices: SEED_SCALES,
    },
    seed: {
      type: 'string',
      value: 'N',
      description: `generator seed, 0 to ${MAX_SEED} (default: 1)`,
      range: [0, MAX_SEED],
    },
    'as-of': {
      type: 'string',
      value: 'YYYY-MM-DD',
      calendarDay: true,
      description: "the catalogue's today: history ends the day before (default: today, UTC)",
    },
    force: { type: 'boolean', description: 'replace a catalogue that is not empty' },
  },
  environment: environmentOf('seed'),
} satisfies CommandSpec<Record<string, OptionSpec>>;
