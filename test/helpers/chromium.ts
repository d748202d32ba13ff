/**
 * Debian's Chromium for the UI tests, driven by playwright-core (ENGINEERING.md): headless, a
 * fresh profile, none of its own network (without the background-networking flags it tries
 * Google's hosts, which this machine refuses), and a page on which any request that leaves
 * `origin` fails the test.
 *
 * @example
 *   const ui = await openChromium(agent.baseUrl);
 *   await ui.page.goto(agent.adminUrl);
 *   await ui.close();
 */
import fs from 'node:fs';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { tempDir } from './agent.js';

const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export interface OpenChromium {
  context: BrowserContext;
  page: Page;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

export async function openChromium(origin: string, options: { ignoreHTTPSErrors?: boolean } = {}): Promise<OpenChromium> {
  const profileDir = tempDir('sello-chromium-');
  const context = await chromium.launchPersistentContext(profileDir, {
    executablePath: '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    headless: true,
    locale: 'es-EC',
    ...(options.ignoreHTTPSErrors ? { ignoreHTTPSErrors: true } : {}),
  });
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('request', (r) => {
    if (!r.url().startsWith(origin)) throw new Error(`external request: ${r.url()}`);
  });
  return {
    context,
    page,
    async close() {
      await context.close();
      fs.rmSync(profileDir, { recursive: true, force: true });
    },
  };
}
