// The operator console in a real Chromium against a whole wallet on the embedded sandbox (issue 17): sign-in links,
// keys, parties, live submissions, the signed preview, key disable, the ledger pages (4.1, 4.2 both orders, 4.4,
// 4.6 with a stale resourceVersion, 4.8) and an approval decided in the console; then every page through axe-core.
// Pages run under the real CSP (console.js included); only the axe pass bypasses it, to inject axe.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { mint, type Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PAGES } from '../../../src/console/pages/index.ts';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { expectAccessible, link, shot, signIn, startConsoleWallet } from '../../support/console.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn, startLedger, walletConfig } from '../../support/wallet.ts';

const GATED = '#quill-e2e:E2E:Gated';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
let ctx: BrowserContext;
let page: Page;
let party = '';
let fingerprint = '';

beforeAll(async () => {
  sandbox = await startLedger();
  const policy = join(tempDir('quill-console-policy-'), 'policy.yaml');
  writeFileSync(
    policy,
    `rules:\n  - name: gated-notes\n    match: { template: "${GATED}" }\n    action: approve\n    quorum: 1\n    ttl: 1h\n`,
  );
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { POLICY_FILE: policy }));
  browser = await launchBrowser();
  ctx = await browser.context();
  page = await ctx.newPage();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

const path = (p: string) => `${w.url}/console${p}`;

async function submitNote(template?: string) {
  const body = await prepareOn(
    w.client,
    party,
    template
      ? { CreateCommand: { templateId: template, createArguments: { owner: party, n: randomUUID() } } }
      : noteCommand(party),
  );
  const res = await w.call('POST', '/wallet/v1/submissions', body);
  expect(res.status).toBe(202);
  return res.json as { id: string; status: string };
}

