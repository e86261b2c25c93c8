// Issue 30 items 4, 8 and 9 in a real Chromium against a whole wallet on the embedded sandbox: the approver's inbox
// and its badge, the overview's "needs attention" (a stuck executing record listed and linked, each count a link
// to its filtered list), the header's search box for every kind of id (and garbage answered inline), ledger pages
// that say "ledger not answering" within the time box while the sandbox is paused, key disable (what it affects, a
// required reason in the audit), the ledger user's primary party chosen, checked and confirmed, onboarding from a
// key's page, and a sign-in link minted in the console that signs a new approver in. Changed pages pass axe.
import { mint, type Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import {
  expectAccessible,
  GATED,
  gatedPolicy,
  link,
  shot,
  signIn,
  startConsoleWallet,
  submitFor,
} from '../../support/console.ts';
import { noteCommand, prepareOn, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
let ctx: BrowserContext;
let page: Page;
let party = '';
let fingerprint = '';

type Rec = { id: string; status: string; commandId: string; updateId?: string | null };

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { POLICY_FILE: gatedPolicy() }));
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'attention' });
  fingerprint = key.json.fingerprint as string;
  const made = await w.call('POST', '/wallet/v1/parties', { keyFingerprint: fingerprint, partyHint: 'ops' });
  party = made.json.partyId as string;
  browser = await launchBrowser();
  ctx = await browser.context({ bypassCSP: true });
  page = await ctx.newPage();
  await signIn(page, await link(w.url, 'admin', undefined, 'ops-admin'));
}, 60_000);

