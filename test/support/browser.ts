// A real Chromium (Debian's /usr/bin/chromium) driven by playwright-core. playwright gives each launch a fresh
// temporary profile (it refuses --user-data-dir with launch()) and removes it on close.
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export interface TestBrowser {
  browser: Browser;
  /** A fresh context (cookies and storage of its own). */
  context(opts?: { bypassCSP?: boolean }): Promise<BrowserContext>;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  return {
    browser,
    context: (opts) =>
      browser.newContext({
        viewport: { width: 1280, height: 900 },
        ...(opts?.bypassCSP ? { bypassCSP: true } : {}),
      }),
    async close() {
      await browser.close();
    },
  };
}

/** Where page screenshots go during a test run (git-ignored), for review. */
export const SCREENSHOTS = join(process.cwd(), 'test-results', 'console');
