/**
 * What the browser tests share: Debian's Chromium driven by playwright-core (its path, the
 * flags that work here), a persistent context with every request to another host refused and
 * recorded, pages that collect their script and console errors, the directory screenshots go
 * to, and the text of a GraphiQL (Monaco) editor as a reader sees it.
 */
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Locator, type Page } from 'playwright-core';
import { requirePrerequisite } from '../helpers/prerequisites.ts';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Fails the file at once, in one line, without Chromium. */
export function requireChromium(): void {
  requirePrerequisite(
    existsSync(CHROMIUM),
    `the browser tests need Chromium at ${CHROMIUM}: apt-get install -y chromium (or set CHROMIUM_PATH)`,
  );
}

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

export interface Browser {
  context: BrowserContext;
  /** Requests to any other host: refused, and kept here for the assertions. */
  elsewhere: string[];
  close(): Promise<void>;
}

/** A fresh profile's context, reaching `origin` only. */
export async function launchFor(origin: string): Promise<Browser> {
  const profileDir = await mkdtemp(path.join(tmpdir(), 'chromium-profile-'));
  const elsewhere: string[] = [];
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: CHROMIUM,
    args: CHROMIUM_FLAGS,
    viewport: { width: 1600, height: 1000 },
  });
  await context.route('**/*', (route) => {
    if (new URL(route.request().url()).origin === origin) return route.continue();
    elsewhere.push(route.request().url());
    return route.abort('blockedbyclient');
  });
  return {
    context,
    elsewhere,
    async close() {
      await context.close();
      await rm(profileDir, { recursive: true, force: true });
    },
  };
}

/** SCREENSHOT_DIR, else a new temporary directory; printed. */
export async function screenshotDirectory(): Promise<string> {
  const chosen = process.env.SCREENSHOT_DIR;
  const directory = chosen ?? (await mkdtemp(path.join(tmpdir(), 'browser-screenshots-')));
  if (chosen) await mkdir(chosen, { recursive: true });
  console.info(`browser screenshots: ${directory}`);
  return directory;
}

/** A page of the context at `url`, collecting its script errors and console errors. */
export async function openPage(
  context: BrowserContext,
  url: string,
): Promise<{ page: Page; problems: string[] }> {
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  await page.goto(url);
  return { page, problems };
}

/** An editor's visible text as a reader sees it (Monaco draws spaces as no-break spaces). */
export async function editorText(editor: Locator): Promise<string> {
  return (await editor.locator('.view-lines').innerText()).replaceAll('\u00a0', ' ');
}
