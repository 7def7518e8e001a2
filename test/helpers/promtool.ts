/**
 * Prometheus's own checker (`promtool`, Debian's prometheus package): the exposition format as
 * Prometheus reads it, and the alert rules. Without it a file fails at once, saying so.
 */
import { spawn, spawnSync } from 'node:child_process';
import { requirePrerequisite } from './prerequisites.ts';
import { root } from './process.ts';

export function requirePromtool(): void {
  const found = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
  requirePrerequisite(found, 'promtool is needed: apt-get install prometheus');
}

export interface PromtoolResult {
  code: number | null;
  /** stdout and stderr together: promtool says its findings on either. */
  output: string;
}

/** Runs `promtool …args` in the project's directory, `input` on its stdin. */
export function promtool(args: readonly string[], input = ''): Promise<PromtoolResult> {
  return new Promise((resolve, reject) => {
    const child = spawn('promtool', args, { cwd: root, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
    child.stdin.end(input);
  });
}
