/**
 * `documents`: add the trusted documents of a manifest, and list those stored
 * (docs/operations.md, "Trusted documents"). A manifest is stored whole or not at all: a build
 * whose clients would meet an unknown id fails its deployment step, not its users. What a
 * command prints on stdout is its result (with `--json`, for scripts); its log lines go to
 * stderr.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Kind, parse } from 'graphql';
import type { Config } from '../config.ts';
import {
  insertTrustedDocuments,
  listTrustedDocuments,
  type ListedTrustedDocument,
} from '../db/repositories/trusted-documents.ts';
import type { Logger } from '../logger.ts';
import type { ParsedValues } from './command-line.ts';
import type { ADD_DOCUMENTS, LIST_DOCUMENTS } from './commands.ts';
import { withMigratedDatabase } from './database.ts';
import { checkManifest, manifestEntries } from './document-manifest.ts';
import { CommandError, UsageError } from './errors.ts';
import { formatTable } from './table.ts';

function print(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

async function readManifest(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
  }
}

export async function addDocuments(
  config: Config,
  logger: Logger,
  values: ParsedValues<typeof ADD_DOCUMENTS.options>,
  [file]: string[],
): Promise<void> {
  const entries = manifestEntries(await readManifest(file!));
  if (typeof entries === 'string') throw new UsageError(`${file} is ${entries}`);
  // Loaded only here: the schema is the service's whole type system.
  const { schema } = await import('../graph/schema.ts');
  const { documents, problems } = checkManifest(schema, entries);
  if (problems.length > 0) {
    throw new CommandError(
      [
        `${file}: ${problems.length} of ${entries.length} documents refused; none stored:`,
        ...problems.map(({ key, reason }) => `  ${key}: ${reason}`),
      ].join('\n'),
    );
  }
  const source = values.source ?? path.basename(file!);
  const added = await withMigratedDatabase(config, logger, 'documents', (database) =>
    insertTrustedDocuments(database.db, documents, source),
  );
  logger.info({ source, added: added.length, documents: documents.length }, 'documents added');
  const report = { added, alreadyStored: documents.length - added.length };
  print(
    values.json
      ? JSON.stringify(report)
      : `${added.length} added, ${report.alreadyStored} already stored (${source})`,
  );
}

/** The names of the document's operations, for a person to recognise it by. */
function operationsOf(document: string): string[] {
  try {
    return parse(document).definitions.flatMap((definition) =>
      definition.kind === Kind.OPERATION_DEFINITION
        ? [definition.name?.value ?? `(anonymous ${definition.operation})`]
        : [],
    );
  } catch {
    return ['(does not parse)'];
  }
}

function listEntry(document: ListedTrustedDocument) {
  return {
    documentId: `sha256:${document.hash}`,
    operations: operationsOf(document.document),
    source: document.source,
    addedAt: document.addedAt,
    document: document.document,
  };
}

export async function listDocuments(
  config: Config,
  logger: Logger,
  values: ParsedValues<typeof LIST_DOCUMENTS.options>,
): Promise<void> {
  const entries = await withMigratedDatabase(config, logger, 'documents', async (database) =>
    (await listTrustedDocuments(database.db)).map(listEntry),
  );
  if (values.json) return print(JSON.stringify(entries));
  if (entries.length === 0) return print('no trusted documents yet (add stores a manifest)');
  const rows = entries.map((entry) => [
    entry.documentId,
    entry.operations.join(', '),
    entry.source,
    entry.addedAt,
  ]);
  print(formatTable(['DOCUMENT ID', 'OPERATIONS', 'SOURCE', 'ADDED'], rows));
}
