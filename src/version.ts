import packageJson from '../package.json' with { type: 'json' };

/** The service's version in package.json (imported, so the production bundle carries it). */
export function packageVersion(): string {
  return packageJson.version;
}