afterAll(async () => {
  sandbox?.faults.setPaused(false);
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

const path = (p: string) => `${w.url}/console${p}`;

const submit = (forParty: string, template?: string) => submitFor<Rec>(w, forParty, template);

async function committed(id: string): Promise<Rec> {
  await expect
    .poll(async () => (await w.call('GET', `/wallet/v1/submissions/${id}`)).json.status, { timeout: 30_000 })
    .toBe('committed');
  return (await w.call('GET', `/wallet/v1/submissions/${id}`)).json as unknown as Rec;
}

describe('needs attention, search and guarded admin changes', () => {
  it('lands an approver on the inbox with the count in the navigation', async () => {
    await submit(party, GATED);
    await submit(party, GATED);
    const approver = await browser.context({ bypassCSP: true });
    const p = await approver.newPage();
    await signIn(p, await link(w.url, 'approve', undefined, 'carol@example.com'));
    expect(new URL(p.url()).pathname).toBe('/console/approvals');
    expect((await p.getByTestId('badge-approvals').textContent())?.trim()).toMatch(/^2\b/);
    // Only what the role opens: no Keys, Parties, Audit or Sign-in links for an approver.
    const nav = await p.getByRole('navigation', { name: 'Sections' }).textContent();
    expect(nav).not.toMatch(/Keys|Parties|Audit|Sign-in links/);
    await shot(p, 'attention-approver-inbox');
    await expectAccessible(p, 'approver inbox');
    await approver.close();
  });

  it('lists a stuck executing record with an unknown outcome on the overview, and links it', async () => {
    // Prepared first: the paused ledger would hold the prepare too.
    const body = await prepareOn(w.client, party, noteCommand(party));
    sandbox.faults.setPaused(true);
    const sent = await w.call('POST', '/wallet/v1/submissions', body);
    expect(sent.status).toBe(202);
    const stuck = sent.json as unknown as Rec;
    // The paused ledger holds its attempt; the record says it went out and its outcome is unknown (what the
    // worker writes once it stops retrying), as the worker cannot move it while the ledger is paused.
    const unknown = () =>
      w.wallet.store.update(stuck.id, (r) =>
        r.status === 'queued' || r.status === 'executing'
          ? {
              ...r,
              status: 'executing',
              error: { code: 'OUTCOME_UNKNOWN', message: 'whether it committed is not known yet' },
            }
          : undefined,
      );
    await unknown();
    await page.goto(path(''));
    await page.getByTestId('attention').waitFor();
    const row = page.locator(`[data-testid="stuck"] tr[data-id="${stuck.id}"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain('OUTCOME_UNKNOWN');
    expect(await page.getByTestId('attention-executing').getAttribute('data-tone')).toBe('bad');
    expect(await page.getByTestId('attention-approvals').textContent()).toContain('2 submissions awaiting');
    expect(await page.getByTestId('attention-watcher').textContent()).toMatch(/Watcher|ledger/);
    expect(await page.getByTestId('attention-leader').textContent()).toContain('lease');
    await shot(page, 'attention-overview');
    await expectAccessible(page, 'overview');
    await Promise.all([page.waitForURL(/\/console\/submissions\/sub_/), row.locator('a').first().click()]);
    expect(page.url()).toContain(stuck.id);
  });

  it("opens each count's filtered list", { timeout: 60_000 }, async () => {
    const links: [string, RegExp][] = [
      ['attention-approvals', /\/console\/approvals$/],
      ['attention-executing', /\/console\/submissions\?status=executing$/],
      ['attention-queued', /\/console\/submissions\?status=queued&olderThan=10m$/],
      ['attention-keys-disabled', /\/console\/audit\?kind=key\.disable$/],
      ['attention-keys-broken', /\/console\/keys$/],
    ];
    for (const [testid, url] of links) {
      await page.goto(path(''));
      const res = await Promise.all([
        page.waitForURL(url),
        page.waitForResponse((r) => url.test(r.url())),
        page.getByTestId(testid).locator('a').click(),
      ]);
      expect(res[1].status(), testid).toBe(200);
    }
    // The executing list shows the stuck record; the status counts link to their lists too.
    await page.goto(path('/submissions?status=executing'));
    expect(await page.locator('tr[data-id]').count()).toBeGreaterThan(0);
    await page.goto(path(''));
    await Promise.all([
      page.waitForURL(/status=awaiting_approval/),
      page.getByTestId('status-counts').locator('a[href$="status=awaiting_approval"]').click(),
    ]);
    expect(await page.locator('tr[data-id]').count()).toBe(2);
  });

  it('says "ledger not answering" within the time box while the ledger is paused', {
    timeout: 60_000,
  }, async () => {
    sandbox.faults.setPaused(true);
    try {
      for (const p of [
        `/ledger/update?party=${encodeURIComponent(party)}&offset=1`,
        `/ledger/updates?party=${encodeURIComponent(party)}&beginExclusive=0&endInclusive=5`,
        '/ledger/user',
      ]) {
        const started = Date.now();
        await page.goto(path(p));
        const took = Date.now() - started;
        expect(await page.getByTestId('form-error').textContent(), p).toContain('Ledger not answering');
        expect(took, p).toBeLessThan(9000);
      }
      await shot(page, 'attention-ledger-not-answering');
      await expectAccessible(page, 'ledger not answering');
    } finally {
      sandbox.faults.setPaused(false);
    }
  });

  it('finds each kind of id from the header box, and answers garbage inline', {
    timeout: 90_000,
  }, async () => {
    const note = await committed((await submit(party)).id);
    mint(sandbox.state, party, '5.0000000000');
    let contract = '';
    await expect
      .poll(
        async () => {
          const h = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
          contract = ((h.json.items as { contractId: string }[] | undefined) ?? [])[0]?.contractId ?? '';
          return contract;
        },
        { timeout: 30_000 },
      )
      .not.toBe('');
    const hash = (await w.call('GET', `/wallet/v1/submissions/${note.id}`)).json
      .preparedTransactionHash as string;
    // The watcher indexes the committed transaction by its hash.
    await expect
      .poll(async () => (await w.call('GET', `/wallet/v1/search?q=${hash}`)).json.matches, {
        timeout: 30_000,
      })
      .toHaveLength(1);
    const sub = `/console/submissions/${note.id}`;
    const partyPage = `/console/parties/${encodeURIComponent(party)}`;
    const cases: [string, string, string][] = [
      ['submission id', note.id, sub],
      ['command id', note.commandId, sub],
      ['update id', note.updateId ?? '', sub],
      ['hash', hash, sub],
      ['party', party, partyPage],
      ['fingerprint', fingerprint, `/console/keys/${fingerprint}`],
      ['contract id', contract, partyPage],
    ];
    for (const [kind, q, want] of cases) {
      expect(q, kind).not.toBe('');
      await page.goto(path(''));
      await page.getByTestId('search-form').getByRole('searchbox').fill(q);
      await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Find' }).click()]);
      await page.waitForURL((u) => u.pathname === new URL(want, w.url).pathname);
      expect(new URL(page.url()).pathname, kind).toBe(new URL(want, w.url).pathname);
    }
    const garbage = await page.goto(path('/search?q=%3Cscript%3Enot-an-id%20%25%00'));
    expect(garbage?.status()).toBe(200);
    expect(await page.getByTestId('search-none').textContent()).toContain('Nothing matches');
    await shot(page, 'attention-search-nothing');
    await expectAccessible(page, 'search');
    const long = await page.goto(path(`/search?q=${'x'.repeat(700)}`));
    expect(long?.status()).toBe(200);
    expect(await page.getByTestId('form-error').textContent()).toContain('longer than any id');
  });

  it('lists what a key disable affects, refuses it without a reason, and audits the reason', async () => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'compromised' });
    const fp = key.json.fingerprint as string;
    const treasury = (
      await w.call('POST', '/wallet/v1/parties', { keyFingerprint: fp, partyHint: 'treasury' })
    ).json.partyId as string;
    const waiting = await submit(treasury, GATED);
    await page.goto(path(`/keys/${fp}`));
    const affected = page.getByTestId('affected');
    expect(await affected.textContent()).toContain(treasury);
    expect(
      await page
        .locator('[data-status-group="awaiting_approval"]')
        .locator(`a[href$="${waiting.id}"]`)
        .count(),
    ).toBe(1);
    // Blank (spaces pass the browser's minlength; the server trims): refused, the key stays active.
    await page.getByLabel('Reason').fill('    ');
    await page.getByLabel('Confirmation').fill(fp.slice(-8));
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.getByTestId('form-error').waitFor();
    expect(await page.getByTestId('form-error').textContent()).toContain('Say why');
    expect((await w.call('GET', `/wallet/v1/keys/${fp}`)).json.status).toBe('active');
    await shot(page, 'attention-key-disable-refused');
    await expectAccessible(page, 'key disable refused');

    await page.getByLabel('Reason').fill('laptop stolen');
    await page.getByLabel('Confirmation').fill(fp.slice(-8));
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.getByTestId('disabled-by').waitFor();
    expect(await page.getByTestId('disabled-by').textContent()).toContain('ops-admin');
    expect(await page.getByTestId('disabled-by').textContent()).toContain('laptop stolen');
    const audit = await w.call('GET', '/wallet/v1/audit?limit=1000');
    const entry = (audit.json.items as { fields: [string, string][] }[])
      .map((i) => Object.fromEntries(i.fields))
      .find((f) => f.kind === 'key.disable' && f.keyFingerprint === fp);
    expect(entry?.reason).toBe('laptop stolen');
    expect(entry?.actor).toBe('ops-admin');
  });

  it("onboards a party from a key's page (the key preselected, none by default)", async () => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'payroll' });
    const fp = key.json.fingerprint as string;
    await page.goto(path('/parties'));
    // The single-key form (the page also has the form for parties with several keys).
    const form = page.getByTestId('onboard-party');
    expect(await form.getByLabel('Key').inputValue()).toBe('');
    await page.goto(path(`/keys/${fp}`));
    await Promise.all([
      page.waitForURL(/\/console\/parties\?key=/),
      page.getByTestId('onboard-with-key').click(),
    ]);
    expect(await form.getByLabel('Key').inputValue()).toBe(fp);
    await expectAccessible(page, 'parties preselected');
    await form.getByLabel('Party hint').fill('payroll');
    await Promise.all([
      page.waitForURL(/\/console\/parties\/payroll/),
      form.getByRole('button', { name: 'Onboard' }).click(),
    ]);
  });

  it("chooses the ledger user's primary party from a list, confirms it, and refuses one the ledger lacks", async () => {
    await page.goto(path('/ledger/user'));
    await page.getByLabel('Primary party').selectOption(party);
    await page.getByRole('button', { name: 'Update the user' }).click();
    await page.getByTestId('user-change').waitFor();
    expect(await page.getByTestId('user-change').textContent()).toContain(`→ ${party}`);
    await shot(page, 'attention-ledger-user-confirm');
    await expectAccessible(page, 'ledger user confirm');
    await page.getByRole('button', { name: 'Confirm the change' }).click();
    await page.getByTestId('user-form').waitFor();
    expect(await page.getByTestId('primary-party').textContent()).toBe(party);

    await page.getByLabel('Primary party').selectOption('__other__');
    await page.getByLabel('Other party (with "other…")').fill(`nobody::1220${'ab'.repeat(32)}`);
    await page.getByRole('button', { name: 'Update the user' }).click();
    await page.getByTestId('not-quill-party').waitFor();
    await page.getByRole('button', { name: 'Confirm the change' }).click();
    await page.getByTestId('form-error').waitFor();
    expect(await page.getByTestId('form-error').textContent()).toContain('knows no party');
    expect(await page.getByTestId('primary-party').textContent()).toBe(party);
    const audit = await w.call('GET', '/wallet/v1/audit?limit=1000');
    const kinds = (audit.json.items as { fields: [string, string][] }[]).map((i) =>
      Object.fromEntries(i.fields),
    );
    expect(kinds.filter((f) => f.kind === 'ledger.user.update').map((f) => f.primaryParty)).toEqual([party]);
  });

  it('mints a sign-in link in the console that signs a new approver in, once, audited', async () => {
    await page.goto(path('/links'));
    await page.getByLabel('Subject (who, as the audit names them)').fill('dana@example.com');
    await page.getByLabel('Role').selectOption('approve');
    await page.getByLabel('Lifetime').selectOption(String(15 * 60));
    await page.getByRole('button', { name: 'Make the link' }).click();
    const minted = await page.getByTestId('minted-link').inputValue();
    expect(minted).toMatch(/\/console\/signin\?t=/);
    await expectAccessible(page, 'links');
    await page.goto(path('/links'));
    expect(await page.getByTestId('minted').count()).toBe(0); // shown once, on the answer to the POST only

    const fresh = await browser.context();
    const p = await fresh.newPage();
    await signIn(p, minted);
    expect(new URL(p.url()).pathname).toBe('/console/approvals');
    expect(await p.getByTestId('who').textContent()).toContain('dana@example.com · approve');
    await fresh.close();
    const audit = await w.call('GET', '/wallet/v1/audit?limit=1000');
    const entry = (audit.json.items as { fields: [string, string][] }[])
      .map((i) => Object.fromEntries(i.fields))
      .find((f) => f.kind === 'console.link');
    expect(entry).toMatchObject({ actor: 'ops-admin', subject: 'dana@example.com', role: 'approve' });
    expect(JSON.stringify(entry)).not.toContain(new URL(minted).searchParams.get('t') ?? '');
  });
});
