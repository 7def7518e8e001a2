/**
 * Command lines (src/main.ts's commands and the bench): options and operands parsed strictly
 * and checked against their accepted values before anything else happens, `--help` naming the
 * options and the environment variables a command reads, and every mistake as a UsageError of
 * one line.
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
  /** A string option whose every value must match this, described as `accepts`. */
  matches?: { pattern: RegExp; accepts: string };
  /** A string option that may be given several times; its value is then a list. */
  multiple?: true;
  /** An option the command cannot do without. */
  required?: true;
}

/** A word on the command line that is not an option: `NAME` in `add-shop NAME --shop ID`. */
export interface OperandSpec {
  /** Its placeholder in `--help` ("NAME"). */
  name: string;
  description: string;
  matches?: { pattern: RegExp; accepts: string };
}

export interface CommandSpec<Options extends Record<string, OptionSpec>> {
  /** How a person runs it: "npm run seed --". */
  invocation: string;
  summary: string;
  /** The words it takes before or between its options, each exactly once, in this order. */
  operands?: readonly OperandSpec[];
  options: Options;
  environment: readonly EnvironmentVariable[];
  /** Its stdout is its result, for scripts to read: its log lines go to stderr. */
  logsToStderr?: true;
}

/** A command made of subcommands: `npm run clients -- add-shop …`. */
export interface CommandGroupSpec {
  /** How a person runs it: "npm run clients --"; each subcommand's invocation continues it. */
  invocation: string;
  summary: string;
  subcommands: Record<string, CommandSpec<Record<string, OptionSpec>>>;
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

/** A command's checked options and its operands, in the order its spec names them. */
export interface ParsedCommandLine<Options extends Record<string, OptionSpec>> {
  values: ParsedValues<Options>;
  operands: string[];
}

/** readCommandLineWithOperands for a command that takes no operands: its options. */
export function readCommandLine<Options extends Record<string, OptionSpec>>(
  command: CommandSpec<Options>,
  args: readonly string[],
): ParsedValues<Options> {
  return readCommandLineWithOperands(command, args).values;
}

/**
 * A command's checked options and operands. `--help` prints the help and exits 0; a mistake
 * prints one line and exits 2 (errors.ts); either way before the command reads its
 * configuration.
 */
export function readCommandLineWithOperands<Options extends Record<string, OptionSpec>>(
  command: CommandSpec<Options>,
  args: readonly string[],
): ParsedCommandLine<Options> {
  let commandLine: CommandLine<Options>;
  try {
    commandLine = parseCommandLine(command, args);
  } catch (error) {
    return exitOnFailure(error);
  }
  if (commandLine.help === undefined) return commandLine.parsed;
  writeSync(process.stdout.fd, commandLine.help);
  return process.exit(0);
}

type CommandLine<Options extends Record<string, OptionSpec>> =
  { help: string; parsed?: undefined } | { help?: undefined; parsed: ParsedCommandLine<Options> };

function parseCommandLine<Options extends Record<string, OptionSpec>>(
  command: CommandSpec<Options>,
  args: readonly string[],
): CommandLine<Options> {
  const options: Record<string, OptionSpec> = { ...command.options, help: HELP_OPTION };
  const operandSpecs = command.operands ?? [];
  let values: Record<string, unknown>;
  let operands: string[];
  try {
    ({ values, positionals: operands } = parseArgs({
      args: [...args],
      options,
      strict: true,
      allowPositionals: operandSpecs.length > 0,
    }));
  } catch (error) {
    const mistake = describeMistake(error, Object.keys(options));
    throw new UsageError(`${mistake} (${command.invocation} --help lists the options)`);
  }
  if (values.help) return { help: formatHelp(command) };
  checkOperands(command, operands);
  for (const [name, option] of Object.entries(options)) {
    const value = values[name];
    if (option.required && value === undefined) {
      throw new UsageError(`${optionSynopsis(name, option)} is required (${synopsis(command)})`);
    }
    for (const each of Array.isArray(value) ? value : [value]) {
      if (typeof each === 'string') checkValue(name, option, each);
    }
  }
  return { parsed: { values: values as ParsedValues<Options>, operands } };
}

function checkOperands(
  command: CommandSpec<Record<string, OptionSpec>>,
  operands: readonly string[],
): void {
  const specs = command.operands ?? [];
  const missing = specs[operands.length];
  if (missing) throw new UsageError(`${missing.name} is missing (${synopsis(command)})`);
  // Without operands, parseArgs itself refuses a stray word ("unexpected argument").
  if (operands.length > specs.length) {
    throw new UsageError(`unexpected argument ${operands[specs.length]} (${synopsis(command)})`);
  }
  specs.forEach(({ name, matches }, index) => {
    const value = operands[index]!;
    if (matches && !matches.pattern.test(value)) {
      throw new UsageError(`${name} must be ${matches.accepts}, got "${value}"`);
    }
  });
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
  if (option.matches && !option.matches.pattern.test(value)) {
    throw new UsageError(`--${name} must be ${option.matches.accepts}, got "${value}"`);
  }
}

/**
 * The subcommand a group's command line names, and the words after it for the subcommand to
 * read. `--help` prints the group's help and exits 0; no subcommand, or an unknown one, is a
 * usage error (exit 2).
 */
export function readSubcommand(
  group: CommandGroupSpec,
  args: readonly string[],
): { name: string; args: string[] } {
  const [name, ...rest] = args;
  if (name === '--help' || name === '-h') {
    writeSync(process.stdout.fd, formatGroupHelp(group));
    return process.exit(0);
  }
  const known = Object.keys(group.subcommands).join(', ');
  if (name === undefined || !Object.hasOwn(group.subcommands, name)) {
    const mistake = name === undefined ? 'a subcommand is missing' : `unknown subcommand "${name}"`;
    return exitOnFailure(
      new UsageError(`${mistake} (${known}; ${group.invocation} --help lists them)`),
    );
  }
  return { name, args: rest };
}

function formatGroupHelp(group: CommandGroupSpec): string {
  const subcommands = Object.values(group.subcommands).map(
    (command) =>
      [
        synopsis(command).slice(group.invocation.length + 1),
        command.summary.split('\n')[0]!,
      ] as const,
  );
  return [
    `Usage: ${group.invocation} <subcommand> [arguments] [options]`,
    '',
    group.summary,
    '',
    'Subcommands:',
    ...columns(subcommands),
    '',
    `${group.invocation} <subcommand> --help lists its options and environment variables.`,
    '',
  ].join('\n');
}

/** How a command is called with what it requires: `npm run clients -- add-shop NAME --shop ID`. */
export function synopsis(command: CommandSpec<Record<string, OptionSpec>>): string {
  const required = Object.entries(command.options)
    .filter(([, option]) => option.required)
    .map(([name, option]) => optionSynopsis(name, option) + (option.multiple ? ' …' : ''));
  const operands = (command.operands ?? []).map((operand) => operand.name);
  return [command.invocation, ...operands, ...required].join(' ');
}

function optionSynopsis(name: string, option: OptionSpec): string {
  return option.value ? `--${name} ${option.value}` : `--${name}`;
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
      const repeatable = option.multiple ? ' (repeatable)' : '';
      return [
        option.value ? `${flags} ${option.value}` : flags,
        `${option.description}${fallback}${repeatable}`,
      ] as const;
    },
  );
  const variables = command.environment.map(
    (variable) => [variable.names.join(', '), variable.meaning] as const,
  );
  const operands = (command.operands ?? []).map(
    (operand) => [operand.name, operand.description] as const,
  );
  return [
    `Usage: ${synopsis(command)} [options]`,
    '',
    command.summary,
    '',
    ...(operands.length > 0 ? ['Arguments:', ...columns(operands), ''] : []),
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
