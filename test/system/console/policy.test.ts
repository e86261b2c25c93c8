// Governed policy changes in the console, in a real Chromium (issue 29 item 4): an admin proposes a document, sees
// what it changes and cannot approve it herself; Enter in a reason box only rejects; two other admins approve and the
// new version is in force. Garbage in the document is answered beside the form.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '@quill/sandbox';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { expectAccessible, link, shot, signIn, startConsoleWallet } from '../../support/console.ts';
import { tempDir } from '../../support/tmp.ts';
import { startLedger, walletConfig } from '../../support/wallet.ts';

const GOVERNED = `default: deny
groups: { admins: [ann, ben, cat] }
rules:
  - name: small
    match: { amount: { lte: "10" } }
    action: allow
policyGovernance: { quorum: 2, group: admins }
`;

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;

beforeAll(async () => {
  sandbox = await startLedger();
  const file = join(tempDir('quill-console-gov-'), 'policy.yaml');
  writeFileSync(file, GOVERNED);
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { POLICY_FILE: file }));
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

async function as(subject: string, opts?: { bypassCSP?: boolean }): Promise<Page> {
  const page = await (await browser.context(opts)).newPage();
  await signIn(page, await link(w.url, 'admin', undefined, subject));
  await page.goto(`${w.url}/console/policy`);
  return page;
}

async function propose(page: Page, text: string) {
  await page.getByLabel(/The whole new document/).fill(text);
  await Promise.all([
    page.waitForURL(/done=proposal/),
    page.getByRole('button', { name: 'Propose' }).click(),
  ]);
}

const version = async () => (await w.call('GET', '/wallet/v1/policy')).json.version as number;

describe('governed policy changes in the console', () => {
  it('a proposal waits for two other admins; Enter in a reason rejects, never approves', async () => {
    const base = await version();
    const ann = await as('ann');
    await propose(
      ann,
      'default: allow\ngroups: { admins: [ann, ben, cat] }\npolicyGovernance: { quorum: 2, group: admins }\n',
    );
    const card = ann.locator('article.approval');
    await expect.poll(() => card.count()).toBe(1);
    await expect.poll(() => card.getByTestId('diff').textContent()).toContain('rules.small');
    expect(await card.getByRole('button', { name: 'Approve this change' }).count()).toBe(0);
    expect(await card.textContent()).toContain('You proposed it');
    expect(await ann.locator('.notice').textContent()).toContain('Your proposal is filed');
    await shot(ann, 'policy-proposed');

    // ben types a rejection and presses Enter: the proposal is rejected, the policy unchanged.
    const ben = await as('ben');
    await ben.getByLabel('Reason').fill('REJECT: this opens everything');
    await Promise.all([ben.waitForURL(/done=decision/), ben.getByLabel('Reason').press('Enter')]);
    const listed = await w.call('GET', '/wallet/v1/policy/proposals');
    const first = (listed.json.items as { status: string; closedReason: string }[])[0];
    expect(first).toMatchObject({ status: 'rejected' });
    expect(first?.closedReason).toContain('REJECT: this opens everything');
    expect(await version()).toBe(base);

    // A reject without a reason is refused beside the form (the browser's required check bypassed).
    await ann.goto(`${w.url}/console/policy`);
    await propose(
      ann,
      'default: deny\ngroups: { admins: [ann, ben, cat] }\npolicyGovernance: { quorum: 2, group: admins }\n',
    );
    await ben.goto(`${w.url}/console/policy`);
    await ben.locator('input[name=reason]').evaluate((el) => el.removeAttribute('required'));
    await ben.getByRole('button', { name: 'Reject' }).click();
    await expect.poll(() => ben.getByTestId('form-error').textContent()).toContain('Reason');

    await ben.goto(`${w.url}/console/policy`);
    await Promise.all([
      ben.waitForURL(/done=decision/),
      ben.getByRole('button', { name: 'Approve this change' }).click(),
    ]);
    expect(await ben.getByTestId('progress').textContent()).toContain(
      '1 of 2 approvals from admins · ben ✓ · needs 1 more',
    );
    expect(await version()).toBe(base);
    const cat = await as('cat');
    await Promise.all([
      cat.waitForURL(/done=version/),
      cat.getByRole('button', { name: 'Approve this change' }).click(),
    ]);
    expect(await cat.locator('.notice').textContent()).toContain('in force');
    expect(await version()).toBe(base + 1);
    expect(await cat.locator('#h-versions + details summary').first().textContent()).toContain(
      `Version ${base + 1} by ann`,
    );
    await shot(cat, 'policy-applied');
  });

  it('garbage in the document is answered beside the form, and the page passes axe', async () => {
    const ann = await as('ann', { bypassCSP: true });
    await ann.getByLabel(/The whole new document/).fill('rules: [ {name: x, action: approve, quorum: 0} ]');
    await ann.getByRole('button', { name: 'Propose' }).click();
    await expect.poll(() => ann.getByTestId('form-error').textContent()).toContain('rules[0].quorum');
    await ann.getByLabel(/The whole new document/).fill('{{{ not yaml');
    await ann.getByRole('button', { name: 'Propose' }).click();
    await expect.poll(() => ann.getByTestId('form-error').textContent()).toContain('Not YAML or JSON');
    await expectAccessible(ann, 'policy');
  });
});
