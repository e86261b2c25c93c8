// The console on a phone and its conventions (issue 30 items 3, 7 and 10), in a real Chromium under the console's
// CSP against a whole wallet on the embedded sandbox: every page of the page table (src/console/pages/index.ts) fits
// 390×844 without sideways scrolling and passes axe there; the navigation collapses; the submissions table shows
// amount, what, requested by and attempts, with status chips, newer/first pages and a CSV export; a key with 120
// signatures shows 50 and an "Older" link; the copy button copies; a relative time carries its UTC value in its
// title. Screenshots of the main pages at 390 and 1280 px go to QUILL_SHOTS (default test-results/console).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { grantPreapproval, mintHolding, type Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PAGES } from '../../../src/console/pages/index.ts';
import { compareDecimal } from '../../../src/policy/index.ts';
import { launchBrowser, SCREENSHOTS, type TestBrowser } from '../../support/browser.ts';
import { link, seriousViolations, signIn, startConsoleWallet } from '../../support/console.ts';
import { until } from '../../support/events.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn, startLedger, walletConfig } from '../../support/wallet.ts';

const SHOTS = process.env.QUILL_SHOTS ?? SCREENSHOTS;
const SIGNATURES = 120;
const PHONE = { width: 390, height: 844 };

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
let phone: BrowserContext;
let laptop: BrowserContext;
let party = '';
let receiver = '';
let fingerprint = '';
let transferId = '';
let noteId = '';

const path = (p: string) => `${w.url}/console${p}`;

async function onboard(hint: string) {
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: `${hint}-key` });
  const res = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: hint,
  });
  return { party: res.json.partyId as string, key: key.json.fingerprint as string };
}

