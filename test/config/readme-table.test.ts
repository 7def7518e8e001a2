import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { SETTINGS } from '../../src/config.ts';
import { configurationTable, README_FILE, tableRange } from '../../src/config/readme-table.ts';

describe("README's configuration table", () => {
  it('is the one the settings print (npm run config:readme rewrites it)', async () => {
    // Both sides as prettier lays the table out (the printed one goes through prettier's own
    // Markdown formatting), so padding never differs and a README that passes the format
    // check differs only where a setting's declaration and its documentation do.
    const readme = await readFile(README_FILE, 'utf8');
    const { start, end } = tableRange(readme);
    expect(readme.slice(start, end)).toBe(await configurationTable());
  });

  it('has a row per setting, naming each of its variables', async () => {
    const rows = (await configurationTable()).trimEnd().split('\n').slice(2);
    const settings = Object.values(SETTINGS);
    expect(rows).toHaveLength(settings.length);
    settings.forEach((setting, index) => {
      for (const name of setting.names) expect(rows[index]).toContain(`\`${name}\``);
    });
  });
});
