// Issue 30 item 6 in a real Chromium against a whole wallet on the embedded sandbox: a submission's lifecycle and
// its failure explained. A transfer refused because its holding was spent names the holding and the update (and
// Quill's submission) that spent it; an attempt whose answer was lost shows "Outcome not known yet" with its deadline
// and last search; an admin's "Search the ledger now" records the search; "Mark expired" opens only once the ledger
// can no longer commit it, needs a reason, and ends it expired with "prepare again" advice and an audit entry.
import { randomUUID } from 'node:crypto';
import type { Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { launchBrowser, type TestBrowser } from '../../support/browser.ts';
import { expectAccessible, link, shot, signIn, startConsoleWallet } from '../../support/console.ts';
import { prepareOn, spendCommand, startLedger, tapCommand, walletConfig } from '../../support/wallet.ts';

const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
let ctx: BrowserContext;
let page: Page;
let party = '';

type Rec = {
  id: string;
  status: string;
  updateId?: string | null;
  error?: { code: string; message: string; contractIds?: string[] } | null;
  transaction?: { events: { CreatedEvent?: { contractId: string; templateId: string } }[] } | null;
};

beforeAll(async () => {
  sandbox = await startLedger();
  // One attempt, a ledger call given up after 1 s, a second of grace after the deadline.
  w = await startConsoleWallet(
    sandbox,
    walletConfig(inject('redisUrl'), {
      SUBMIT_MAX_ATTEMPTS: '1',
      LEDGER_TIMEOUT_MS: '1000',
      SETTLE_GRACE_SECONDS: '1',
    }),
  );
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519', label: 'lifecycle' });
  const made = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'lifecycle',
  });
  party = made.json.partyId as string;
  browser = await launchBrowser();
  ctx = await browser.context({ bypassCSP: true });
  page = await ctx.newPage();
  await signIn(page, await link(w.url, 'admin', undefined, 'ops-admin'));
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

const path = (p: string) => `${w.url}/console${p}`;

async function submitted(body: unknown): Promise<Rec> {
  const res = await w.call('POST', '/wallet/v1/submissions?wait=20', body);
  expect([200, 202]).toContain(res.status);
  return res.json as unknown as Rec;
}

async function settled(id: string, status: string): Promise<Rec> {
  await expect
    .poll(async () => (await w.call('GET', `/wallet/v1/submissions/${id}`)).json.status, { timeout: 30_000 })
    .toBe(status);
  return (await w.call('GET', `/wallet/v1/submissions/${id}`)).json as unknown as Rec;
}

describe("a submission's lifecycle, explained", () => {
  it('a refusal for a spent holding names the holding and the update that spent it', async () => {
    const tap = await submitted(
      await prepareOn(w.client, party, tapCommand(String(sandbox.state.coinRules), party, '10.0000000000')),
    );
    expect(tap.status).toBe('committed');
    const holding = tap.transaction?.events.find((e) => e.CreatedEvent?.templateId.endsWith(':Holding'))
      ?.CreatedEvent?.contractId as string;
    // Both spend the same holding, prepared before either is sent: the second finds it spent.
    const first = await prepareOn(w.client, party, spendCommand(holding, party, '4.0000000000'));
    const second = await prepareOn(w.client, party, spendCommand(holding, party, '5.0000000000'));
    const spender = await submitted(first);
    expect(spender.status).toBe('committed');
    const loser = await settled((await submitted(second)).id, 'rejected');
    expect(loser.error?.code).toBe('LOCAL_VERDICT_INACTIVE_CONTRACTS');
    expect(loser.error?.contractIds).toEqual([holding]);

    const t = await w.call('GET', `/wallet/v1/submissions/${loser.id}/timeline`);
    expect(t.status).toBe(200);
    expect(t.json).toMatchObject({
      status: 'rejected',
      explanation: { code: 'LOCAL_VERDICT_INACTIVE_CONTRACTS', title: 'An input was already spent' },
      spentInputs: [
        {
          contractId: holding,
          lookup: 'found',
          spentBy: { updateId: spender.updateId, submission: spender.id },
        },
      ],
      actions: { search: false, expireFrom: null },
    });
    const kinds = (t.json.steps as { kind: string }[]).map((s) => s.kind);
    expect(kinds).toEqual(['accepted', 'attempt', 'rejected']);

    await page.goto(path(`/submissions/${loser.id}`));
    const why = page.getByTestId('explanation');
    await expect.poll(() => why.locator('h2').textContent()).toContain('An input was already spent');
    expect(await why.textContent()).toContain('Prepare the transaction again');
    const spent = page.getByTestId('spent-inputs');
    expect(await spent.locator(`a[href="/console/submissions/${spender.id}"]`).count()).toBe(1);
    expect(await spent.locator('a[href*="updateId="]').count()).toBe(1);
    expect(await page.getByTestId('timeline').locator('li').count()).toBe(3);
    expect(await page.locator('#h-ledger-actions').count()).toBe(0);
    await shot(page, 'lifecycle-spent-input');
    await expectAccessible(page, 'a rejected submission');
    // Its spender's page links the commit to its update.
    await page.goto(path(`/submissions/${spender.id}`));
    expect(await page.locator('[data-step="committed"] a').getAttribute('href')).toContain(
      encodeURIComponent(spender.updateId ?? ''),
    );
  });

  it('an unknown outcome shows its deadline and last search, is searched on demand, then marked expired', async () => {
    // The answer to the one attempt is lost (504 before the ledger saw it): nothing commits, Quill cannot know.
    sandbox.faults.configure({ rules: [{ kind: 'timeout', endpoint: EXEC, times: 1 }] });
    const maxRecordTime = new Date(Date.now() + 10_000).toISOString();
    const body = await prepareOn(
      w.client,
      party,
      {
        CreateCommand: {
          templateId: '#quill-e2e:E2E:Note',
          createArguments: { owner: party, n: randomUUID() },
        },
      },
      'HASHING_SCHEME_VERSION_V2',
      { maxRecordTime },
    );
    const sent = await w.call('POST', '/wallet/v1/submissions', body);
    expect(sent.status).toBe(202);
    const id = sent.json.id as string;
    await expect
      .poll(async () => ((await w.call('GET', `/wallet/v1/submissions/${id}`)).json as Rec).error?.code, {
        timeout: 20_000,
      })
      .toBe('OUTCOME_UNKNOWN');
    // The worker stops here (as a worker that is down): what happens next is the admin's doing.
    await w.wallet.worker?.pause();

    await page.goto(path(`/submissions/${id}`));
    const why = page.getByTestId('explanation');
    expect(await why.locator('h2').textContent()).toContain('Outcome not known yet');
    expect(await page.getByTestId('unknown-facts').textContent()).toMatch(
      /It can commit until .*last searched/,
    );
    expect(await page.locator('[data-step="attempt"]').textContent()).toContain('no answer');
    expect(await page.getByTestId('expire-later').textContent()).toContain('Mark expired');
    expect(await page.locator('form.expire').count()).toBe(0);
    await shot(page, 'lifecycle-unknown-outcome');
    await expectAccessible(page, 'an unknown outcome');

    const before = (await w.call('GET', `/wallet/v1/submissions/${id}`)).json.searchedAt as string;
    await Promise.all([
      page.waitForURL(/ledger=searched/),
      page.getByRole('button', { name: 'Search the ledger now' }).click(),
    ]);
    expect(await page.getByTestId('ledger-flash').textContent()).toContain('not there yet');
    const after = (await w.call('GET', `/wallet/v1/submissions/${id}`)).json as { searchedAt: string };
    expect(Date.parse(after.searchedAt)).toBeGreaterThan(Date.parse(before));
    expect(await page.locator('[data-step="searched"]').count()).toBe(1);

    // Before the deadline (and its grace) the API refuses to expire it.
    const early = await w.call('POST', `/wallet/v1/submissions/${id}/expire`, { reason: 'too early' });
    expect([early.status, (early.json as Rec).error?.code]).toEqual([409, 'STILL_COMMITTABLE']);
    const t = await w.call('GET', `/wallet/v1/submissions/${id}/timeline`);
    const from = Date.parse((t.json.actions as { expireFrom: string }).expireFrom);
    expect(from).toBeGreaterThan(Date.parse(maxRecordTime));
    await new Promise((r) => setTimeout(r, Math.max(0, from - Date.now() + 200)));

    await page.goto(path(`/submissions/${id}`));
    const reason = page.getByLabel('Why mark it expired');
    // A reason under 3 characters is refused in the browser, and nothing changes.
    await reason.fill('x');
    await page.getByRole('button', { name: 'Mark expired' }).click();
    expect(
      await reason.evaluate((el) => (el as unknown as { validity: { valid: boolean } }).validity.valid),
    ).toBe(false);
    expect((await w.call('GET', `/wallet/v1/submissions/${id}`)).json.status).toBe('executing');
    await page.getByLabel('Why mark it expired').fill('worker down; the ledger cannot commit it any more');
    await Promise.all([
      page.waitForURL(/ledger=expired/),
      page.getByRole('button', { name: 'Mark expired' }).click(),
    ]);
    const rec = (await w.call('GET', `/wallet/v1/submissions/${id}`)).json as unknown as Rec;
    expect(rec.status).toBe('expired');
    expect(rec.error?.code).toBe('MAX_RECORD_TIME_PASSED');
    expect(rec.error?.message).toContain('marked expired by ops-admin');
    expect(await page.getByTestId('explanation').locator('h2').textContent()).toContain('Too late to commit');
    expect(await page.getByTestId('explanation').textContent()).toContain('Prepare the transaction again');
    expect(await page.locator('[data-step="expired"]').count()).toBe(1);
    await shot(page, 'lifecycle-marked-expired');
    await expectAccessible(page, 'an expired submission');
    const audit = await w.call('GET', '/wallet/v1/audit?kind=submission.expire');
    expect(JSON.stringify(audit.json)).toContain(id);
    await w.wallet.worker?.resume();
  }, 60_000);
});