beforeAll(async () => {
  sandbox = await startLedger();
  const policy = join(tempDir('quill-console-phone-'), 'policy.yaml');
  writeFileSync(
    policy,
    [
      'default: allow',
      'rules:',
      '  - name: big-payments',
      '    match: { amount: { gt: "100" } }',
      '    action: approve',
      '    quorum: 1',
      '    ttl: 4h',
      '',
    ].join('\n'),
  );
  w = await startConsoleWallet(
    sandbox,
    walletConfig(inject('redisUrl'), { POLICY_FILE: policy, WATCHER_IDLE_TIMEOUT_MS: '100' }),
  );
  ({ party, key: fingerprint } = await onboard('treasury-operations-desk'));
  receiver = (await onboard('receiver')).party;
  grantPreapproval(sandbox.state, 'usdq', receiver);
  for (let i = 0; i < 2; i++) mintHolding(sandbox.state, 'usdq', party, '1000');
  await until(
    async () => {
      const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
      const i = (r.json.instruments as { unlocked: string }[] | undefined) ?? [];
      return i.some((x) => compareDecimal(x.unlocked, '2000') >= 0);
    },
    15_000,
    'the mint indexed',
  );
  // SIGNATURES notes in one batch: each is a signature of the key in the audit chain.
  const notes = await Promise.all(
    Array.from({ length: SIGNATURES }, () => prepareOn(w.client, party, noteCommand(party))),
  );
  const items: { status: number; submission?: { id: string } }[] = [];
  for (let i = 0; i < notes.length; i += 60) {
    const batch = await w.call('POST', '/wallet/v1/submissions/batch', {
      submissions: notes.slice(i, i + 60),
    });
    expect(batch.status).toBe(200);
    items.push(...(batch.json.items as typeof items));
  }
  expect(items.every((i) => i.status === 202 || i.status === 200)).toBe(true);
  noteId = items.at(-1)?.submission?.id ?? '';
  // One transfer that moves money, held for an approval (the approvals page has a card).
  const usdq = sandbox.registries.usdq;
  const t = await w.call('POST', '/wallet/v1/transfers?wait=0', {
    party,
    receiver,
    instrument: usdq.instrumentId,
    amount: '250.5',
    memo: 'invoice 7',
  });
  expect(t.json, JSON.stringify(t.json)).toMatchObject({ status: 'awaiting_approval' });
  transferId = t.json.id as string;
  browser = await launchBrowser();
  phone = await browser.browser.newContext({ viewport: PHONE, isMobile: true, hasTouch: true });
  laptop = await browser.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await signIn(await phone.newPage(), await link(w.url, 'admin', undefined, 'phone-admin'));
  await signIn(await laptop.newPage(), await link(w.url, 'admin', undefined, 'laptop-admin'));
  mkdirSync(SHOTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

/** Every page of the table with an example for each path parameter (and a query that shows results). */
async function everyPage(): Promise<[string, string][]> {
  const q = encodeURIComponent(party);
  const last = await w.client.ledgerEndOffset();
  const examples: Record<string, string> = { id: transferId, fp: fingerprint, party };
  const queries: Record<string, string> = {
    '/ledger/packages': '?pageSize=2',
    '/ledger/updates': `?party=${q}&beginExclusive=0&endInclusive=${last}`,
    '/ledger/update': `?party=${q}&offset=${last}&kind=update`,
    '/ledger/activities': `?party=${q}`,
  };
  const pages: [string, string][] = PAGES.filter((p) => p.get && !p.fragment).map((p) => [
    p.title.toLowerCase().replace(/\W+/g, '-'),
    p.path.replace(/:(\w+)/g, (_, name: string) => {
      const value = examples[name];
      if (value === undefined) throw new Error(`no example for :${name} (${p.path})`);
      return encodeURIComponent(value);
    }) + (queries[p.path] ?? ''),
  ]);
  pages.push(['submission-committed', `/submissions/${noteId}`]);
  pages.push(['submissions-bad-filter', '/submissions?since=yesterday']);
  pages.push(['not-found', '/nope']);
  return pages;
}

type Doc = { document: { documentElement: { scrollWidth: number; scrollHeight: number } } };
const width = (p: Page) =>
  p.evaluate(() => (globalThis as unknown as Doc).document.documentElement.scrollWidth);
const height = (p: Page) =>
  p.evaluate(() => (globalThis as unknown as Doc).document.documentElement.scrollHeight);
const clipboard = (p: Page) =>
  p.evaluate(() =>
    (
      globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
    ).navigator.clipboard.readText(),
  );

describe('the console on a phone', () => {
  it('every page fits 390 px without sideways scrolling, and passes axe there', {
    timeout: 240_000,
  }, async () => {
    // axe is injected, so this context bypasses the CSP; the width is measured with console.js running.
    const scan = await browser.browser.newContext({ viewport: PHONE, isMobile: true, bypassCSP: true });
    const p = await scan.newPage();
    await signIn(p, await link(w.url, 'admin', undefined, 'axe-phone'));
    const widths: Record<string, number> = {};
    const axe: string[] = [];
    for (const [name, at] of await everyPage()) {
      const res = await p.goto(path(at));
      expect(res?.status(), name).toBeLessThan(500);
      widths[name] = await width(p);
      for (const v of await seriousViolations(p)) axe.push(`${name}: ${v}`);
    }
    console.info(`scrollWidth at 390 px: ${JSON.stringify(widths)}`);
    expect(Object.entries(widths).filter(([, px]) => px > PHONE.width)).toEqual([]);
    expect(axe).toEqual([]);
    await scan.close();
  });

  it('collapses the navigation behind a menu, which opens', async () => {
    const p = await phone.newPage();
    await p.goto(path('/submissions'));
    const nav = p.getByRole('navigation', { name: 'Sections' });
    expect(await nav.isVisible()).toBe(false);
    await p.locator('details.menu > summary').click();
    expect(await nav.isVisible()).toBe(true);
    await p.getByRole('link', { name: 'Keys' }).click();
    await p.waitForURL(/\/console\/keys$/);
    await p.close();
  });

  it('saves screenshots of the main pages at 390 and 1280 px', { timeout: 120_000 }, async () => {
    const main: [string, string][] = [
      ['overview', ''],
      ['submissions', '/submissions'],
      ['submission', `/submissions/${transferId}`],
      ['approvals', '/approvals'],
      ['keys', '/keys'],
      ['key', `/keys/${fingerprint}`],
      ['parties', '/parties'],
      ['party', `/parties/${encodeURIComponent(party)}`],
      ['audit', '/audit'],
      ['ledger-user', '/ledger/user'],
      ['ledger-activities', `/ledger/activities?party=${encodeURIComponent(party)}`],
    ];
    for (const [ctx, name] of [
      [phone, 'phone'],
      [laptop, 'laptop'],
    ] as const) {
      const p = await ctx.newPage();
      for (const [page, at] of main) {
        await p.goto(path(at));
        await p.screenshot({ path: join(SHOTS, `${page}-${name}.png`), fullPage: true });
      }
      await p.close();
    }
  });
});

describe('the conventions', () => {
  it('the submissions table shows amount, what, requested by and attempts', async () => {
    const p = await laptop.newPage();
    await p.goto(path('/submissions'));
    const heads = await p.locator('[data-testid="submissions"] thead th').allTextContents();
    expect(heads).toEqual(
      expect.arrayContaining(['Amount', 'What', 'Requested by', 'Attempts', 'Created', 'Updated']),
    );
    const transfer = p.locator(`tr[data-id="${transferId}"]`);
    expect(await transfer.locator('[data-testid="amount"]').textContent()).toBe('250.5 USDQ');
    expect(await transfer.locator('[data-testid="what"]').textContent()).toContain('transfer');
    expect(await transfer.locator('[data-testid="requested-by"]').textContent()).toBe('console-test');
    const note = p.locator(`tr[data-id="${noteId}"]`);
    await note.waitFor();
    expect(await note.locator('[data-testid="what"]').textContent()).toContain('quill-e2e:E2E:Note');
    expect(await note.locator('[data-testid="amount"]').textContent()).toBe('—');
    expect(await note.locator('[data-testid="attempts"]').textContent()).toMatch(/^\d+$/);
    // Status chips with counts: all, and each status present.
    const all = p.getByTestId('status-chips').locator('a', { hasText: 'all' });
    expect(await all.textContent()).toContain(String(SIGNATURES + 1));
    await p.getByTestId('status-chips').locator('a', { hasText: 'awaiting_approval' }).click();
    await p.waitForURL(/status=awaiting_approval/);
    expect(await p.locator('[data-testid="submission-rows"] tr').count()).toBe(1);
    await p.close();
  });

  it('pages the submissions at 50 with older, newer and first-page links, and exports CSV', async () => {
    const p = await laptop.newPage();
    await p.goto(path('/submissions'));
    expect(await p.locator('[data-testid="submission-rows"] tr').count()).toBe(50);
    const firstIds = await p
      .locator('[data-testid="submission-rows"] tr')
      .evaluateAll((r) => r.map((x) => x.getAttribute('data-id')));
    expect(await p.getByTestId('newer').count()).toBe(0);
    await p.getByTestId('older').click();
    await p.waitForURL(/cursor=/);
    const second = await p
      .locator('[data-testid="submission-rows"] tr')
      .evaluateAll((r) => r.map((x) => x.getAttribute('data-id')));
    expect(second).toHaveLength(50);
    expect(second.some((id) => firstIds.includes(id))).toBe(false);
    await p.getByTestId('older').click();
    await p.waitForURL(/prev=/);
    expect(await p.locator('[data-testid="submission-rows"] tr').count()).toBe(SIGNATURES + 1 - 100);
    expect(await p.getByTestId('older').count()).toBe(0);
    await p.getByTestId('newer').click();
    await p.waitForLoadState('load');
    expect(
      await p
        .locator('[data-testid="submission-rows"] tr')
        .evaluateAll((r) => r.map((x) => x.getAttribute('data-id'))),
    ).toEqual(second);
    await p.getByTestId('first').click();
    await p.waitForURL((u) => !u.search.includes('cursor='));
    const csv = await p.evaluate(
      async (href) => {
        const res = await fetch(href);
        return { type: res.headers.get('content-type'), text: await res.text() };
      },
      (await p.getByTestId('csv').getAttribute('href')) ?? '',
    );
    expect(csv.type).toContain('text/csv');
    const lines = csv.text.trim().split(/\r\n/);
    expect(lines[0]).toMatch(/^id,status,party,amount,instrument,what,requestedBy,attempts,/);
    expect(lines).toHaveLength(SIGNATURES + 2);
    await p.close();
  });

  it('answers a bad filter beside the form', async () => {
    const p = await laptop.newPage();
    const res = await p.goto(path('/submissions?since=yesterday'));
    expect(res?.status()).toBe(400);
    expect(await p.getByTestId('submission-filters').getByTestId('form-error').textContent()).toContain(
      'from',
    );
    expect(await p.getByLabel('From (UTC)').count()).toBe(1);
    await p.close();
  });

  it('a key with 120 signatures shows 50 and an Older link; older and newer pages', async () => {
    const p = await laptop.newPage();
    const res = await p.goto(path(`/keys/${fingerprint}`));
    expect(Number((await res?.headerValue('content-length')) ?? 0)).toBeLessThan(200_000);
    const rows = p.locator('[data-testid="key-signatures"] tbody tr');
    expect(await rows.count()).toBe(50);
    expect(await p.getByTestId('newer').count()).toBe(0);
    const first = await rows.first().getAttribute('data-entry');
    await p.getByRole('link', { name: 'Older' }).click();
    await p.waitForURL(/before=/);
    expect(await rows.count()).toBe(50);
    await p.getByRole('link', { name: 'Older' }).click();
    await p.waitForURL(/before=/);
    expect(await rows.count()).toBe(SIGNATURES - 100);
    expect(await p.getByRole('link', { name: 'Older' }).count()).toBe(0);
    await p.getByTestId('newer').click();
    await p.waitForURL(/after=/);
    expect(await rows.count()).toBe(50);
    await p.getByTestId('newest').click();
    await p.waitForURL((u) => !u.search);
    expect(await rows.first().getAttribute('data-entry')).toBe(first);
    expect(await height(p)).toBeLessThan(6000);
    await p.close();
  });

  it('pages the audit at 50', async () => {
    const p = await laptop.newPage();
    await p.goto(path('/audit'));
    expect(await p.locator('[data-testid="audit"] tbody tr').count()).toBe(50);
    await p.getByTestId('older').click();
    await p.waitForURL(/before=/);
    expect(await p.locator('[data-testid="audit"] tbody tr').count()).toBe(50);
    expect(await p.getByTestId('newer').count()).toBe(1);
    await p.close();
  });

  it('the copy button copies the full id', async () => {
    const ctx = await browser.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await ctx.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: w.url });
    const p = await ctx.newPage();
    await signIn(p, await link(w.url, 'admin', undefined, 'copier'));
    await p.goto(path('/submissions'));
    const row = p.locator(`tr[data-id="${transferId}"]`);
    const shown = await row.locator('.id').first().locator('a').textContent();
    expect(shown).toBe(`${transferId.slice(0, 10)}…${transferId.slice(-6)}`);
    const copy = row.locator('button.copy').first();
    await copy.click();
    expect(await clipboard(p)).toBe(transferId);
    expect(await copy.textContent()).toBe('copied');
    // A party: its hint (up to 20 characters), the middle of the fingerprint left out, the whole id on hover and a link to its page.
    await p.goto(path('/parties'));
    const id = p.locator(`tr[data-party="${party}"] .id`).first();
    expect(await id.locator('a').textContent()).toMatch(
      /^treasury-operations…::1220[0-9a-f]{2}…[0-9a-f]{5}$/,
    );
    expect(await id.locator('a').getAttribute('title')).toBe(party);
    await id.locator('button.copy').click();
    expect(await clipboard(p)).toBe(party);
    await ctx.close();
  });

  it('a relative time has its UTC value in its title', async () => {
    const p = await laptop.newPage();
    await p.goto(path(`/submissions/${transferId}`));
    const t = p.locator('time').first();
    expect(await t.textContent()).toMatch(/^(just now|\d+ s ago|\d+ min ago)$/);
    const title = (await t.getAttribute('title')) ?? '';
    expect(title).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    const at = (await t.getAttribute('datetime')) ?? '';
    expect(title).toBe(`${at.slice(0, 10)} ${at.slice(11, 19)} UTC`);
    await p.close();
  });
});
