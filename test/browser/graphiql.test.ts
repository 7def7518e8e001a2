/**
 * GraphiQL and Swagger UI in a real browser: Debian's Chromium driven by playwright-core, on
 * the app listening on a seeded catalogue, with every request to another host blocked and
 * recorded. Every GraphiQL example tab runs and shows data; /docs gets a token through "Try it
 * out", authorizes with it and runs partner search. Screenshots go to SCREENSHOT_DIR (else a
 * fresh temporary directory), whose path the output names.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { EXAMPLE_OPERATIONS } from '../../src/graph/graphiql.ts';
import { requirePrerequisite } from '../helpers/prerequisites.ts';
import { serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
requirePrerequisite(
  existsSync(CHROMIUM),
  `the browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`,
);

/** What works here: no sandbox as root, no GPU, and none of Chromium's own traffic. */
const CHROMIUM_FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const BROWSER_TEST_TIMEOUT_MS = 180_000;

const catalogue = useSeededCatalogue();

let served: ServedApp;
let origin: string;
let context: BrowserContext;
let profileDir: string;
let screenshotDir: string;
/** Requests to any other host: refused, and kept here for the assertions. */
const elsewhere: string[] = [];

beforeAll(async () => {
  screenshotDir = await screenshotDirectory();
  console.info(`browser screenshots: ${screenshotDir}`);
  served = await serveApp(catalogue.database);
  origin = `http://127.0.0.1:${served.port}`;
  profileDir = await mkdtemp(path.join(tmpdir(), 'chromium-profile-'));
  context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1600, height: 1000 },
  });
  await context.route('**/*', (route) => {
    if (new URL(route.request().url()).origin === origin) return route.continue();
    elsewhere.push(route.request().url());
    return route.abort('blockedbyclient');
  });
});

afterAll(async () => {
  await context?.close();
  await served?.close();
  if (profileDir) await rm(profileDir, { recursive: true, force: true });
});

async function screenshotDirectory(): Promise<string> {
  const chosen = process.env.SCREENSHOT_DIR;
  if (!chosen) return mkdtemp(path.join(tmpdir(), 'browser-screenshots-'));
  await mkdir(chosen, { recursive: true });
  return chosen;
}

/** A page of the shared context, failing the test on a script error or a console error. */
async function openPage(pathname: string): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.goto(`${origin}${pathname}`);
  return { page, problems };
}

/** An editor's visible text as a reader sees it (Monaco draws spaces as no-break spaces). */
async function editorText(editor: Locator): Promise<string> {
  return (await editor.locator('.view-lines').innerText()).replaceAll('\u00a0', ' ');
}

/** The first string in an answer's data, in document order: text the result pane must show. */
function firstString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (value === null || typeof value !== 'object') return undefined;
  for (const item of Object.values(value)) {
    const found = firstString(item);
    if (found !== undefined) return found;
  }
  return undefined;
}

