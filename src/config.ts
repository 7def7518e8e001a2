/**
 * Every setting the service reads, taken from the environment once at start, validated, and
 * typed. Nothing else in the code reads `process.env`. The settings are declared in
 * src/config/settings.ts, the rules between them in src/config/checks.ts.
 */
import { CHECKS } from './config/checks.ts';
import type { Source } from './config/parsers.ts';
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
  const config: Partial<Record<Key, unknown>> = {};
  const source = (key: Key): Source => ({
    value(name) {
      const value = env[name]?.trim();
      return value === '' ? undefined : value;
    },
    // Declared first, so read before every setting that depends on it.
    production: config.production === true,
    refuse(problem) {
      problems.push(problem);
      refused.add(key);
    },
  });
  for (const key of Object.keys(SETTINGS) as Key[]) {
    config[key] = SETTINGS[key].parse.read(SETTINGS[key].names, source(key));
  }
  for (const check of CHECKS) {
    if (check.unlessRefused.some((key) => refused.has(key))) continue;
    const problem = check.problem(config as Config);
    if (problem !== undefined) problems.push(problem);
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config as Config;
}
