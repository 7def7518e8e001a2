/**
 * Command lines (src/main.ts's commands and the bench): options parsed strictly and checked
 * against their accepted values before anything else happens, `--help` naming the options and
 * the environment variables a command reads, and every mistake as a UsageError of one line.
 */
import { writeSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { closest, distance } from 'fastest-levenshtein';
import { SETTINGS, type ConfiguredCommand, type EnvironmentVariable } from '../config.ts';
import { exitOnFailure, UsageError } from './errors.ts';
import { isCalendarDay } from '../../seeds/calendar.ts';

/** parseArgs' option, with what it accepts and what `--help` says of it. */
export interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
  default?: string;
  /** The value's placeholder in `--help` ("N"); a flag has none. */
  value?: string;
  description: string;
  /** The only values a string option accepts. */
  choices?: readonly string[];
  /** A string option that must be a whole number in this range. */
  range?: readonly [min: number, max: number];
  /** A string option that must be a calendar day, YYYY-MM-DD. */
  calendarDay?: true;
}

export interface CommandSpec<Options extends Record<string, OptionSpec>> {
  /** How a person runs it: "npm run seed --". */
  invocation: string;
  summary: string;
  options: Options;
  environment: readonly EnvironmentVariable[];
}

/** The variables a command of src/main.ts reads, as src/config/settings.ts declares them. */
export function environmentOf(command: ConfiguredCommand): readonly EnvironmentVariable[] {
  return Object.values(SETTINGS).filter((setting) =>
    (setting.commands as readonly ConfiguredCommand[]).includes(command),
  );
}

const HELP_OPTION: OptionSpec & { type: 'boolean' } = {
  type: 'boolean',
  short: 'h',
  description: 'print this help and exit',
};

export type ParsedValues<Options extends Record<string, OptionSpec>> = ReturnType<
  typeof parseArgs<{
    args: string[];
    options: Options & { help: typeof HELP_OPTION };
    strict: true;
    allowPositionals: false;
  }>
>['values'];

/**
 * A command's checked options. `--help` prints the help and exits 0; a mistake prints one line
 * and exits 2 (errors.ts); either way before the command reads its configuration.
 */
export function readCommandLine<Options extends Record<string, OptionSpec>>(
  command: CommandSpec<Options>,
  args: readonly string[],
): ParsedValues<Options> {
  let commandLine: CommandLine<Options>;
  try {
    commandLine = parseCommandLine(command, args);
  } catch (error) {
    return exitOnFailure(error);
  }
  if (commandLine.help === undefined) return commandLine.values;
  writeSync(process.stdout.fd, commandLine.help);
  return process.exit(0);
}

type CommandLine<Options extends Record<string, OptionSpec>> =
  { help: string; values?: undefined } | { help?: undefined; values: ParsedValues<Options> };

function parseCommandLine<Options extends Record<string, OptionSpec>>(
  command: CommandSpec<Options>,
  args: readonly string[],
): CommandLine<Options> {
  const options: Record<string, OptionSpec> = { ...command.options, help: HELP_OPTION };
  let values: Record<string, unknown>;
  try {
    ({ values } = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }));
  } catch (error) {
    const mistake = describeMistake(error, Object.keys(options));
    throw new UsageError(`${mistake} (${command.invocation} --help lists the options)`);
  }
  if (values.help) return { help: formatHelp(command) };
  for (const [name, option] of Object.entries(options)) {
    const value = values[name];
    if (typeof value === 'string') checkValue(name, option, value);
  }
  return { values: values as ParsedValues<Options> };
}

function checkValue(name: string, option: OptionSpec, value: string): void {
  if (option.choices && !option.choices.includes(value)) {
    throw new UsageError(`--${name} must be one of ${option.choices.join(', ')}, got "${value}"`);
  }
  if (option.range) {
    const [min, max] = option.range;
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new UsageError(`--${name} must be an integer from ${min} to ${max}, got "${value}"`);
    }
  }
  if (option.calendarDay && !isCalendarDay(value)) {
    throw new UsageError(`--${name} must be a date YYYY-MM-DD, got "${value}"`);
  }
}

/** parseArgs' own message (its first line), with a likely intended name for an unknown option. */
function describeMistake(error: unknown, known: string[]): string {
  const { code, message } = error as { code?: string; message: string };
  const unknown = /^Unknown option '--([^'=]+)'/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && unknown !== undefined) {
    const likely = closest(unknown, known);
    const hint = distance(unknown, likely) <= 2 ? `; did you mean --${likely}?` : '';
    return `unknown option --${unknown}${hint}`;
  }
  if (!code?.startsWith('ERR_PARSE_ARGS_')) throw error;
  const plain = message.split('\n')[0]!.replace(/'/g, '').replace(/\.$/, '');
  return plain.charAt(0).toLowerCase() + plain.slice(1);
}

function formatHelp(command: CommandSpec<Record<string, OptionSpec>>): string {
  const options = Object.entries({ ...command.options, help: HELP_OPTION }).map(
    ([name, option]) => {
      const flags = `${option.short ? `-${option.short}, ` : ''}--${name}`;
      const fallback = option.default === undefined ? '' : ` (default: ${option.default})`;
      return [
        option.value ? `${flags} ${option.value}` : flags,
        `${option.description}${fallback}`,
      ] as const;
    },
  );
  const variables = command.environment.map(
    (variable) => [variable.names.join(', '), variable.meaning] as const,
  );
  return [
    `Usage: ${command.invocation} [options]`,
    '',
    command.summary,
    '',
    'Options:',
    ...columns(options),
    ...(variables.length > 0
      ? ['', 'Environment variables (defaults and details: README.md):']
      : []),
    ...columns(variables),
    '',
  ].join('\n');
}

/** Two aligned columns; a left entry too long for its column puts its text on the next line. */
export function columns(rows: readonly (readonly [string, string])[]): string[] {
  const widest = 32;
  const width = Math.max(0, ...rows.map(([left]) => left.length).filter((n) => n <= widest));
  return rows.flatMap(([left, right]) =>
    left.length <= widest
      ? [`  ${left.padEnd(width)}  ${right}`]
      : [`  ${left}`, `  ${''.padEnd(width)}  ${right}`],
  );
}