describe('in a browser, with every other host blocked', () => {
  it(
    'GraphiQL opens on the first example, and every example tab runs and shows data',
    async () => {
      const { page, problems } = await openPage('/graphql');
      const queryEditor = page.locator('.graphiql-query-editor');
      const variablesEditor = page.locator('.graphiql-editor-tool .graphiql-editor').first();
      const resultPane = page.locator('.graphiql-response');
      await expect
        .poll(() => editorText(queryEditor), { timeout: 60_000 })
        .toContain(`query ${EXAMPLE_OPERATIONS[0]!.name}(`);
      expect(await editorText(queryEditor)).not.toContain('Welcome to');

      for (const [index, example] of EXAMPLE_OPERATIONS.entries()) {
        const expected = await catalogue.graphql(example.document, example.variables);
        const shown = firstString(expected.data);
        expect(shown, `${example.name} answers a string to look for`).toBeDefined();

        // By keyboard: the tabs can be dragged, and a pointer's release lands on the tab strip.
        await page.getByRole('button', { name: example.name, exact: true }).focus();
        await page.keyboard.press('Enter');
        const selectedTab = page.getByRole('tab', { selected: true });
        await expect.poll(() => selectedTab.innerText()).toContain(example.name);
        await expect.poll(() => editorText(queryEditor)).toContain(`query ${example.name}`);
        const firstVariable = Object.keys(example.variables)[0]!;
        await expect.poll(() => editorText(variablesEditor)).toContain(`"${firstVariable}"`);
        // GraphiQL reads the operation's name from the editor 100 ms after a change: a Run
        // before that sends the previous tab's name with this tab's document. It stores the
        // editor's text in that same step, which is what the test waits for.
        await expect
          .poll(() => page.evaluate(() => localStorage.getItem('graphiql:query')))
          .toBe(example.document);

        await page.getByRole('button', { name: /^Execute query/ }).click();
        await expect
          .poll(() => editorText(resultPane), { timeout: 30_000 })
          .toContain(JSON.stringify(shown));
        const result = await editorText(resultPane);
        expect(result).toContain('"data"');
        expect(result).not.toContain('"errors"');
        await page.screenshot({
          path: path.join(screenshotDir, `graphiql-${index + 1}-${example.name}.png`),
        });
      }

      // Monaco's editor workers ran from the service's own files.
      const loaded = await page.evaluate(() =>
        performance.getEntriesByType('resource').map((entry) => entry.name),
      );
      const workers = new Set(loaded.filter((url) => url.endsWith('.worker.js')));
      expect([...workers].map((url) => url.replace(/^.*\//, '')).sort()).toEqual([
        'editor.worker.js',
        'graphql.worker.js',
        'json.worker.js',
      ]);
      expect([...workers].every((url) => url.startsWith(`${origin}/graphiql/`))).toBe(true);
      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );

  it(
    'Swagger UI gets a token with "Try it out", authorizes with it and runs partner search',
    async () => {
      const { page, problems } = await openPage('/docs');

      const tokenOperation = page.locator('[id="operations-Authentication-issueToken"]');
      await tokenOperation.locator('.opblock-summary').first().click();
      await tokenOperation.getByRole('button', { name: 'Try it out' }).click();
      await tokenOperation.getByPlaceholder('client_id').fill(DEMO_CLIENT.id);
      await tokenOperation.getByPlaceholder('client_secret').fill(DEMO_CLIENT.secret);
      await tokenOperation.getByRole('button', { name: 'Execute' }).click();
      const tokenResponse = tokenOperation.locator('.live-responses-table tr.response');
      expect(await tokenResponse.locator('.response-col_status').innerText()).toBe('200');
      const token = JSON.parse(
        await tokenResponse.locator('.response-col_description pre').first().innerText(),
      ) as { access_token: string };
      expect(token.access_token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
      await tokenOperation.locator('.responses-wrapper').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(screenshotDir, 'docs-1-token.png') });

      await page.locator('.auth-wrapper .authorize').click();
      const bearer = page.locator('.modal-ux .auth-container', { hasText: 'bearerAuth' });
      await bearer.locator('#auth-bearer-value').fill(token.access_token);
      await bearer.getByRole('button', { name: 'Apply credentials' }).click();
      await expect.poll(() => bearer.innerText()).toContain('Authorized');
      await bearer.getByRole('button', { name: 'Close' }).click();

      const search = page.locator('[id$="-partnerSearchProducts"]');
      await search.locator('.opblock-summary').first().click();
      await search.getByRole('button', { name: 'Try it out' }).click();
      await search.locator('tr[data-param-name="market"] select').selectOption('se');
      await search.getByPlaceholder('ref', { exact: true }).fill(DEMO_CLIENT.ref);
      await search.getByPlaceholder('limit', { exact: true }).fill('2');
      await search.getByRole('button', { name: 'Execute' }).click();
      const searchResponse = search.locator('.live-responses-table tr.response');
      expect(await searchResponse.locator('.response-col_status').innerText()).toBe('200');
      const body = JSON.parse(
        await searchResponse.locator('.response-col_description pre').first().innerText(),
      ) as { data: { name: string; offers: { url: string }[] }[] };
      expect(body.data).toHaveLength(2);
      expect(body.data[0]!.name).toEqual(expect.any(String));
      expect(body.data[0]!.offers[0]!.url).toContain(`ref=${DEMO_CLIENT.ref}`);

      await search.locator('.responses-wrapper').scrollIntoViewIfNeeded();
      await page.screenshot({ path: path.join(screenshotDir, 'docs-2-partner-search.png') });
      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );
});
