// OIDC sign-in to the console against a real OpenID provider (the oidc-provider package, started here): the
// authorization code flow with PKCE in a real browser, the role and party from configured claims, a tampered state
// refused before any code is redeemed, and a replayed code refused by the provider.
import type { Server } from 'node:http';
import type { Sandbox } from '@quill/sandbox';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { shot, startConsoleWallet } from '../../support/console.ts';
import { CLIENT_ID, CLIENT_SECRET, startIdp } from '../../support/oidc-idp.ts';
import { freePort } from '../../support/redis-global-setup.ts';
import { startLedger, walletConfig } from '../../support/wallet.ts';

const ACCOUNTS: Record<string, Record<string, unknown>> = {
  ann: { quill_role: 'approve' },
  pat: { quill_role: ['read', 'admin'], quill_party: 'alice::1220abcd' },
  nobody: {},
};

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let idp: Server;
let browser: TestBrowser;
let consoleUrl = '';
let idpPort = 0;

/**
 * Rewrites the provider's redirect back to the console. A redirect's target cannot be routed in the browser, so the
 * provider's form posts are answered here: their redirects inside the provider are followed with the context's own
 * cookies until one leads to another provider page (shown as usual) or to the console's callback (changed first).
 */
async function rewriteCallback(page: Page, change: (callback: URL) => void): Promise<void> {
  await page.route(
    (url) => url.port === String(idpPort) && url.pathname.startsWith('/interaction/'),
    async (route) => {
      if (route.request().method() !== 'POST') return route.continue();
      let res = await route.fetch({ maxRedirects: 0 });
      for (let hop = 0; hop < 5; hop++) {
        const location = res.headers().location;
        if (!location) break;
        const next = new URL(location, route.request().url());
        if (next.pathname === '/console/oidc/callback') {
          change(next);
          return route.fulfill({ status: 303, headers: { location: next.href } });
        }
        if (next.pathname.startsWith('/interaction/'))
          return route.fulfill({ status: 303, headers: { location: next.href } });
        res = await page.context().request.get(next.href, { maxRedirects: 0 });
      }
      return route.fulfill({ response: res });
    },
  );
}

beforeAll(async () => {
  idpPort = await freePort();
  const walletPort = await freePort();
  consoleUrl = `http://127.0.0.1:${walletPort}`;
  const started = startIdp(idpPort, consoleUrl, ACCOUNTS);
  const issuer = started.issuer;
  idp = started.server;
  sandbox = await startLedger();
  w = await startConsoleWallet(
    sandbox,
    walletConfig(inject('redisUrl'), {
      PORT: String(walletPort),
      CONSOLE_PUBLIC_URL: consoleUrl,
      CONSOLE_OIDC_ISSUER: issuer,
      CONSOLE_OIDC_CLIENT_ID: CLIENT_ID,
      CONSOLE_OIDC_CLIENT_SECRET: CLIENT_SECRET,
      // Its operators carry no party claim: every party, which this deployment allows.
      CONSOLE_OIDC_ALLOW_UNSCOPED: 'true',
    }),
  );
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
  await new Promise((r) => idp?.close(r));
});

/** From the console's sign-in page through the provider's login and consent, up to the callback. */
async function throughProvider(page: Page, account: string): Promise<void> {
  await page.goto(`${consoleUrl}/console/signin`);
  await page.getByTestId('oidc-signin').click();
  await page.locator('input[name="login"]').fill(account);
  await page.locator('input[name="password"]').fill('any');
  await page.locator('button[type="submit"]').click();
  // The consent page (first sign-in of this account with this client).
  const consent = page.locator('button[type="submit"]');
  await consent.waitFor();
  await consent.click();
}

describe('OIDC sign-in', () => {
  it('signs in with the authorization code and PKCE; role and party come from the claims', async () => {
    const ctx = await browser.context();
    const page = await ctx.newPage();
    let authorize: URL | undefined;
    page.on('request', (r) => {
      if (r.url().includes('/auth?')) authorize ??= new URL(r.url());
    });
    await throughProvider(page, 'ann');
    // An approver lands on its approvals.
    await page.waitForURL(`${consoleUrl}/console/approvals`);
    expect(await page.getByTestId('who').textContent()).toContain('oidc:ann · approve');
    expect(authorize?.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize?.searchParams.get('state')).toBeTruthy();
    expect(authorize?.searchParams.get('nonce')).toBeTruthy();
    await shot(page, 'oidc-signed-in');
    await ctx.close();

    const scoped = await browser.context();
    const p2 = await scoped.newPage();
    await throughProvider(p2, 'pat');
    await p2.waitForURL(`${consoleUrl}/console`);
    expect(await p2.getByTestId('who').textContent()).toContain('oidc:pat · admin · alice::1220abcd');
    await scoped.close();
  });

  it('refuses an identity without a console role', async () => {
    const ctx = await browser.context();
    const page = await ctx.newPage();
    await throughProvider(page, 'nobody');
    await page.getByTestId('page-error').waitFor();
    expect(await page.getByTestId('page-error').textContent()).toContain('no console role');
    expect((await ctx.cookies()).some((c) => c.name === 'quill_console')).toBe(false);
    await ctx.close();
  });

  it('refuses a wrong state before redeeming the code', async () => {
    const ctx = await browser.context();
    const page = await ctx.newPage();
    await rewriteCallback(page, (url) => url.searchParams.set('state', 'forged-state'));
    await throughProvider(page, 'ann');
    await page.getByTestId('page-error').waitFor();
    expect(await page.getByTestId('page-error').textContent()).toContain('state does not match');
    expect((await ctx.cookies()).some((c) => c.name === 'quill_console')).toBe(false);
    await ctx.close();
  });

  it('refuses a replayed code (the provider says no), and a replayed callback (our state is spent)', async () => {
    const first = await browser.context();
    const p1 = await first.newPage();
    let callback: URL | undefined;
    p1.on('request', (r) => {
      if (r.url().includes('/console/oidc/callback?')) callback ??= new URL(r.url());
    });
    await throughProvider(p1, 'ann');
    await p1.waitForURL(`${consoleUrl}/console/approvals`); // ann approves: she lands on her approvals
    const usedCode = callback?.searchParams.get('code') ?? '';
    expect(usedCode).not.toBe('');

    // The same callback again in the same browser: the state was spent by its first use.
    await p1.goto(callback?.href ?? '');
    expect(await p1.getByTestId('page-error').textContent()).toMatch(/already used|does not match/);
    await first.close();

    // A new sign-in whose callback carries the old code: our state checks pass, the provider refuses the code.
    const second = await browser.context();
    const p2 = await second.newPage();
    await rewriteCallback(p2, (url) => url.searchParams.set('code', usedCode));
    await throughProvider(p2, 'ann');
    await p2.getByTestId('page-error').waitFor();
    expect(await p2.getByTestId('page-error').textContent()).toContain('identity provider refused');
    expect((await second.cookies()).some((c) => c.name === 'quill_console')).toBe(false);
    await second.close();
  });
});
