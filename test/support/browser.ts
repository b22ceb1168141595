// A real browser for the page tests: Debian's chromium through playwright-core, headless, each page
// in a fresh profile (its own --user-data-dir) that is removed afterwards.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { removeTree } from '../../src/paths.js';

export const CHROMIUM = '/usr/bin/chromium';

export interface OpenPage {
  page: Page;
  context: BrowserContext;
  close(): Promise<void>;
}

export async function openPage(url: string, locale: string, viewport = { width: 1280, height: 800 }): Promise<OpenPage> {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'stocklab-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    locale,
    viewport,
  });
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(url);
  return {
    page,
    context,
    async close() {
      await context.close();
      removeTree(profile);
    },
  };
}
