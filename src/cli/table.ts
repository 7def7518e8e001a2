/** What list commands print for a person: one line per row under a heading, in aligned columns. */
export function formatTable(headings: readonly string[], rows: readonly string[][]): string {
  const widths = headings.map((heading, column) =>
    Math.max(heading.length, ...rows.map((row) => row[column]!.length)),
  );
  return [headings, ...rows]
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column]!))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}
