/**
 * Memory while a large feed is applied (performance.md: resident set ≤ 400 MB for a 500 MB
 * feed): the real command, `node --import tsx src/main.ts feed --shop ID FILE --json`, in a
 * child process on the bench database, its resident set (VmRSS) sampled every 100 ms.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { FeedRunReport } from '../../src/feeds/feed-run.ts';
import { sampleResidentSet } from '../systems.ts';
import { appliedCounts } from './submit.ts';
import type { FeedRunCounts } from '../../src/feeds/apply-run.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

export interface CommandRun {
  seconds: number;
  peakResidentBytes: number;
  counts: FeedRunCounts;
}

/** Runs the feed command on `file` for the shop; `nodeFlags` for experiments (heap limits). */
export async function runFeedCommand(
  databaseUrl: string,
  shopId: number,
  file: string,
  nodeFlags: string[] = [],
): Promise<CommandRun> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...nodeFlags,
      '--import',
      'tsx',
      'src/main.ts',
      'feed',
      '--shop',
      String(shopId),
      file,
      '--json',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  const memory = sampleResidentSet(child.pid!);
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('exit', resolve);
  });
  const seconds = (performance.now() - started) / 1000;
  const peakResidentBytes = await memory.stop();
  if (code !== 0) throw new Error(`feed command exited with ${code}: ${stderr.trim()}`);
  const report = JSON.parse(stdout) as FeedRunReport;
  return { seconds, peakResidentBytes, counts: appliedCounts(report, 'feed command') };
}
