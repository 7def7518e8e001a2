/**
 * GraphiQL and Swagger UI in a real browser: Debian's Chromium driven by playwright-core, on
 * the app listening on a seeded catalogue, with every request to another host blocked and
 * recorded. Every GraphiQL example tab, chosen with a mouse click, runs and shows data; /docs
 * authorizes with the demo client's id and secret (Swagger UI fetching the token itself) and
 * runs partner search with the token. Screenshots go to SCREENSHOT_DIR (else a
 * fresh temporary directory), whose path the output names.
 */
import path from 'node:path';
import type { BrowserContext, Request } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_CLIENT } from '../../seeds/index.ts';
import { TOKEN_PATH } from '../../src/auth/token-endpoint.ts';
import { EXAMPLE_OPERATIONS } from '../../src/graph/graphiql.ts';
import { serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import {
  editorText,
  launchFor,
  openPage as openPageIn,
  requireChromium,
  screenshotDirectory,
  type Browser,
} from './chromium.ts';

requireChromium();

const BROWSER_TEST_TIMEOUT_MS = 180_000;

const catalogue = useSeededCatalogue();

let served: ServedApp;
let origin: string;
let browser: Browser;
let context: BrowserContext;
let screenshotDir: string;
/** Requests to any other host: refused, and kept here for the assertions. */
let elsewhere: string[];

beforeAll(async () => {
  screenshotDir = await screenshotDirectory();
  served = await serveApp(catalogue.database);
  origin = `http://127.0.0.1:${served.port}`;
  browser = await launchFor(origin);
  ({ context, elsewhere } = browser);
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

const openPage = (pathname: string) => openPageIn(context, `${origin}${pathname}`);

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
      // The web fonts arriving resize the tabs, which is what threw them off their place.
      await page.evaluate(() => document.fonts.ready.then(() => undefined));
      // Where each click lands: the tab button's id, else the element's tag.
      await page.evaluate(() => {
        const record = (event: MouseEvent) => {
          const target = event.target as Element;
          document.body.dataset['clicked'] =
            target.closest('.graphiql-tab-button')?.id ?? target.tagName;
        };
        document.addEventListener('click', record, true);
      });

      for (const [index, example] of EXAMPLE_OPERATIONS.entries()) {
        const expected = await catalogue.graphql(example.document, example.variables);
        const shown = firstString(expected.data);
        expect(shown, `${example.name} answers a string to look for`).toBeDefined();

        // A real mouse click (pointer and mouse events at the button's centre), which must land
        // on the tab's button: the tab must not move between press and release (the cause is
        // in graphiql-assets.ts; unfixed, the click lands on the tab bar and nothing switches).
        await page.getByRole('button', { name: example.name, exact: true }).click();
        expect(await page.evaluate(() => document.body.dataset['clicked'])).toBe(
          `graphiql-session-tab-${index}`,
        );
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

      // A narrower window rescales the tabs' drag offsets again; a click still switches.
      await page.setViewportSize({ width: 1200, height: 1000 });
      const first = EXAMPLE_OPERATIONS[0]!;
      await page.getByRole('button', { name: first.name, exact: true }).click();
      expect(await page.evaluate(() => document.body.dataset['clicked'])).toBe(
        'graphiql-session-tab-0',
      );
      await expect
        .poll(() => page.getByRole('tab', { selected: true }).innerText())
        .toContain(first.name);
      await expect.poll(() => editorText(queryEditor)).toContain(`query ${first.name}`);

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
    "Swagger UI's Authorize gets the token itself from a client id and secret, and partner search runs with it",
    async () => {
      const { page, problems } = await openPage('/docs');
      const requests: Request[] = [];
      page.on('request', (request) => requests.push(request));

      await page.locator('.auth-wrapper .authorize').click();
      const oauth = page.locator('.modal-ux .auth-container', { hasText: 'clientCredentials' });
      await expect.poll(() => oauth.innerText()).toContain(TOKEN_PATH);
      await oauth.locator('[data-name="clientId"]').fill(DEMO_CLIENT.id);
      await oauth.locator('[data-name="clientSecret"]').fill(DEMO_CLIENT.secret);
      await oauth.getByRole('button', { name: 'Apply given OAuth2 credentials' }).click();
      await oauth.getByRole('button', { name: 'Remove authorization' }).waitFor();
      expect(await oauth.innerText()).toContain('Authorized');
      await page.screenshot({ path: path.join(screenshotDir, 'docs-1-authorized.png') });
      await oauth.getByRole('button', { name: 'Close' }).click();

      // The token request is Swagger UI's own: client credentials in HTTP Basic, the grant in
      // the form body, to the token endpoint of this origin (the relative tokenUrl resolved).
      const tokenRequests = requests.filter((request) => request.url().endsWith(TOKEN_PATH));
      expect(tokenRequests.map((request) => `${request.method()} ${request.url()}`)).toEqual([
        `POST ${origin}${TOKEN_PATH}`,
      ]);
      const tokenRequest = tokenRequests[0]!;
      const basic = `${DEMO_CLIENT.id}:${DEMO_CLIENT.secret}`;
      expect(await tokenRequest.headerValue('authorization')).toBe(
        `Basic ${Buffer.from(basic).toString('base64')}`,
      );
      expect(new URLSearchParams(tokenRequest.postData() ?? '').get('grant_type')).toBe(
        'client_credentials',
      );
      const tokenResponse = (await tokenRequest.response())!;
      expect(tokenResponse.status()).toBe(200);
      const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
      expect(token).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);

      const search = page.locator('[id$="-partnerSearchProducts"]');
      await search.locator('.opblock-summary').first().click();
      await search.getByRole('button', { name: 'Try it out' }).click();
      await search.locator('tr[data-param-name="market"] select').selectOption('se');
      await search.getByPlaceholder('ref', { exact: true }).fill(DEMO_CLIENT.ref);
      await search.getByPlaceholder('limit', { exact: true }).fill('2');
      const searchRequest = page.waitForRequest((request) =>
        request.url().includes(`ref=${DEMO_CLIENT.ref}`),
      );
      await search.getByRole('button', { name: 'Execute' }).click();
      expect(await (await searchRequest).headerValue('authorization')).toBe(`Bearer ${token}`);
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
      expect(requests.filter((request) => request.url().endsWith(TOKEN_PATH))).toHaveLength(1);
      expect(problems).toEqual([]);
      expect(elsewhere).toEqual([]);
      await page.close();
    },
    BROWSER_TEST_TIMEOUT_MS,
  );
});
