// An external key holder signs in the console (signature rounds), in a real Chromium under the console's CSP
// against a whole wallet on the embedded sandbox: the sign page shows the sentence, the hash in hex and base64,
// the deadline and who is awaited; a signature that does not verify is refused beside the form; a good one counts
// and queues the submission; a read-only operator sees no form; the submission page shows the round; axe.
import type { Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Role } from '../../../src/auth/index.ts';
import { prepared } from '../../support/api-harness.ts';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { expectAccessible, link, shot, signIn, startConsoleWallet } from '../../support/console.ts';
import { externalKey, multiSigParty } from '../../support/signing-sets.ts';
import { startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl')));
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

const path = (p: string) => `${w.url}/console${p}`;

async function person(subject: string, role: Role = 'approve', bypassCSP = false): Promise<Page> {
  // Only the accessibility scan bypasses the CSP (to inject axe); the flows run under it.
  const ctx = await browser.context(bypassCSP ? { bypassCSP } : undefined);
  contexts.push(ctx);
  const page = await ctx.newPage();
  await signIn(page, await link(w.url, role, undefined, subject));
  return page;
}

describe('signing a submission in the console', () => {
  it('shows the round, refuses a bad signature inline, counts a good one and queues it', async () => {
    const holder = externalKey('ed25519', 'dana hardware wallet');
    const other = externalKey('p256', 'erik yubikey');
    const p = await multiSigParty(w.registry, w.keys, { quill: 1, external: [holder, other], threshold: 2 });
    const tx = prepared(p.partyId);
    const hash = Buffer.from(tx.hashHex, 'hex');
    const res = await w.call('POST', '/wallet/v1/submissions', tx.body);
    expect(res.json, JSON.stringify(res.json)).toMatchObject({ status: 'awaiting_signatures' });
    const id = res.json.id as string;

    const dana = await person('dana');
    await dana.goto(path(`/submissions/${id}/sign`));
    expect(await dana.getByTestId('sentence').textContent()).toBeTruthy();
    expect(await dana.getByTestId('hash-hex').textContent()).toBe(tx.hashHex);
    expect(await dana.getByTestId('hash-base64').textContent()).toBe(tx.hashB64);
    expect(await dana.getByTestId('signed').textContent()).toBe('1 of 2');
    const keys = (await dana.getByTestId('round-keys').textContent()) ?? '';
    expect(keys).toContain('dana hardware wallet');
    expect(keys).toContain('awaited');
    await shot(dana, 'sign-page');
    const scan = await person('scan', 'approve', true);
    await scan.goto(path(`/submissions/${id}/sign`));
    await expectAccessible(scan, 'sign');
    await scan.goto(path(`/submissions/${id}`));
    await expectAccessible(scan, 'submission-awaiting-signatures');

    // A signature over other bytes: refused beside the form, the round unchanged.
    await dana.getByLabel('Signed by').selectOption(holder.entry.fingerprint);
    await dana.getByLabel('Algorithm').selectOption('SIGNING_ALGORITHM_SPEC_ED25519');
    await dana.getByLabel('Signature (base64)').fill(holder.sign(Buffer.alloc(32, 7)).signature);
    await dana.getByRole('button', { name: 'Post the signature' }).click();
    await dana.waitForLoadState('load');
    expect(await dana.locator('main').textContent()).toContain('does not verify');
    expect(await dana.getByTestId('signed').textContent()).toBe('1 of 2');

    await dana.getByLabel('Signed by').selectOption(holder.entry.fingerprint);
    await dana.getByLabel('Algorithm').selectOption('SIGNING_ALGORITHM_SPEC_ED25519');
    await dana.getByLabel('Signature (base64)').fill(holder.sign(hash).signature);
    await dana.getByRole('button', { name: 'Post the signature' }).click();
    await dana.waitForURL(/signed=queued/);
    expect(await dana.getByTestId('flash').textContent()).toContain('queued');
    const rec = await w.call('GET', `/wallet/v1/submissions/${id}`);
    expect(rec.json.status).not.toBe('awaiting_signatures');

    // The submission page shows who signed.
    await dana.goto(path(`/submissions/${id}`));
    expect(await dana.getByTestId('round-progress').textContent()).toContain('2 of 2 signatures');
  });

  it('a read-only operator sees the round and no form', async () => {
    const holder = externalKey();
    const p = await multiSigParty(w.registry, w.keys, { quill: 1, external: [holder], threshold: 2 });
    const res = await w.call('POST', '/wallet/v1/submissions', prepared(p.partyId).body);
    const reader = await person('rita', 'read');
    await reader.goto(path(`/submissions/${res.json.id as string}/sign`));
    expect(await reader.getByTestId('signed').textContent()).toBe('1 of 2');
    expect(await reader.getByRole('button', { name: 'Post the signature' }).count()).toBe(0);
    expect(await reader.locator('main').textContent()).toContain('needs the approve role');
  });
});
