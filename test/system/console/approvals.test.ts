// Approving in the console is unambiguous and safe, and says what is approved (issue 30 items 1 and 2), in a real
// Chromium under the console's CSP against a whole wallet on the embedded sandbox: a USDQ transfer held for two of
// the treasury group shows who sends how much of what to whom, on the card and atop the submission page; Enter in
// any text field never approves; a rejection needs a reason (in the browser, the console's POST and the API); the
// submitter, a non-member and someone who decided already are offered no decision and told why, as is everyone
// for a disabled key's submission; the quorum's progress; the message after a decision; axe; screenshots at 1280 and
// 390 px (QUILL_SHOTS, default test-results/console).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { grantPreapproval, mintHolding, type Sandbox } from '@quill/sandbox';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken, type Role } from '../../../src/auth/index.ts';
import { compareDecimal } from '../../../src/policy/index.ts';
import { launchBrowser, SCREENSHOTS, type TestBrowser } from '../../support/browser.ts';
import { expectAccessible, httpSession, link, signIn, startConsoleWallet } from '../../support/console.ts';
import { until } from '../../support/events.ts';
import { tempDir } from '../../support/tmp.ts';
import { SECRET, startLedger, walletConfig } from '../../support/wallet.ts';

const SHOTS = process.env.QUILL_SHOTS ?? SCREENSHOTS;
const TYPED = 'REJECT: amount is wrong, do not pay';
/** Every field a person can type into (the sign-out form has none). */
const FIELDS = 'main input:not([type=hidden]), main textarea';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let browser: TestBrowser;
const contexts: BrowserContext[] = [];
let payer = '';
let receiver = '';
let payerKey = '';

