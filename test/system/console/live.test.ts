// Issue 30 item 5 in a real Chromium against a whole wallet on the embedded sandbox: live updates over one event
// stream per tab. A status change is patched into the row in place and a new row waits behind "1 new — show", so the
// row under the pointer does not move; nothing polls; the approvals list and the navigation's badge follow new
// submissions; a submission's page reloads on its change, or, while the operator types a reason, offers to.
import type { Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import {
  GATED,
  gatedPolicy,
  link,
  shot,
  signIn,
  startConsoleWallet,
  submitFor,
} from '../../support/console.ts';
import { SECRET, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
let ctx: BrowserContext;
let page: Page;
let party = '';
let approver = '';
/** Requests the page made, by path. */
const requests: string[] = [];

type Rec = { id: string; status: string; preparedTransactionHash: string };

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { POLICY_FILE: gatedPolicy() }));
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'live' });
  const made = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'live',
  });
  party = made.json.partyId as string;
  approver = await issueToken({ secret: SECRET, role: 'approve', ttlSeconds: 600, subject: 'api-approver' });
  browser = await launchBrowser();
  ctx = await browser.context();
  page = await ctx.newPage();
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await signIn(page, await link(w.url, 'admin', undefined, 'live-admin'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

const path = (p: string) => `${w.url}/console${p}`;

const submit = (gated = false) => submitFor<Rec>(w, party, gated ? GATED : undefined);

async function status(id: string, want: string): Promise<void> {
  await expect
    .poll(async () => (await w.call('GET', `/wallet/v1/submissions/${id}`)).json.status, { timeout: 20_000 })
    .toBe(want);
}

async function approve(rec: Rec): Promise<void> {
  const res = await w.call(
    'POST',
    `/wallet/v1/submissions/${rec.id}/approvals`,
    { decision: 'approve', hash: rec.preparedTransactionHash },
    approver,
  );
  expect(res.status).toBe(200);
}

/** The page's event stream is open (console.js marks the document). */
async function live(p: Page): Promise<void> {
  await p.waitForSelector('html[data-live="on"]', { timeout: 10_000 });
}

describe('live updates over one event stream per tab', () => {
  it('patches a status in place and holds a new row behind "1 new — show"; the row under the pointer stays', async () => {
    for (let i = 0; i < 3; i++) await status((await submit()).id, 'committed');
    const held = await submit(true);
    await status(held.id, 'awaiting_approval');
    requests.length = 0;
    await page.goto(path('/submissions'));
    await live(page);
    const row = page.locator(`tr[data-id="${held.id}"]`);
    expect(await row.locator('[data-status]').getAttribute('data-status')).toBe('awaiting_approval');
    await row.hover();
    const box = await row.boundingBox();
    if (!box) throw new Error('the row is not shown');
    expect(await page.getByTestId('live-bar').isHidden()).toBe(true);

    // Nothing happens: nothing is fetched (no polling).
    await new Promise((r) => setTimeout(r, 4000));
    expect(requests.filter((p) => p.startsWith('/console/submissions'))).toEqual(['/console/submissions']);

    await approve(held);
    const added = await submit();
    await expect
      .poll(() => row.locator('[data-status]').getAttribute('data-status'), { timeout: 20_000 })
      .toBe('committed');
    await expect
      .poll(() => page.getByTestId('live-bar').textContent(), { timeout: 20_000 })
      .toMatch(/^1 new/);
    // The new row is not in the table yet, and the row under the pointer has not moved.
    expect(await page.locator(`tr[data-id="${added.id}"]`).count()).toBe(0);
    expect(await row.boundingBox()).toEqual(box);
    type Row = { getAttribute(n: string): string | null };
    type Doc = { elementFromPoint(x: number, y: number): { closest(s: string): Row | null } | null };
    const under = await page.evaluate(
      ([x, y]) =>
        (globalThis as unknown as { document: Doc }).document
          .elementFromPoint(x as number, y as number)
          ?.closest('tr')
          ?.getAttribute('data-id'),
      [box.x + 5, box.y + box.height / 2],
    );
    expect(under).toBe(held.id);
    expect(await page.getByRole('status').filter({ hasText: 'committed' }).count()).toBe(1);
    await shot(page, 'live-new-row-bar');
    await page.getByTestId('live-bar').click();
    await expect.poll(() => page.locator(`tr[data-id="${added.id}"]`).count()).toBe(1);
    await expect.poll(() => page.getByTestId('live-bar').isHidden()).toBe(true);
    // One stream for the tab.
    expect(requests.filter((p) => p === '/console/events')).toHaveLength(1);
  }, 60_000);

  it('the approvals list and the badge follow new submissions awaiting approval', async () => {
    const approvals = await ctx.newPage();
    await approvals.goto(path('/approvals'));
    await live(approvals);
    const badge = approvals.getByTestId('badge-approvals');
    const before = Number((await badge.textContent().catch(() => '0'))?.match(/\d+/)?.[0] ?? 0);
    const held = await submit(true);
    await expect
      .poll(async () => Number((await badge.textContent())?.match(/\d+/)?.[0] ?? 0), { timeout: 20_000 })
      .toBe(before + 1);
    await expect
      .poll(() => approvals.getByTestId('live-bar').textContent(), { timeout: 20_000 })
      .toMatch(/1 new/);
    expect(await approvals.locator(`article[data-id="${held.id}"]`).count()).toBe(0);
    await approvals.getByTestId('live-bar').click();
    await expect.poll(() => approvals.locator(`article[data-id="${held.id}"]`).count()).toBe(1);
    await approvals.close();
  }, 60_000);

  it("a submission's page reloads on its change, and offers to while a reason is being typed", async () => {
    const quiet = await submit(true);
    await status(quiet.id, 'awaiting_approval');
    await page.goto(path(`/submissions/${quiet.id}`));
    await live(page);
    await approve(quiet);
    await expect
      .poll(() => page.locator('[data-live-record] [data-status]').getAttribute('data-status'), {
        timeout: 20_000,
      })
      .not.toBe('awaiting_approval');
    // Each of its events reloads the page (its approval, its commit): let the last one land before leaving.
    await status(quiet.id, 'committed');
    await new Promise((r) => setTimeout(r, 1500));
    await page.waitForLoadState('load');

    const typing = await submit(true);
    await status(typing.id, 'awaiting_approval');
    await page.goto(path(`/submissions/${typing.id}`));
    await live(page);
    const reason = page.getByLabel(/reason/i).first();
    await reason.fill('not sure about this one');
    await approve(typing);
    await expect
      .poll(() => page.getByTestId('live-bar').textContent(), { timeout: 20_000 })
      .toMatch(/This submission is now/);
    // Still the page it was, with what was typed.
    expect(await reason.inputValue()).toBe('not sure about this one');
    expect(await page.locator('[data-live-record] [data-status]').getAttribute('data-status')).toBe(
      'awaiting_approval',
    );
    await shot(page, 'live-record-changed-while-typing');
    await Promise.all([page.waitForLoadState('load'), page.getByTestId('live-bar').click()]);
    await expect
      .poll(() => page.locator('[data-live-record] [data-status]').getAttribute('data-status'), {
        timeout: 20_000,
      })
      .not.toBe('awaiting_approval');
  }, 60_000);
});
