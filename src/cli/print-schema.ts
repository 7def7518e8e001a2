/**
 * The committed API descriptions, printed from the code:
 * - schema/schema.graphql, the schema as SDL, sorted lexicographically so that the order
 *   types and fields register in (import order, one file per type) never shows up as a
 *   change; only a real change to the API does;
 * - docs/openapi.json, the service's OpenAPI document (src/http/openapi.ts), formatted as
 *   prettier formats it, so that `npm run format:check` agrees with it.
 *
 *   tsx src/cli/print-schema.ts          writes both files
 *   tsx src/cli/print-schema.ts --check  exits 1 when a committed file differs
 */
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { format, resolveConfig } from 'prettier';
import { schema } from '../graph/schema.ts';
import { buildOpenApiDocument } from '../http/openapi.ts';
import { restRoutes } from '../rest/routes/index.ts';
import { packageVersion } from '../version.ts';

export const SCHEMA_FILE = fileURLToPath(new URL('../../schema/schema.graphql', import.meta.url));
export const OPENAPI_FILE = fileURLToPath(new URL('../../docs/openapi.json', import.meta.url));

export function printedSchema(): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** The OpenAPI document as docs/openapi.json holds it: formatted by prettier. */
export async function printedOpenApi(): Promise<string> {
  const document = buildOpenApiDocument(restRoutes, { version: packageVersion() });
  const options = await resolveConfig(OPENAPI_FILE);
  return format(JSON.stringify(document), { ...options, filepath: OPENAPI_FILE });
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

interface Printed {
  /** The path in messages, relative to the repository. */
  name: string;
  file: string;
  text: string;
}

async function printedFiles(): Promise<Printed[]> {
  return [
    { name: 'schema/schema.graphql', file: SCHEMA_FILE, text: printedSchema() },
    { name: 'docs/openapi.json', file: OPENAPI_FILE, text: await printedOpenApi() },
  ];
}

async function main(check: boolean): Promise<number> {
  const printed = await printedFiles();
  if (!check) {
    for (const { file, text } of printed) {
      await writeFile(file, text);
      console.log(`wrote ${file}`);
    }
    return 0;
  }
  let status = 0;
  for (const { name, file, text } of printed) {
    const committed = await readFile(file, 'utf8').catch(() => null);
    if (committed === text) {
      console.log(`${name} is up to date`);
      continue;
    }
    console.error(
      committed === null
        ? `${name} is missing.`
        : `${name} differs from what the code builds (- committed, + code), ${firstDifference(committed, text)}\n`,
    );
    console.error(`Run \`npm run schema:print\` and commit ${name}.`);
    status = 1;
  }
  return status;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exitCode = await main(process.argv.includes('--check'));
}
