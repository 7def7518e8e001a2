/**
 * Every setting the service reads, taken from the environment once at start, validated, and
 * typed. Nothing else in the code reads `process.env`. The settings are declared in
 * src/config/settings.ts, the rules between them in src/config/checks.ts.
 */
import { CHECKS } from './config/checks.ts';
import { SETTINGS, type Config } from './config/settings.ts';

export { redactUrl } from './config/parsers.ts';
export {
  DEVELOPMENT_TOKEN_SECRET,
  LOG_FORMATS,
  LOG_LEVELS,
  SEED_SCALES,
  SETTINGS,
  type Config,
  type ConfiguredCommand,
  type EnvironmentVariable,
  type LogFormat,
  type LogLevel,
  type SeedScale,
  type Setting,
} from './config/settings.ts';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(
      problems.length === 1
        ? `Invalid configuration: ${problems[0]}`
        : `Invalid configuration:\n${problems.map((problem) => `  - ${problem}`).join('\n')}`,
    );
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;
type Key = keyof Config;

export function loadConfig(env: Env = process.env): Config {
  const problems: string[] = [];
  const refused = new Set<Key>();
  const value = (name: string) => {
    const trimmed = env[name]?.trim();
    return trimmed === '' ? undefined : trimmed;
  };
  const read = (key: Key, production: boolean): unknown =>
    SETTINGS[key].parse.read(SETTINGS[key].names, {
      value,
      production,
      refuse(problem) {
        problems.push(problem);
        refused.add(key);
      },
    });
  // Read first: other settings' defaults and checks depend on it.
  const production = read('production', false) as boolean;
  const keys = Object.keys(SETTINGS) as Key[];
  const config = Object.fromEntries(
    keys.map((key) => [key, key === 'production' ? production : read(key, production)]),
  ) as Config;
  for (const check of CHECKS) {
    if (check.unlessRefused.some((key) => refused.has(key))) continue;
    const problem = check.problem(config);
    if (problem !== undefined) problems.push(problem);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}
