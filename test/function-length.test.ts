/**
 * No function in src/ is longer than MAX_LINES lines unless the comment above it says why
 * ("Long because …"): a long function is usually several jobs, and a reader should be told
 * when it is not.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 100;
const SOURCE = path.resolve(import.meta.dirname, '../src');
const REASON = /\bLong because\b/;

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The comments before a node and, for a function held by a declaration, before that. */
function commentsAbove(node: ts.Node, text: string): string {
  let holder: ts.Node = node;
  while (
    holder.parent &&
    (ts.isVariableDeclaration(holder.parent) ||
      ts.isVariableDeclarationList(holder.parent) ||
      ts.isVariableStatement(holder.parent) ||
      ts.isPropertyAssignment(holder.parent) ||
      ts.isExportAssignment(holder.parent))
  ) {
    holder = holder.parent;
  }
  const ranges = [
    ...(ts.getLeadingCommentRanges(text, holder.getFullStart()) ?? []),
    ...(ts.getLeadingCommentRanges(text, node.getFullStart()) ?? []),
  ];
  return ranges.map((range) => text.slice(range.pos, range.end)).join('\n');
}

/** Every function of a file longer than MAX_LINES without a stated reason. */
function unexplainedLongFunctions(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > MAX_LINES && !REASON.test(commentsAbove(node, text))) {
        found.push(`${path.relative(SOURCE, file)}:${first + 1} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('functions in src/', () => {
  it(`are at most ${MAX_LINES} lines, or say why above them`, () => {
    expect(sourceFiles(SOURCE).flatMap(unexplainedLongFunctions)).toEqual([]);
  });
});