describe('the console in a browser', () => {
  it('signs in with a one-time link; the same link a second time is refused', async () => {
    const url = await link(w.url, 'admin', undefined, 'alice-ops');
    await signIn(page, url);
    expect(await page.getByTestId('who').textContent()).toContain('alice-ops · admin');
    await shot(page, 'overview');

    const other = await browser.context();
    const again = await other.newPage();
    await again.goto(url);
    await again.getByRole('button', { name: 'Sign in' }).click();
    await again.getByTestId('form-error').waitFor();
    expect(await again.getByTestId('form-error').textContent()).toContain('already used');
    expect(again.url()).toContain('/console/signin');
    await other.close();
  });

  it('generates a key and onboards a party from it', async () => {
    await page.goto(path('/keys'));
    await page.getByLabel('Algorithm').selectOption('ed25519');
    await page.getByLabel('Label').fill('treasury-key');
    await Promise.all([
      page.waitForURL(/\/console\/keys\/1220[0-9a-f]{64}$/),
      page.getByRole('button', { name: 'Generate' }).click(),
    ]);
    fingerprint = (await page.getByTestId('fingerprint').textContent()) ?? '';
    expect(fingerprint).toMatch(/^1220[0-9a-f]{64}$/);

    await page.goto(path('/parties'));
    const form = page.getByTestId('onboard-party');
    await form.getByLabel('Key').selectOption(fingerprint);
    await form.getByLabel('Party hint').fill('treasury');
    await Promise.all([
      page.waitForURL(/\/console\/parties\/treasury/),
      form.getByRole('button', { name: 'Onboard' }).click(),
    ]);
    party = (await page.getByTestId('party-id').textContent()) ?? '';
    expect(party).toMatch(/^treasury::1220/);
    await shot(page, 'party');
  });

  it('shows a submission turn committed without a reload, then its preview, attempts and update id', async () => {
    await page.goto(path(`/submissions?party=${encodeURIComponent(party)}`));
    await page.evaluate(() => {
      (globalThis as { stayedHere?: boolean }).stayedHere = true;
    });
    await page.waitForSelector('html[data-live="on"]');
    const sub = await submitNote();
    // A new row waits behind the live bar (live.test.ts); shown, it turns committed in place.
    await page.getByTestId('live-bar').click({ timeout: 30_000 });
    await page.locator(`tr[data-id="${sub.id}"] [data-status="committed"]`).waitFor({ timeout: 30_000 });
    // Still the same document: the rows changed in place.
    expect(await page.evaluate(() => (globalThis as { stayedHere?: boolean }).stayedHere)).toBe(true);
    await shot(page, 'submissions');

    await page.locator(`tr[data-id="${sub.id}"] a`).first().click();
    await page.getByTestId('preview').waitFor();
    expect(await page.getByTestId('preview').textContent()).toContain('quill-e2e:E2E:Note');
    // A note moves no holding: the preview says so before the actions.
    expect(await page.getByTestId('summary').textContent()).toBe('Moves no holding Quill recognizes');
    expect(await page.getByTestId('recomputed-hash').textContent()).toContain('(matches)');
    const attempts = await page.getByTestId('attempts').textContent();
    expect(attempts).toContain('committed');
    const updateId = (await page.getByTestId('update-id').textContent()) ?? '';
    expect(updateId.length).toBeGreaterThan(10);
    await shot(page, 'submission');

    // 4.4: the transaction by its update id, through the wallet's ledger client.
    await page.getByTestId('update-id').click();
    await page.getByTestId('update-result').waitFor();
    expect(await page.getByTestId('update-result').textContent()).toContain(updateId);
  });

  it('disables a key only when the confirmation is typed', async () => {
    await page.goto(path('/keys'));
    await page.getByLabel('Algorithm').selectOption('p256');
    await page.getByLabel('Label').fill('to-disable');
    await Promise.all([
      page.waitForURL(/\/console\/keys\/1220/),
      page.getByRole('button', { name: 'Generate' }).click(),
    ]);
    const fp = (await page.getByTestId('fingerprint').textContent()) ?? '';
    await page.getByLabel('Reason').fill('rotated out');
    await page.getByLabel('Confirmation').fill('wrong');
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.getByTestId('form-error').waitFor();
    expect(await page.locator('[data-status]').first().getAttribute('data-status')).toBe('active');
    await page.getByLabel('Reason').fill('rotated out');
    await page.getByLabel('Confirmation').fill(fp.slice(-8));
    await page.getByRole('button', { name: 'Disable key' }).click();
    await page.locator('[data-status="disabled"]').waitFor();
    expect((await w.call('GET', `/wallet/v1/keys/${fp}`)).json.status).toBe('disabled');
  });

  it('4.1: vetted packages with a filter and page tokens', async () => {
    // A second participant vets a package too: two entries, so a page of one has a next page.
    const [first0] = sandbox.state.packages.list({}, '', 10).vettedPackages;
    sandbox.state.packages.vet(`participant2::1220${'ab'.repeat(32)}`, first0?.synchronizerId ?? '', {
      packageId: first0?.packages[0]?.packageId ?? '',
    });
    await page.goto(path('/ledger/packages'));
    await page.getByLabel('Page size').fill('1');
    await page.getByRole('button', { name: 'Query' }).click();
    await page.getByTestId('packages-result').waitFor();
    const first = await page.getByTestId('packages-result').locator('pre').textContent();
    await page.getByTestId('next-page').click();
    await page.getByTestId('packages-result').waitFor();
    expect(page.url()).toContain('pageToken=');
    expect(await page.getByTestId('packages-result').locator('pre').textContent()).not.toBe(first);

    await page.goto(path('/ledger/packages?packageIds=not%20a%20package'));
    expect(await page.locator('[data-testid="form-error"], [data-testid="packages-result"]').count()).toBe(1);
    await shot(page, 'ledger-packages');
  });

  it('4.2: updates between two offsets, ascending and descending', async () => {
    const end = await w.client.ledgerEndOffset();
    const offsets = async (order: 'asc' | 'desc') => {
      await page.goto(path('/ledger/updates'));
      await page.getByLabel('Party').fill(party);
      await page.getByLabel('After offset (exclusive)').fill('0');
      await page.getByLabel('Up to offset (inclusive)').fill(String(end));
      await page.getByLabel('Order').selectOption(order);
      await page.getByRole('button', { name: 'Query' }).click();
      await page.getByTestId('updates').waitFor();
      return await page
        .locator('tr[data-offset]')
        .evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-offset'))));
    };
    const asc = await offsets('asc');
    const desc = await offsets('desc');
    await shot(page, 'ledger-updates');
    expect(asc.length).toBeGreaterThan(0);
    expect(asc).toEqual([...asc].sort((a, b) => a - b));
    expect(desc).toEqual([...asc].reverse());
    // An end before the begin is answered beside the form.
    await page.goto(
      path(`/ledger/updates?party=${encodeURIComponent(party)}&beginExclusive=9&endInclusive=3`),
    );
    expect(await page.getByTestId('form-error').textContent()).toContain('less than');
  });

  it('4.6: changes the primary party; a stale resourceVersion shows the conflict', async () => {
    await page.goto(path('/ledger/user'));
    const stale = await ctx.newPage();
    await stale.goto(path('/ledger/user'));
    await page.getByLabel('Primary party').selectOption(party);
    await page.getByRole('button', { name: 'Update the user' }).click();
    // A change of the primary party is confirmed first.
    await page.getByTestId('user-change').waitFor();
    await Promise.all([
      page.waitForLoadState('load'),
      page.getByRole('button', { name: 'Confirm the change' }).click(),
    ]);
    await page.waitForFunction(
      (p) =>
        (
          globalThis as unknown as { document: { querySelector(s: string): { textContent: string } | null } }
        ).document.querySelector('[data-testid="primary-party"]')?.textContent === p,
      party,
    );
    await shot(page, 'ledger-user');

    await stale.getByLabel('Primary party').selectOption('');
    await stale.getByRole('button', { name: 'Update the user' }).click();
    await stale.getByRole('button', { name: 'Confirm the change' }).click();
    await stale.getByTestId('form-error').waitFor();
    expect(await stale.getByTestId('form-error').textContent()).toContain('Conflict');
    expect(await stale.getByTestId('primary-party').textContent()).toBe(party);
    await stale.close();
  });

  it('4.8: the activity feed, paged with begin_after_id', async () => {
    mint(sandbox.state, party, '5.0000000000');
    mint(sandbox.state, party, '7.0000000000');
    await page.goto(path('/ledger/activities'));
    await page.getByLabel('Party').fill(party);
    await page.getByLabel('Page size').fill('1');
    await page.getByRole('button', { name: 'Read' }).click();
    await page.getByTestId('activities-result').waitFor();
    await shot(page, 'ledger-activities');
    const firstIds = await page.locator('[data-testid="activities"] td.mono').allTextContents();
    await page.getByTestId('next-activities').click();
    await page.getByTestId('activities-result').waitFor();
    expect(page.url()).toContain('begin_after_id=');
    const nextIds = await page.locator('[data-testid="activities"] td.mono').allTextContents();
    expect(nextIds.some((id) => firstIds.includes(id))).toBe(false);
  });

  it('decides an approval in the console, and the submission goes on to commit', async () => {
    const sub = await submitNote(GATED);
    expect(sub.status).toBe('awaiting_approval');
    await page.goto(path('/approvals'));
    const card = page.locator(`article[data-id="${sub.id}"]`);
    await card.waitFor();
    expect(await card.getByTestId('rule').textContent()).toBe('gated-notes');
    await card.getByLabel('Note (optional)').fill('checked the note');
    await shot(page, 'approvals');
    await Promise.all([
      page.waitForURL(/\/console\/approvals\?decided=/),
      card.getByRole('button', { name: 'Approve' }).click(),
    ]);
    expect(await page.getByTestId('flash').textContent()).toMatch(/^You approved .*: 1 of 1, signed and/);
    await page.getByTestId('decisions').waitFor();
    expect(await page.getByTestId('decisions').textContent()).toContain('alice-ops');
    await expect
      .poll(async () => (await w.call('GET', `/wallet/v1/submissions/${sub.id}`)).json.status, {
        timeout: 30_000,
      })
      .toBe('committed');
  });

  it('answers an unknown id with a 404 page and garbage in a filter inline', async () => {
    const missing = await page.goto(path('/submissions/sub_doesnotexist'));
    expect(missing?.status()).toBe(404);
    expect(await page.getByTestId('page-error').textContent()).toContain('No submission');
    const bad = await page.goto(path('/submissions?since=yesterday'));
    expect(bad?.status()).toBe(400);
    expect(await page.content()).not.toMatch(/at .*\.tsx?:\d+/); // no stack
  });

  // Every page of the console's table (src/console/pages/index.ts), each scanned and photographed: minutes on a
  // loaded 2-core CI machine, seconds here.
  it('every page passes axe-core with no serious or critical violation', { timeout: 180_000 }, async () => {
    const scan = await browser.context({ bypassCSP: true });
    const p = await scan.newPage();
    await signIn(p, await link(w.url, 'admin', undefined, 'axe'));
    const sub = (await w.call('GET', `/wallet/v1/submissions?party=${encodeURIComponent(party)}&limit=1`))
      .json.items as { id: string }[];
    const q = encodeURIComponent(party);
    const last = await w.client.ledgerEndOffset(); // the approved note above: the party's own update
    const examples: Record<string, string | undefined> = { id: sub[0]?.id, fp: fingerprint, party };
    // Queries that make a page show its results, not only its form.
    const queries: Record<string, string> = {
      '/ledger/packages': '?pageSize=2',
      '/ledger/updates': `?party=${q}&beginExclusive=0&endInclusive=5`,
      '/ledger/update': `?party=${q}&offset=${last}&kind=update`,
      '/ledger/activities': `?party=${q}`,
    };
    const pages: [string, string][] = PAGES.filter((page) => page.get && !page.fragment).map((page) => [
      page.title.toLowerCase().replace(/\W+/g, '-'),
      page.path.replace(/:(\w+)/g, (_, name: string) => {
        const value = examples[name];
        if (value === undefined) throw new Error(`no example for :${name} (${page.path})`);
        return encodeURIComponent(value);
      }) + (queries[page.path] ?? ''),
    ]);
    pages.push(['not-found', '/nope']);
    for (const [name, p0] of pages) {
      const res = await p.goto(path(p0));
      expect(res?.status(), name).toBe(name === 'not-found' ? 404 : 200);
      await expectAccessible(p, name);
      await shot(p, `page-${name}`);
    }
    const signin = await browser.context({ bypassCSP: true });
    const s = await signin.newPage();
    await s.goto(await link(w.url, 'read'));
    await expectAccessible(s, '/signin');
    await signin.close();
    await scan.close();
  });
});
