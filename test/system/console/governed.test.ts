// Governed parties in the console (issue 33), in a real Chromium under the console's CSP against a whole wallet on
// the strict sandbox: an admin onboards a party with several keys (a new cold namespace key), its page shows its
// keys, who holds each, the threshold and its hosts; a party's open signature rounds are listed with who is
// awaited and a link to sign; a bad threshold is refused beside the form. axe on each page.
import type { Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { prepared } from '../../support/api-harness.ts';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { expectAccessible, link, shot, signIn, startConsoleWallet } from '../../support/console.ts';
import { externalKey, multiSigParty } from '../../support/signing-sets.ts';
import { startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
let ctx: BrowserContext;
let page: Page;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl')));
  browser = await launchBrowser();
  // axe is injected, so this context bypasses the CSP; the flows are the same under it (security.test.ts).
  ctx = await browser.context({ bypassCSP: true });
  page = await ctx.newPage();
  await signIn(page, await link(w.url, 'admin', undefined, 'custody-admin'));
}, 90_000);

afterAll(async () => {
  await ctx?.close().catch(() => undefined);
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

const path = (p: string) => `${w.url}/console${p}`;

describe('governed parties in the console', () => {
  it('onboards a party with two of its keys, then shows its keys, holders and threshold', async () => {
    const a = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'vault-a' });
    const b = await w.call('POST', '/wallet/v1/keys', { algorithm: 'p256', label: 'vault-b' });
    await page.goto(path('/parties'));
    const form = page.getByTestId('onboard-governed');
    await expectAccessible(page, 'parties with the governed form');
    await form.getByLabel(/vault-a/).check();
    await form.getByLabel(/vault-b/).check();
    await form.getByLabel('How many must sign').fill('3');
    await form.getByLabel('Hint of the new party').fill('vault');
    await form.getByRole('button', { name: 'Create the party' }).click();
    await page.waitForLoadState('load');
    expect(await form.textContent()).toContain('a whole number from 1 to 2');

    await form.getByLabel(/vault-a/).check();
    await form.getByLabel(/vault-b/).check();
    await form.getByLabel('How many must sign').fill('2');
    await form.getByLabel('Hint of the new party').fill('vault');
    await Promise.all([
      page.waitForURL(/\/console\/parties\/vault/),
      form.getByRole('button', { name: 'Create the party' }).click(),
    ]);
    expect(await page.getByTestId('party-threshold').textContent()).toContain('2 of 2 keys');
    const keys = (await page.getByTestId('party-keys').textContent()) ?? '';
    expect(keys).toContain(a.json.label as string);
    expect(keys).toContain('Quill (signs at once)');
    expect(await page.getByTestId('party-hosts').textContent()).toContain('this wallet’s participant');
    // The namespace key is a new key, not one of the two.
    const party = decodeURIComponent(page.url().split('/parties/')[1] ?? '');
    expect(party.endsWith(a.json.fingerprint as string)).toBe(false);
    expect(party.endsWith(b.json.fingerprint as string)).toBe(false);
    await expectAccessible(page, 'governed party');
    await shot(page, 'governed-party');
  });

  it("lists a party's open signature rounds, who is awaited, and links each to its sign page", async () => {
    const holder = externalKey('ed25519', 'ana ledger nano');
    const p = await multiSigParty(w.registry, w.keys, {
      quill: 1,
      external: [holder],
      threshold: 2,
      hint: 'duo',
    });
    const res = await w.call('POST', '/wallet/v1/submissions', prepared(p.partyId).body);
    expect(res.json.status).toBe('awaiting_signatures');
    await page.goto(path(`/parties/${encodeURIComponent(p.partyId)}`));
    const rounds = (await page.getByTestId('party-rounds').textContent()) ?? '';
    expect(rounds).toContain('1 of 2 signed, awaiting ana ledger nano · closes');
    expect((await page.getByTestId('party-keys').textContent()) ?? '').toContain('an external signer');
    await expectAccessible(page, 'party with an open round');
    await shot(page, 'governed-party-round');
    await Promise.all([
      page.waitForURL(/\/sign$/),
      page.getByTestId('party-rounds').getByRole('link', { name: 'Sign it' }).click(),
    ]);
    expect(await page.getByTestId('signed').textContent()).toBe('1 of 2');
  });
});
