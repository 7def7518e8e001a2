/**
 * The metrics docs/operations.md lists (its "Metrics" table), so that tests hold the list and
 * the code to each other: every metric exposed is listed, every listed one exposed, and the
 * alert rules name only listed ones.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { root } from './process.ts';

/** The names of the table's first column; `process_*` and `nodejs_*` as those prefixes. */
export function documentedMetrics(): { names: Set<string>; prefixes: string[] } {
  const text = readFileSync(path.join(root, 'docs/operations.md'), 'utf8');
  const section = text.slice(text.indexOf('\n## Metrics\n'), text.indexOf('\n### Alerts and SLOs'));
  const names = new Set<string>();
  const prefixes: string[] = [];
  for (const row of section.split('\n').filter((line) => line.startsWith('| `'))) {
    const firstCell = row.split(' | ')[0]!;
    for (const [, name] of firstCell.matchAll(/`([a-z_]+\*?)(?:\{[^}]*\})?`/g)) {
      if (name!.endsWith('*')) prefixes.push(name!.slice(0, -1));
      else names.add(name!);
    }
  }
  return { names, prefixes };
}

/** Whether a metric family is in the table, by its name or its prefix. */
export function isDocumented(name: string): boolean {
  const { names, prefixes } = documentedMetrics();
  return names.has(name) || prefixes.some((prefix) => name.startsWith(prefix));
}
