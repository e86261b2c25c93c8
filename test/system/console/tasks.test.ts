// Issue 30's timed tasks, walked in a real Chromium as the console review walked them (reviews/console.md §2), each
// click and typed field counted after sign-in: approve a pending transfer on a phone, find why a submission failed,
// disable a key, export a party's signatures for a compliance request. Each walk must stay within its budget; the
// counts are printed beside the review's, and each walk checks the task was really done.
import { readFileSync } from 'node:fs';
import type { Sandbox } from '@quill/sandbox';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
import { prepareOn, spendCommand, startLedger, tapCommand, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
let party = '';
let fingerprint = '';
const report: string[] = [];

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { POLICY_FILE: gatedPolicy() }));
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'treasury' });
  fingerprint = key.json.fingerprint as string;
  const made = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: fingerprint,
    partyHint: 'treasury',
  });
  party = made.json.partyId as string;
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  console.log(
    `timed tasks (clicks + fields after sign-in; the review's count before):\n${report.join('\n')}`,
  );
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

/** A walk: every click and typed field counted. */
function walker(page: Page) {
  let clicks = 0;
  let fields = 0;
  return {
    async click(l: Locator) {
      clicks++;
      await l.click();
    },
    async fill(l: Locator, text: string) {
      fields++;
      await l.fill(text);
    },
    get count() {
      return { clicks, fields };
    },
    page,
  };
}

async function session(role: 'admin' | 'approve', subject: string, phone = false): Promise<Page> {
  const ctx: BrowserContext = await browser.browser.newContext(
    phone
      ? { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }
      : { viewport: { width: 1280, height: 900 } },
  );
  const page = await ctx.newPage();
  await signIn(page, await link(w.url, role, undefined, subject));
  return page;
}

async function submitted(command: Record<string, unknown>, wait = true) {
  const res = await w.call(
    'POST',
    `/wallet/v1/submissions${wait ? '?wait=20' : ''}`,
    await prepareOn(w.client, party, command),
  );
  expect([200, 202]).toContain(res.status);
  return res.json as {
    id: string;
    status: string;
    transaction?: { events: { CreatedEvent?: { contractId: string; templateId: string } }[] };
  };
}

function record(task: string, before: string, count: { clicks: number; fields: number }) {
  report.push(`- ${task}: before ${before}; now ${count.clicks} clicks + ${count.fields} fields`);
}

describe('timed tasks', () => {
  it('approve a pending transfer on a phone: 1 click (was 4 clicks + 1 field)', async () => {
    const held = await submitFor(w, party, GATED);
    const page = await session('approve', 'alice', true);
    // Sign-in lands an approver on the inbox; the card says what is approved.
    expect(new URL(page.url()).pathname).toBe('/console/approvals');
    const card = page.locator(`article[data-id="${held.id}"]`);
    const walk = walker(page);
    await Promise.all([
      page.waitForURL(/decided=/),
      walk.click(card.getByRole('button', { name: 'Approve' })),
    ]);
    expect((await w.call('GET', `/wallet/v1/submissions/${held.id}`)).json.status).not.toBe(
      'awaiting_approval',
    );
    await shot(page, 'task-approve-phone');
    record('approve on a phone', '4 clicks + 1 field', walk.count);
    expect(walk.count).toEqual({ clicks: 1, fields: 0 });
  }, 60_000);

  it('find why a submission failed: 1 click from the overview, the reason and its cause on the page (was 1 or 4, a code)', async () => {
    const tap = await submitted(tapCommand(String(sandbox.state.coinRules), party, '10.0000000000'));
    const holding = tap.transaction?.events.find((e) => e.CreatedEvent?.templateId.endsWith(':Holding'))
      ?.CreatedEvent?.contractId as string;
    const first = await prepareOn(w.client, party, spendCommand(holding, party, '1.0000000000'));
    const second = await prepareOn(w.client, party, spendCommand(holding, party, '2.0000000000'));
    await w.call('POST', '/wallet/v1/submissions?wait=20', first);
    const failed = (await w.call('POST', '/wallet/v1/submissions?wait=20', second)).json as {
      id: string;
      status: string;
    };
    expect(failed.status).toBe('rejected');
    const page = await session('admin', 'ops');
    const walk = walker(page);
    await Promise.all([
      page.waitForURL(new RegExp(`/console/submissions/${failed.id}`)),
      walk.click(page.locator(`[data-live-region="fail"] a[href="/console/submissions/${failed.id}"]`)),
    ]);
    const why = page.getByTestId('explanation');
    expect(await why.locator('h2').textContent()).toContain('An input was already spent');
    expect(await page.getByTestId('spent-inputs').locator('a[href^="/console/submissions/"]').count()).toBe(
      1,
    );
    record('find why a submission failed', '1 or 4 clicks, then a raw code', walk.count);
    expect(walk.count).toEqual({ clicks: 1, fields: 0 });
  }, 60_000);

  it('export the audit of a party for a compliance request: 3 clicks (was 4 clicks + 1 field)', async () => {
    const page = await session('admin', 'compliance');
    const walk = walker(page);
    await walk.click(
      page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Parties' }),
    );
    await walk.click(page.locator(`a[href="/console/parties/${encodeURIComponent(party)}"]`).first());
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      walk.click(page.getByTestId('party-audit-csv')),
    ]);
    const csv = readFileSync((await download.path()) as string, 'utf8');
    const lines = csv.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    expect(lines.slice(1).every((l) => l.includes(party))).toBe(true);
    record('export the audit of a party', '4 clicks + 1 field', walk.count);
    expect(walk.count).toEqual({ clicks: 3, fields: 0 });
  }, 60_000);

  it('disable a key: 3 clicks + 2 fields (was 3 + 1; the reason is now required)', async () => {
    const page = await session('admin', 'security');
    const walk = walker(page);
    await walk.click(page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Keys' }));
    await walk.click(page.locator(`a[href="/console/keys/${fingerprint}"]`).first());
    const form = page.getByTestId('disable-key');
    await walk.fill(form.getByLabel('Reason'), 'laptop with the key file stolen');
    await walk.fill(form.getByLabel('Confirmation'), fingerprint.slice(-8));
    await Promise.all([
      page.waitForLoadState('load'),
      walk.click(form.getByRole('button', { name: 'Disable key' })),
    ]);
    expect((await w.call('GET', `/wallet/v1/keys/${fingerprint}`)).json.status).toBe('disabled');
    record('disable a key', '3 clicks + 1 field (no reason asked)', walk.count);
    expect(walk.count).toEqual({ clicks: 3, fields: 2 });
  }, 60_000);
});