beforeAll(async () => {
  sandbox = await startLedger();
  const policy = join(tempDir('quill-console-approvals-'), 'policy.yaml');
  writeFileSync(
    policy,
    [
      'default: allow',
      'groups:',
      '  treasury: [alice, bob, erin]',
      'rules:',
      '  - name: big-payments',
      '    match: { amount: { gt: "100" } }',
      '    action: approve',
      '    quorum: 2',
      '    group: treasury',
      '    ttl: 4h',
      '',
    ].join('\n'),
  );
  w = await startConsoleWallet(
    sandbox,
    walletConfig(inject('redisUrl'), { POLICY_FILE: policy, WATCHER_IDLE_TIMEOUT_MS: '100' }),
  );
  const onboard = async (hint: string) => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    const party = await w.call('POST', '/wallet/v1/parties', {
      keyFingerprint: key.json.fingerprint,
      partyHint: hint,
    });
    return { party: party.json.partyId as string, key: key.json.fingerprint as string };
  };
  ({ party: payer, key: payerKey } = await onboard('payer'));
  receiver = (await onboard('treasury')).party;
  grantPreapproval(sandbox.state, 'usdq', receiver);
  // One holding per transfer: a holding a waiting transfer spends is not spent again.
  for (let i = 0; i < 12; i++) mintHolding(sandbox.state, 'usdq', payer, '1000');
  await until(
    async () => {
      const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(payer)}/holdings`);
      const i = (r.json.instruments as { unlocked: string }[] | undefined) ?? [];
      return i.some((x) => compareDecimal(x.unlocked, '12000') >= 0);
    },
    15_000,
    'the mint indexed',
  );
  browser = await launchBrowser();
}, 90_000);

afterAll(async () => {
  for (const c of contexts) await c.close().catch(() => undefined);
  await browser?.close();
  await w?.wallet.close();
  await sandbox?.close();
});

const path = (p: string) => `${w.url}/console${p}`;
const token = (role: Role, subject: string) => issueToken({ secret: SECRET, role, ttlSeconds: 600, subject });

interface Held {
  id: string;
  hash: string;
}

/** carol (submit role) asks for a USDQ transfer of `amount` to the treasury party; over 100 it waits for two. */
async function held(amount = '250', from = payer): Promise<Held> {
  const usdq = sandbox.registries.usdq;
  const res = await w.call(
    'POST',
    '/wallet/v1/transfers?wait=0',
    { party: from, receiver, instrument: usdq.instrumentId, amount, memo: 'invoice 7' },
    await token('submit', 'carol'),
  );
  expect(res.json, JSON.stringify(res.json)).toMatchObject({ status: 'awaiting_approval' });
  return { id: res.json.id as string, hash: res.json.preparedTransactionHash as string };
}

type Rec = {
  status: string;
  approvals?: { subject: string; decision: string; reason: string | null }[];
};
const record = async (id: string) => (await w.call('GET', `/wallet/v1/submissions/${id}`)).json as Rec;
const approvesOf = async (id: string) =>
  ((await record(id)).approvals ?? []).filter((a) => a.decision === 'approve');

/** A browser of its own for one person, signed in with the approve role (or `role`). */
async function person(subject: string, role: Role = 'approve', bypassCSP = false): Promise<Page> {
  const ctx = await browser.context(bypassCSP ? { bypassCSP } : undefined);
  contexts.push(ctx);
  const page = await ctx.newPage();
  await signIn(page, await link(w.url, role, undefined, subject));
  return page;
}

async function shoot(page: Page, name: string): Promise<void> {
  mkdirSync(SHOTS, { recursive: true });
  await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
}

const shortParty = (p: string) =>
  `${p.slice(0, p.indexOf('::') + 2)}${p.slice(p.indexOf('::') + 2).slice(0, 12)}…`;

describe('approving in the console', () => {
  it('the card and the submission page say in one sentence who sends how much of what to whom', async () => {
    const s = await held();
    const alice = await person('alice');
    await alice.goto(path('/approvals'));
    const card = alice.locator(`article[data-id="${s.id}"]`);
    const sentence = await card.getByTestId('sentence').textContent();
    expect(sentence).toContain(`${shortParty(payer)} sends 250.0 USDQ`);
    expect(sentence).toContain(`to ${shortParty(receiver)}`);
    expect(sentence).toContain("memo 'invoice 7'");
    expect(sentence).toMatch(/back as change/);
    // Package names, not 64-hex package ids (the id on hover).
    await card.getByText(/^\d+ actions?$/).click();
    const actions = (await card.getByRole('list', { name: 'Actions' }).textContent()) ?? '';
    expect(actions).not.toMatch(/[0-9a-f]{64}/);
    expect(await card.locator('ul.actions [title]').first().getAttribute('title')).toMatch(/^[0-9a-f]{64}:/);
    expect(await card.getByTestId('hash-to-sign').textContent()).toContain(`${s.hash} ✓ matches`);
    expect(await card.getByTestId('progress').textContent()).toMatch(
      /^0 of 2 · needs 2 more from treasury · 3 h 5\d min left$/,
    );

    await alice.goto(path(`/submissions/${s.id}`));
    // The sentence comes first in the page, before any fact.
    const first = alice.locator('main > h1 + *');
    expect(await first.getAttribute('data-testid')).toBe('sentence');
    expect(await first.textContent()).toContain(`to ${shortParty(receiver)}`);
    expect(await alice.getByRole('heading', { name: 'What will be signed' }).count()).toBe(1);
    expect(await alice.locator('main').textContent()).toContain('Hash to sign (recomputed)');
    expect(await alice.getByTestId('recomputed-hash').textContent()).toContain('(matches)');
  });

  it('Enter in any text field of the approvals and the submission page never approves', async () => {
    const a = await held();
    const b = await held();
    const bob = await person('bob');
    const tried = { approvals: 0, submission: 0 };
    /** Types into each field of the page and presses Enter, one field per fresh load, until none is left untried. */
    async function everyField(url: string, where: keyof typeof tried) {
      const done = new Set<string>();
      for (;;) {
        await bob.goto(url);
        // A field is known by its form's action and its name (a rejected card's fields are gone on the next load).
        const keys = await bob
          .locator(FIELDS)
          .evaluateAll((els) =>
            els.map(
              (e) => `${e.closest('form')?.getAttribute('action') ?? ''}|${e.getAttribute('name') ?? ''}`,
            ),
          );
        const i = keys.findIndex((k) => !done.has(k));
        if (i < 0) break;
        done.add(keys[i] as string);
        const f = bob.locator(FIELDS).nth(i);
        await f.fill(TYPED);
        const before = bob.url();
        await f.press('Enter');
        // A form sent by Enter navigates; a textarea takes the newline and nothing is sent.
        await bob.waitForURL((u) => u.toString() !== before, { timeout: 1500 }).catch(() => undefined);
        await bob.waitForLoadState('load');
        tried[where]++;
        for (const s of [a, b]) expect(await approvesOf(s.id), `${url} ${keys[i]}`).toEqual([]);
      }
    }
    await everyField(path(`/submissions/${a.id}`), 'submission');
    await everyField(path('/approvals'), 'approvals');
    // Each page had a note and a reason field per submission; Enter in a reason rejected it, with that reason.
    expect(tried.submission).toBeGreaterThanOrEqual(2);
    expect(tried.approvals).toBeGreaterThanOrEqual(2);
    for (const s of [a, b]) {
      const r = await record(s.id);
      expect(r.status).toBe('rejected');
      expect(r.approvals).toEqual([
        expect.objectContaining({ subject: 'bob', decision: 'reject', reason: TYPED }),
      ]);
    }
  });

  it('a rejection needs a reason: the browser, the console and the API refuse one without', async () => {
    const s = await held();
    const erin = await person('erin');
    await erin.goto(path('/approvals'));
    const card = erin.locator(`article[data-id="${s.id}"]`);
    await card.getByRole('button', { name: 'Reject' }).click();
    expect(
      await card
        .getByLabel('Reason (required to reject)')
        .evaluate((e) => (e as unknown as { validity: { valid: boolean } }).validity.valid),
    ).toBe(false);
    expect(erin.url()).toBe(path('/approvals'));
    // Past the browser: the console's own POST, with a blank reason.
    const session = await httpSession(w.url, await link(w.url, 'approve', undefined, 'erin'));
    const res = await fetch(`${w.url}/console/approvals/${s.id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: session.cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: session.csrf, hash: s.hash, decision: 'reject', reason: '   ' }),
    });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('a rejection needs a reason');
    // And the API.
    const api = await w.call(
      'POST',
      `/wallet/v1/submissions/${s.id}/approvals`,
      { decision: 'reject', hash: s.hash },
      await token('approve', 'erin'),
    );
    expect({ status: api.status, code: (api.json.error as { code: string }).code }).toEqual({
      status: 400,
      code: 'REASON_REQUIRED',
    });
    expect((await record(s.id)).status).toBe('awaiting_approval');
    expect((await record(s.id)).approvals).toEqual([]);
  });

  it('the submitter and a non-member are offered no decision, and told why', async () => {
    const s = await held();
    for (const [who, why] of [
      ['carol', 'You submitted it: someone else must decide (four eyes).'],
      ['dave', 'Only the treasury group decides it, and you are not in it.'],
    ] as const) {
      const page = await person(who);
      for (const url of [path('/approvals'), path(`/submissions/${s.id}`)]) {
        await page.goto(url);
        const scope = url.endsWith('/approvals')
          ? page.locator(`article[data-id="${s.id}"]`)
          : page.locator('main');
        expect(await scope.getByRole('button', { name: /Approve|Reject/ }).count(), `${who} ${url}`).toBe(0);
        expect(await scope.getByTestId('why-not').textContent()).toBe(why);
      }
    }
  });

  it('shows the quorum filling up, says what each decision did, and then offers nothing more', async () => {
    const s = await held();
    const alice = await person('alice');
    await alice.goto(path('/approvals'));
    const card = alice.locator(`article[data-id="${s.id}"]`);
    await card.getByLabel('Note (optional)').fill('matches invoice 7');
    await Promise.all([
      alice.waitForURL(/\/console\/approvals\?decided=/),
      card.getByRole('button', { name: 'Approve' }).click(),
    ]);
    const flash = alice.getByTestId('flash');
    expect(await flash.textContent()).toMatch(/^You approved sub_.*: 1 of 2, needs 1 more\.$/);
    expect(await flash.getByRole('link').getAttribute('href')).toBe(`/console/submissions/${s.id}`);
    expect(await card.getByTestId('progress').textContent()).toMatch(
      /^1 of 2 · alice ✓ · needs 1 more from treasury · 3 h 5\d min left$/,
    );
    expect(await card.getByTestId('why-not').textContent()).toBe('You already approved it.');
    // No decision is offered (the copy buttons beside its ids are not decisions).
    expect(await card.locator('button:not(.copy)').count()).toBe(0);
    await shoot(alice, 'approvals-after-alice-1280');

    // bob decides from the submission page.
    const bob = await person('bob');
    await bob.goto(path(`/submissions/${s.id}`));
    await Promise.all([
      bob.waitForURL(new RegExp(`/console/submissions/${s.id}\\?decided=`)),
      bob.getByRole('button', { name: 'Approve' }).click(),
    ]);
    expect(await bob.getByTestId('flash').textContent()).toMatch(
      /^You approved sub_.*: 2 of 2, signed and (queued for the ledger|committed)\.$/,
    );
    expect((await approvesOf(s.id)).map((a) => a.subject)).toEqual(['alice', 'bob']);
  });

  it("a disabled key's submission may be rejected, not approved", async () => {
    const s = await held();
    // The payer's key is disabled while the transfer waits (the other submissions here are decided already).
    expect((await w.call('POST', `/wallet/v1/keys/${payerKey}/disable`)).status).toBe(200);
    const alice = await person('alice');
    await alice.goto(path('/approvals'));
    const card = alice.locator(`article[data-id="${s.id}"]`);
    expect(await card.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await card.getByTestId('why-not').textContent()).toMatch(
      /is disabled: an approval could not sign it/,
    );
    expect(await card.getByRole('button', { name: 'Reject' }).count()).toBe(1);
  });
});

describe('the approvals pages look right and pass axe', () => {
  it('at 1280 and 390 px, with no serious or critical axe violation', async () => {
    // Fresh ones to show (the payer's key is disabled by now: a second payer).
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    const p2 = (
      await w.call('POST', '/wallet/v1/parties', {
        keyFingerprint: key.json.fingerprint,
        partyHint: 'payer2',
      })
    ).json.partyId as string;
    mintHolding(sandbox.state, 'usdq', p2, '5000');
    await until(
      async () => {
        const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(p2)}/holdings`);
        return ((r.json.instruments as unknown[] | undefined) ?? []).length > 0;
      },
      15_000,
      'the mint indexed',
    );
    const s = await held('1250', p2);
    const page = await person('alice', 'approve', true);
    await page.goto(path('/approvals'));
    await expectAccessible(page, 'approvals');
    await shoot(page, 'approvals-1280');
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(path('/approvals'));
    await shoot(page, 'approvals-390');
    await page.setViewportSize({ width: 1280, height: 900 });
    await page.goto(path(`/submissions/${s.id}`));
    await expectAccessible(page, 'submission awaiting approval');
    await shoot(page, 'submission-awaiting-1280');
  });
});
