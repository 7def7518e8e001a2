/**
 * README.md's configuration table, printed from the settings' declarations (settings.ts) and
 * formatted as prettier formats Markdown, so that `npm run format:check` agrees with it.
 *
 *   tsx src/config/readme-table.ts    rewrites the table in README.md
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { SETTINGS, type Setting } from './settings.ts';

export const README_FILE = fileURLToPath(new URL('../../README.md', import.meta.url));

const HEADER = ['variable', 'accepts', 'default', 'meaning'];

/** A Markdown table cell: a `|` in the text would end it. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

function row(setting: Setting<unknown>): string[] {
  const meaning = [setting.meaning, setting.details].filter(Boolean).join('; ');
  const names = setting.names.map((name) => `\`${name}\``).join(', ');
  return [names, setting.parse.accepts, setting.parse.default, meaning];
}

/** The table, one row per setting in declaration order, as prettier lays it out. */
export async function configurationTable(): Promise<string> {
  const rows = [HEADER, HEADER.map(() => '---'), ...Object.values(SETTINGS).map(row)];
  const markdown = rows.map((cells) => `| ${cells.map(cell).join(' | ')} |\n`).join('');
  const options = await resolveConfig(README_FILE);
  return format(markdown, { ...options, filepath: README_FILE });
}

/** Where README's configuration table lies: from its header row to the first other line. */
export function tableRange(readme: string): { start: number; end: number } {
  const start = readme.search(/^\| variable +\|/m);
  if (start === -1) throw new Error('README.md has no configuration table ("| variable |")');
  const after = readme.slice(start).search(/^(?!\|)/m);
  return { start, end: after === -1 ? readme.length : start + after };
}

async function main(): Promise<void> {
  const readme = await readFile(README_FILE, 'utf8');
  const { start, end } = tableRange(readme);
  await writeFile(
    README_FILE,
    readme.slice(0, start) + (await configurationTable()) + readme.slice(end),
  );
  console.log(`wrote the configuration table in ${README_FILE}`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
