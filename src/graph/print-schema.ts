/**
 * The schema as SDL, for schema/schema.graphql: printed from the code, sorted
 * lexicographically so that the order types and fields register in (import order, one file
 * per type) never shows up as a change; only a real change to the API does.
 *
 *   tsx src/graph/print-schema.ts          writes schema/schema.graphql
 *   tsx src/graph/print-schema.ts --check  exits 1 when the committed file differs
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../../schema/schema.graphql', import.meta.url));

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/**
 * Where the committed file and the code first differ, with two lines of context from each:
 * enough to see what changed; `git diff` after `npm run schema:print` shows the rest.
 */
export function firstDifference(committed: string, printed: string): string {
  const before = committed.split('\n');
  const after = printed.split('\n');
  let line = 0;
  while (line < before.length && line < after.length && before[line] === after[line]) line++;
  const excerpt = (lines: string[], mark: string) =>
    lines
      .slice(Math.max(0, line - 2), line + 3)
      .map((text) => `${mark} ${text}`)
      .join('\n');
  return [
    `first difference at line ${line + 1} (committed ${before.length} lines, code ${after.length}):`,
    excerpt(before, '-'),
    excerpt(after, '+'),
  ].join('\n');
}

async function main(check: boolean): Promise<number> {
  const printed = printedSchema();
  if (!check) {
    await writeFile(SCHEMA_FILE, printed);
    console.log(`wrote ${SCHEMA_FILE}`);
    return 0;
  }
  const committed = await readFile(SCHEMA_FILE, 'utf8').catch(() => null);
  if (committed === printed) {
    console.log('schema/schema.graphql is up to date');
    return 0;
  }
  console.error(
    committed === null
      ? 'schema/schema.graphql is missing.'
      : `schema/schema.graphql differs from the schema the code builds (- committed, + code), ${firstDifference(committed, printed)}\n`,
  );
  console.error('Run `npm run schema:print` and commit schema/schema.graphql.');
  return 1;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.includes('--check'));
}
