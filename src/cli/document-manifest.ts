/**
 * A persisted documents manifest as the frontend tools write it, checked before anything is
 * stored: Relay's `persist` output and GraphQL Code Generator's client-preset
 * `persisted-documents.json` are both one JSON object, `{ "<hash>": "<document text>" }`. Each
 * key must be the sha256 of its text (what clients send, and what the service looks up), and
 * each document must be valid against the schema this service serves.
 */
import { GraphQLError, parse, validate, type GraphQLSchema } from 'graphql';
import type { TrustedDocument } from '../db/repositories/trusted-documents.ts';
import { isSha256Hex, sha256Hex } from '../graph/document-ids.ts';

export interface ManifestProblem {
  /** The entry's key as the manifest has it. */
  key: string;
  reason: string;
}

export interface CheckedManifest {
  documents: TrustedDocument[];
  problems: ManifestProblem[];
}

/** The manifest's entries, or why the text is not a manifest at all. */
export function manifestEntries(text: string): [key: string, document: unknown][] | string {
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (error) {
    return `not JSON (${(error as Error).message})`;
  }
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest)) {
    return 'not a manifest: expected a JSON object { "<sha256 hex>": "<document>" }';
  }
  return Object.entries(manifest);
}

function invalidity(schema: GraphQLSchema, text: string): string | undefined {
  let errors: readonly GraphQLError[];
  try {
    errors = validate(schema, parse(text));
  } catch (error) {
    if (!(error instanceof GraphQLError)) throw error;
    errors = [error];
  }
  return errors.length === 0 ? undefined : errors.map((error) => error.message).join('; ');
}

/** Every entry checked: the documents to store, and what is wrong with the others. */
export function checkManifest(
  schema: GraphQLSchema,
  entries: readonly [string, unknown][],
): CheckedManifest {
  const documents: TrustedDocument[] = [];
  const problems: ManifestProblem[] = [];
  for (const [key, document] of entries) {
    const hash = key.replace(/^sha256:/, '');
    if (typeof document !== 'string') {
      problems.push({ key, reason: 'the document is not a string' });
    } else if (!isSha256Hex(hash)) {
      problems.push({
        key,
        reason:
          'the key is not a sha256 (64 lowercase hex digits): have the tool hash with sha256 ' +
          "(Relay: persistConfig's algorithm SHA256; codegen: persistedDocuments.hashAlgorithm sha256)",
      });
    } else if (sha256Hex(document) !== hash) {
      problems.push({
        key,
        reason: `the key is not the sha256 of its document (${sha256Hex(document)})`,
      });
    } else {
      const invalid = invalidity(schema, document);
      if (invalid === undefined) documents.push({ hash, document });
      else problems.push({ key, reason: `invalid against the schema: ${invalid}` });
    }
  }
  return { documents, problems };
}
