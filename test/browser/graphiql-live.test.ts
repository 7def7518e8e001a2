/**
 * README's live example, followed in a real browser (Debian's Chromium driven by
 * playwright-core, every other host blocked): GraphiQL's last tab, the PriceDrops
 * subscription (the document README shows), chosen with a click and run; then README's push,
 * its body and path as README writes them, sent with a token of shop 1's client; the event
 * appears in GraphiQL's answer pane with the product's new lowest price.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { EXAMPLE_OPERATIONS, LIVE_EXAMPLE } from '../../src/graph/graphiql.ts';
import { shopToken } from '../feeds/shop-client.ts';
import { root } from '../helpers/process.ts';
import { serveApp, type ServedApp } from '../helpers/raw-http.ts';
import { useSeededCatalogue } from '../helpers/seeded.ts';
import { waitUntil } from '../live/live-pushes.ts';
import {
  editorText,
  launchFor,
  openPage,
  requireChromium,
  screenshotDirectory,
  type Browser,
} from './chromium.ts';

requireChromium();

const catalogue = useSeededCatalogue();
let served: ServedApp;
let origin: string;
let browser: Browser;
let screenshotDir: string;

/** README's "Live prices" section: its subscription and its push (body, path). */
async function readmeExample() {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const section = readme.slice(
    readme.indexOf('### Live prices'),
    readme.indexOf('\n## ', readme.indexOf('### Live prices')),
  );
  const subscription = /```graphql\n([\s\S]*?)\n```/.exec(section)?.[1];
  const curl = /-d '(\[.*\])' \\\n\s*"http:\/\/localhost:4000(\/[^"]+)"/.exec(section);
  if (!subscription || !curl)
    throw new Error("README's live example is not where the test reads it");
  return { subscription, body: curl[1]!, path: curl[2]! };
}

beforeAll(async () => {
  screenshotDir = await screenshotDirectory();
  served = await serveApp(catalogue.database);
  // Listening before the push, so that its run's announcement is heard.
  await served.app.listening;
  origin = `http://127.0.0.1:${served.port}`;
  browser = await launchFor(origin);
});

afterAll(async () => {
  await browser?.close();
  await served?.close();
});

it("follows README's live example: the PriceDrops tab runs, README's push arrives in it", async () => {
  const readme = await readmeExample();
  expect(readme.subscription).toBe(LIVE_EXAMPLE.document);

  const { page, problems } = await openPage(browser.context, `${origin}/graphql`);
  const queryEditor = page.locator('.graphiql-query-editor');
  const resultPane = page.locator('.graphiql-response');
  await expect
    .poll(() => editorText(queryEditor), { timeout: 60_000 })
    .toContain(`query ${EXAMPLE_OPERATIONS[0]!.name}(`);
  await page.evaluate(() => document.fonts.ready.then(() => undefined));

  // The last tab, with a mouse click.
  await page.getByRole('button', { name: LIVE_EXAMPLE.name, exact: true }).click();
  await expect
    .poll(() => page.getByRole('tab', { selected: true }).innerText())
    .toContain(LIVE_EXAMPLE.name);
  await expect.poll(() => editorText(queryEditor)).toContain(`subscription ${LIVE_EXAMPLE.name}(`);
  // GraphiQL takes the operation's name from the editor 100 ms after a change (see graphiql.test.ts).
  await expect
    .poll(() => page.evaluate(() => localStorage.getItem('graphiql:query')))
    .toBe(LIVE_EXAMPLE.document);
  await page.getByRole('button', { name: /^Execute query/ }).click();
  await waitUntil(() => served.app.liveSubscriptions() === 1, 30_000);

  // README's push, as a shop's client made for shop 1 sends it.
  const token = await shopToken(
    catalogue.database.db,
    (p, init) => fetch(`${origin}${p}`, init),
    1,
  );
  const pushed = await fetch(`${origin}${readme.path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: readme.body,
  });
  expect(pushed.status).toBe(200);
  expect(await pushed.json()).toMatchObject({ state: 'applied', counts: { updated: 1 } });

  // The product README's item names by its GTIN.
  const { name } = await catalogue.database.db
    .selectFrom('products')
    .innerJoin('gtins', 'gtins.product_id', 'products.id')
    .select('products.name')
    .where('gtins.gtin', 'like', `%${JSON.parse(readme.body)[0].gtin}`)
    .executeTakeFirstOrThrow();
  await expect.poll(() => editorText(resultPane), { timeout: 30_000 }).toContain('"priceDropped"');
  const shown = await editorText(resultPane);
  expect(shown).toContain('"value": 2999');
  expect(shown).not.toContain('"errors"');
  expect(shown).toContain(JSON.stringify(name));
  await page.screenshot({ path: path.join(screenshotDir, 'graphiql-live-price-drops.png') });
  expect(problems).toEqual([]);
  expect(browser.elsewhere).toEqual([]);
  await page.close();
}, 180_000);
