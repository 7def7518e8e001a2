/**
 * What `npm run bench:feeds` and `npm run bench:live` share: the parts asked for, the
 * machine and its load printed before and after, the bench-scale catalogue in a database of
 * the bench's own, and the table of measured against target at the end.
 */
import os from 'node:os';
import { prepareCatalogue } from './catalogue.ts';

/** The parts `--only` names (every part without it); an unknown name is refused. */
export function chosenParts<Part extends string>(
  only: string | undefined,
  all: readonly Part[],
): Part[] {
  const parts = only?.split(',').map((part) => part.trim()) ?? [...all];
  for (const part of parts) {
    if (!(all as readonly string[]).includes(part)) {
      throw new Error(`--only: no part ${part}; the parts are ${all.join(', ')}`);
    }
  }
  return parts as Part[];
}

const loadAverage = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

export interface PartsBench<Results> {
  /** The command's name in its log lines: `bench:feeds`. */
  name: string;
  /** The report's heading: `Feeds in`. */
  title: string;
  /** The bench's own database on the server. */
  database: string;
  serverUrl: string;
  quick: boolean;
  run(databaseUrl: string, log: (line: string) => void): Promise<Results>;
  table(results: Results): string;
}

export async function runPartsBench<Results>(bench: PartsBench<Results>): Promise<void> {
  const log = (line: string) => process.stderr.write(`${bench.name}  ${line}\n`);
  const machine =
    `${os.cpus().length} cores (${os.cpus()[0]?.model ?? 'unknown'}), ` +
    `${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
  log(`${machine}, load average ${loadAverage()}`);
  const databaseUrl = await prepareCatalogue(bench.serverUrl, 'bench', log, bench.database);
  const started = performance.now();
  const results = await bench.run(databaseUrl, log);
  const minutes = (performance.now() - started) / 60_000;
  console.log(`\n## ${bench.title}${bench.quick ? ' (quick sizes)' : ''}: ${bench.database}\n`);
  console.log(
    `Machine: ${machine}. Load average after: ${loadAverage()} (1, 5, 15 min). ` +
      `Whole run ${minutes.toFixed(1)} min.\n`,
  );
  console.log(bench.table(results));
}
