import { execFileSync } from 'node:child_process';
import packageJson from '../package.json' with { type: 'json' };

/** The service's version in package.json (imported, so the production bundle carries it). */
export function packageVersion(): string {
  return packageJson.version;
}

/** The checkout's HEAD once read (`null`: none), undefined until then. */
let checkoutHead: string | null | undefined;

/**
 * The commit the service runs from: `configured` (BUILD_COMMIT, set where an image is built,
 * which has no git checkout), else the HEAD of the checkout this code is in, else `unknown`.
 */
export function buildCommit(configured: string): string {
  if (configured !== '') return configured;
  if (checkoutHead === undefined) checkoutHead = headOfCheckout();
  return checkoutHead ?? 'unknown';
}

/** Read once per process: the checkout does not move under a running service. */
function headOfCheckout(): string | null {
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: import.meta.dirname,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 5000,
    }).trim();
  } catch {
    return null;
  }
}
