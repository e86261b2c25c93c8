// Approval policies through the HTTP API (issue 15): deny, hold unsigned, hash-bound decisions by distinct
// subjects, quorum signs exactly once under 20 racing approvals, reject (with a reason), expiry, party scope,
// roles, dry run.

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SANDBOX_RECOGNIZERS } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog, verifyAuditChain } from '../../../src/audit/index.ts';
import { issueToken, type Role } from '../../../src/auth/index.ts';
import { SubmissionStore } from '../../../src/submissions/index.ts';
import { apiHarness, coinTransfer, SECRET } from '../../support/api-harness.ts';
import { testRedis } from '../../support/records.ts';

/** The audit chain of a store's deployment. */
const auditOf = (s: { redis: import('ioredis').Redis; prefix: string }) => new AuditLog(s.redis, s.prefix);

const POLICY = `
default: allow
groups:
  treasury: [appr-1, appr-2, appr-3, appr-4, appr-5, appr-6, appr-7, appr-8, appr-9, appr-10, appr-11, appr-12,
    appr-13, appr-14, appr-15, appr-16, appr-17, appr-18, appr-19, appr-20, appr-21, appr-22]
rules:
  - name: no-x
    match: { counterparty: X::1 }
    action: deny
    reason: transfers to X are not allowed
  - name: short-ttl
    match: { template: "#quill-coin:Quill.Coin:Holding", amount: { gte: "7777" } }
    action: approve
    quorum: 2
    ttl: 1s
  - name: big
    match: { template: "#quill-coin:Quill.Coin:Holding", amount: { gt: "100.0" } }
    action: approve
    quorum: 2
    group: treasury
    ttl: 1h
`;

const transfer = coinTransfer;

describe('approval policy over the API', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  let store: SubmissionStore;
  const redis = testRedis();
  const tok = (role: Role, subject: string, party?: string) =>
    issueToken({ secret: SECRET, role, ttlSeconds: 600, subject, ...(party ? { party } : {}) });

  beforeAll(async () => {
    const dir = (await import('node:fs')).mkdtempSync(
      join((await import('node:os')).tmpdir(), 'quill-policy-'),
    );
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, POLICY);
    h = await apiHarness({ POLICY_FILE: file }, { recognizers: SANDBOX_RECOGNIZERS });
    store = new SubmissionStore(redis, h.config.redisPrefix);
  });
  afterAll(async () => {
    await h?.close();
    redis.disconnect();
  });

  async function signatures(id: string): Promise<number> {
    const entries = await auditOf(store).signatures();
    return entries.filter((e) => e.submission === id && e.stored === 'true').length;
  }

  it('allows small transfers, denies transfers to X, holds big ones unsigned', async () => {
    const alice = await h.party('alice');
    const submitter = await tok('submit', 'sub-1');
    const small = await h.call('POST', '/wallet/v1/submissions', {
      token: submitter,
      body: transfer(alice.id, 'bob::1', '50.0').body,
    });
    expect(small.status).toBe(202);
    expect(small.json.status).toBe('queued');

    const denied = await h.call('POST', '/wallet/v1/submissions', {
      token: submitter,
      body: transfer(alice.id, 'X::1', '1.0').body,
    });
    expect(denied.status).toBe(422);
    expect(denied.json.error?.code).toBe('POLICY_DENIED');
    expect(denied.json.error?.message).toContain('transfers to X are not allowed');

    const big = transfer(alice.id, 'bob::1', '500.0');
    const held = await h.call('POST', '/wallet/v1/submissions', { token: submitter, body: big.body });
    expect(held.status).toBe(202);
    expect(held.json.status).toBe('awaiting_approval');
    expect(held.json.approval).toMatchObject({ rule: 'big', quorum: 2, group: 'treasury' });
    const id = held.json.id as string;
    expect(await signatures(id)).toBe(0);

    const list = await h.call('GET', '/wallet/v1/approvals', { token: await tok('approve', 'appr-1') });
    expect(list.status).toBe(200);
    expect((list.json.items as { id: string }[]).map((r) => r.id)).toContain(id);

    const url = `/wallet/v1/submissions/${id}/approvals`;
    // submit role cannot approve; the submitter cannot approve its own; a stale hash is refused
    expect(
      (await h.call('POST', url, { token: submitter, body: { decision: 'approve', hash: big.hashHex } }))
        .status,
    ).toBe(403);
    const self = await h.call('POST', url, {
      token: await tok('approve', 'sub-1'),
      body: { decision: 'approve', hash: big.hashHex },
    });
    expect(self.json.error?.code).toBe('SELF_APPROVAL');
    const stale = await h.call('POST', url, {
      token: await tok('approve', 'appr-1'),
      body: { decision: 'approve', hash: 'ab'.repeat(32) },
    });
    expect(stale.status).toBe(409);
    expect(stale.json.error?.code).toBe('HASH_MISMATCH');
    const outsider = await h.call('POST', url, {
      token: await tok('approve', 'mallory'),
      body: { decision: 'approve', hash: big.hashHex },
    });
    expect(outsider.json.error?.code).toBe('NOT_AN_APPROVER');

    const one = await h.call('POST', url, {
      token: await tok('approve', 'appr-1'),
      body: { decision: 'approve', hash: big.hashHex },
    });
    expect(one.status).toBe(200);
    expect(one.json.status).toBe('awaiting_approval');
    const again = await h.call('POST', url, {
      token: await tok('approve', 'appr-1'),
      body: { decision: 'approve', hash: big.hashHex },
    });
    expect(again.json.error?.code).toBe('ALREADY_DECIDED');
    const two = await h.call('POST', url, {
      token: await tok('admin', 'appr-2'),
      body: { decision: 'approve', hash: big.hashHex, reason: 'ok' },
    });
    expect(two.status).toBe(200);
    expect(two.json.status).toBe('queued');
    expect(two.json.approvals).toHaveLength(2);
    expect(await signatures(id)).toBe(1);
    const late = await h.call('POST', url, {
      token: await tok('approve', 'appr-3'),
      body: { decision: 'reject', hash: big.hashHex, reason: 'too late' },
    });
    expect(late.json.error?.code).toBe('NOT_AWAITING_APPROVAL');
  });

  it('20 parallel approvals of one submission sign exactly once', async () => {
    const alice = await h.party('alice');
    const big = transfer(alice.id, 'bob::1', '250.0');
    const held = await h.call('POST', '/wallet/v1/submissions', {
      token: await tok('submit', 'sub-2'),
      body: big.body,
    });
    const id = held.json.id as string;
    const results = await Promise.all(
      Array.from({ length: 20 }, async (_, i) =>
        h.call('POST', `/wallet/v1/submissions/${id}/approvals`, {
          token: await tok('approve', `appr-${i + 1}`),
          body: { decision: 'approve', hash: big.hashHex },
        }),
      ),
    );
    // The rule's quorum (2) decides it; every later decision finds it no longer awaiting approval.
    expect(results.filter((r) => r.status === 200)).toHaveLength(2);
    for (const r of results.filter((r) => r.status !== 200))
      expect({ status: r.status, code: r.json.error?.code }).toEqual({
        status: 409,
        code: 'NOT_AWAITING_APPROVAL',
      });
    expect(await signatures(id)).toBe(1);
    const rec = await h.call('GET', `/wallet/v1/submissions/${id}`, { token: await tok('read', 'r') });
    expect(rec.json.status).toBe('queued');
    // Each decision that landed is an entry of the audit chain, written with it; the chain still verifies.
    const chain = await auditOf(store).entries('0-0', 10_000);
    const decided = chain.filter(
      (e) =>
        e.fields.some(([k, v]) => k === 'kind' && v === 'approval') &&
        e.fields.some(([k, v]) => k === 'submission' && v === id),
    );
    expect(decided.length).toBe(results.filter((r) => r.status === 200).length);
    expect(chain.some((e) => e.fields.some(([k, v]) => k === 'kind' && v === 'policy'))).toBe(true);
    expect(verifyAuditChain(chain, await auditOf(store).head())).toMatchObject({ ok: true });
  });

  it('a rejection ends it rejected, never signed; expiry ends it expired', async () => {
    const alice = await h.party('alice');
    const big = transfer(alice.id, 'bob::1', '500.0');
    const held = await h.call('POST', '/wallet/v1/submissions', {
      token: await tok('submit', 'sub-3'),
      body: big.body,
    });
    const id = held.json.id as string;
    // A rejection says why: none, or only blanks, is refused and changes nothing.
    for (const reason of [undefined, '', '   \n ']) {
      const bare = await h.call('POST', `/wallet/v1/submissions/${id}/approvals`, {
        token: await tok('approve', 'appr-4'),
        body: { decision: 'reject', hash: big.hashHex, ...(reason !== undefined ? { reason } : {}) },
      });
      expect({ status: bare.status, code: bare.json.error?.code }).toEqual({
        status: 400,
        code: 'REASON_REQUIRED',
      });
    }
    const waiting = await h.call('GET', '/wallet/v1/approvals', { token: await tok('approve', 'appr-4') });
    const item = (waiting.json.items as { id: string; approvals: unknown[]; keyStatus: string }[]).find(
      (x) => x.id === id,
    );
    expect(item).toMatchObject({ approvals: [], keyStatus: 'active' });
    const r = await h.call('POST', `/wallet/v1/submissions/${id}/approvals`, {
      token: await tok('approve', 'appr-4'),
      body: { decision: 'reject', hash: big.hashHex, reason: 'too much' },
    });
    expect(r.json.status).toBe('rejected');
    expect(r.json.error).toEqual({ code: 'APPROVAL_REJECTED', message: 'rejected by appr-4: too much' });
    expect(await signatures(id)).toBe(0);

    const quick = transfer(alice.id, 'bob::1', '7777.0');
    const q = await h.call('POST', '/wallet/v1/submissions', {
      token: await tok('submit', 'sub-3'),
      body: quick.body,
    });
    expect(q.json.approval).toMatchObject({ rule: 'short-ttl' });
    await new Promise((res) => setTimeout(res, 1100));
    const after = await h.call('POST', `/wallet/v1/submissions/${q.json.id}/approvals`, {
      token: await tok('approve', 'anyone'),
      body: { decision: 'approve', hash: quick.hashHex },
    });
    expect(after.status).toBe(409);
    expect(after.json.error?.code).toBe('APPROVAL_EXPIRED');
    const rec = await h.call('GET', `/wallet/v1/submissions/${q.json.id}`, { token: await tok('read', 'r') });
    expect(rec.json.status).toBe('expired');
    expect(await signatures(q.json.id as string)).toBe(0);
  });

  it('party scope: a scoped approver neither sees nor decides another party', async () => {
    const alice = await h.party('alice');
    const carol = await h.party('carol');
    const big = transfer(alice.id, 'bob::1', '500.0');
    const held = await h.call('POST', '/wallet/v1/submissions', {
      token: await tok('submit', 'sub-4'),
      body: big.body,
    });
    const id = held.json.id as string;
    const scoped = await tok('approve', 'appr-5', carol.id);
    const list = await h.call('GET', '/wallet/v1/approvals', { token: scoped });
    expect((list.json.items as { id: string }[]).map((r) => r.id)).not.toContain(id);
    expect(
      (await h.call('GET', `/wallet/v1/approvals?party=${encodeURIComponent(alice.id)}`, { token: scoped }))
        .status,
    ).toBe(403);
    const d = await h.call('POST', `/wallet/v1/submissions/${id}/approvals`, {
      token: scoped,
      body: { decision: 'approve', hash: big.hashHex },
    });
    expect(d.status).toBe(404);
    const ev = await h.call('POST', '/wallet/v1/policy/evaluate', { token: scoped, body: big.body });
    expect(ev.status).toBe(403);
    const mine = await h.call('GET', `/wallet/v1/approvals?party=${encodeURIComponent(alice.id)}`, {
      token: await tok('approve', 'appr-5', alice.id),
    });
    expect((mine.json.items as { id: string }[]).map((r) => r.id)).toContain(id);
    // approve cannot submit
    const sub = await h.call('POST', '/wallet/v1/submissions', {
      token: await tok('approve', 'appr-5'),
      body: big.body,
    });
    expect(sub.status).toBe(403);
  });

  it('dry run and policy read; garbage answered with 4xx', async () => {
    const alice = await h.party('alice');
    const ev = await h.call('POST', '/wallet/v1/policy/evaluate', {
      token: await tok('read', 'r'),
      body: transfer(alice.id, 'bob::1', '500.0').body,
    });
    expect(ev.status).toBe(200);
    expect(ev.json).toMatchObject({
      rule: 'big',
      outflows: [{ instrument: { admin: 'operator::1220op', id: 'QuillCoin' }, amount: '500' }],
      outcome: { action: 'approve', quorum: 2 },
    });
    const pol = await h.call('GET', '/wallet/v1/policy', { token: await tok('admin', 'a') });
    expect(pol.json.version).toBe(1);
    expect((await h.call('GET', '/wallet/v1/policy', { token: await tok('read', 'r') })).status).toBe(403);
    const bad = await h.call('POST', '/wallet/v1/policy/evaluate', {
      token: await tok('read', 'r'),
      body: { preparedTransaction: 'AAAA', hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2' },
    });
    expect(bad.status).toBe(400);
    for (const [body, status, code] of [
      [{}, 400, 'INVALID_REQUEST'],
      [{ decision: 'maybe', hash: 'x' }, 400, 'INVALID_REQUEST'],
      ['nope', 400, 'INVALID_JSON'],
      [{ decision: 'approve', hash: 'zz' }, 404, 'NOT_FOUND'], // well-formed: there is no sub_x
    ] as const) {
      const r = await h.call('POST', '/wallet/v1/submissions/sub_x/approvals', {
        token: await tok('approve', 'a'),
        body,
      });
      expect({ status: r.status, code: r.json.error?.code }, JSON.stringify(body)).toEqual({ status, code });
    }
  });
});

describe('approval metrics', () => {
  it('exposes pending approvals, decisions by outcome and time to quorum', async () => {
    const dir = (await import('node:fs')).mkdtempSync(
      join((await import('node:os')).tmpdir(), 'quill-policy-'),
    );
    const file = join(dir, 'policy.yaml');
    writeFileSync(file, 'rules:\n  - {name: all, action: approve, quorum: 1}\n');
    const h = await apiHarness({ POLICY_FILE: file }, { recognizers: SANDBOX_RECOGNIZERS });
    try {
      const alice = await h.party('alice');
      const t = transfer(alice.id, 'bob::1', '1.0');
      const sub = issueToken({ secret: SECRET, role: 'submit', ttlSeconds: 600, subject: 's' });
      const held = await h.call('POST', '/wallet/v1/submissions', { token: await sub, body: t.body });
      let m = (await h.call('GET', '/metrics')).text;
      expect(m).toMatch(/^quill_approvals_pending 1$/m);
      const ok = await h.call('POST', `/wallet/v1/submissions/${held.json.id}/approvals`, {
        token: await issueToken({ secret: SECRET, role: 'approve', ttlSeconds: 600, subject: 'a' }),
        body: { decision: 'approve', hash: t.hashHex },
      });
      expect(ok.json.status).toBe('queued');
      m = (await h.call('GET', '/metrics')).text;
      expect(m).toMatch(/^quill_approvals_pending 0$/m);
      expect(m).toMatch(/^quill_approval_decisions_total\{decision="approve"\} 1$/m);
      expect(m).toMatch(/^quill_approval_time_to_quorum_seconds_count 1$/m);
    } finally {
      await h.close();
    }
  });
});

describe('velocity through the API', () => {
  it('trips on the Nth transfer inside its window and not after the window', async () => {
    const dir = (await import('node:fs')).mkdtempSync(
      join((await import('node:os')).tmpdir(), 'quill-policy-'),
    );
    const file = join(dir, 'policy.yaml');
    writeFileSync(
      file,
      'rules:\n  - name: burst\n    match: { velocity: { window: 2s, maxCount: 2 } }\n    action: deny\n    reason: too many\n',
    );
    const h = await apiHarness({ POLICY_FILE: file }, { recognizers: SANDBOX_RECOGNIZERS });
    try {
      const alice = await h.party('alice');
      const token = await issueToken({ secret: SECRET, role: 'submit', ttlSeconds: 600, subject: 's' });
      const send = async () =>
        (
          await h.call('POST', '/wallet/v1/submissions', {
            token,
            body: transfer(alice.id, 'bob::1', '1.0').body,
          })
        ).status;
      expect(await send()).toBe(202);
      expect(await send()).toBe(202);
      expect(await send()).toBe(422);
      await new Promise((r) => setTimeout(r, 2100));
      expect(await send()).toBe(202);
    } finally {
      await h.close();
    }
  });
  it("sums each record's outflow of the same instrument: the one that takes it over maxAmount is denied", async () => {
    const dir = (await import('node:fs')).mkdtempSync(
      join((await import('node:os')).tmpdir(), 'quill-policy-'),
    );
    const file = join(dir, 'policy.yaml');
    writeFileSync(
      file,
      `rules:
  - name: coin-hourly
    match:
      instrument: { admin: "operator::1220op", id: QuillCoin }
      velocity: { window: 1h, maxAmount: "100" }
    action: deny
`,
    );
    const h = await apiHarness({ POLICY_FILE: file }, { recognizers: SANDBOX_RECOGNIZERS });
    try {
      const alice = await h.party('alice');
      const token = await issueToken({ secret: SECRET, role: 'submit', ttlSeconds: 600, subject: 's' });
      const send = (amount: string) =>
        h.call('POST', '/wallet/v1/submissions', { token, body: transfer(alice.id, 'bob::1', amount).body });
      const first = await send('60.0');
      expect(first.status).toBe(202);
      const rec = await h.call('GET', `/wallet/v1/submissions/${first.json.id}`, { token });
      expect(rec.json).toMatchObject({
        outflows: [{ instrument: { admin: 'operator::1220op', id: 'QuillCoin' }, amount: '60' }],
        amount: '60',
      });
      expect((await send('40.0')).status).toBe(202);
      const over = await send('0.5');
      expect(over.status).toBe(422);
      expect(over.json.error?.message).toContain('coin-hourly');
    } finally {
      await h.close();
    }
  });
});

describe('policy versions', () => {
  it('PUT makes a new numbered version that accept applies at once; bad documents are 400 with paths', async () => {
    const h = await apiHarness({});
    try {
      const admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 600, subject: 'root' });
      const alice = await h.party('alice');
      const submit = await issueToken({ secret: SECRET, role: 'submit', ttlSeconds: 600, subject: 's' });
      expect((await h.call('GET', '/wallet/v1/policy', { token: admin })).json).toEqual({
        version: null,
        document: null,
        documentHash: null,
      });
      const put = await h.call('PUT', '/wallet/v1/policy', {
        token: admin,
        body: { rules: [{ name: 'none', action: 'deny', reason: 'frozen' }] },
      });
      expect(put.status).toBe(200);
      expect(put.json).toMatchObject({ version: 1, by: 'root' });
      const refused = await h.call('POST', '/wallet/v1/submissions', {
        token: submit,
        body: transfer(alice.id, 'b::1', '1.0').body,
      });
      expect(refused.json.error?.code).toBe('POLICY_DENIED');
      const second = await h.call('PUT', '/wallet/v1/policy', { token: admin, body: { default: 'allow' } });
      expect(second.json.version).toBe(2);
      const ok = await h.call('POST', '/wallet/v1/submissions', {
        token: submit,
        body: transfer(alice.id, 'b::1', '1.0').body,
      });
      expect(ok.status).toBe(202);
      const bad = await h.call('PUT', '/wallet/v1/policy', {
        token: admin,
        body: { rules: [{ name: 'x', action: 'approve', quorum: 0, 'evil\u202e': 1 }] },
      });
      expect(bad.status).toBe(400);
      expect(bad.json.error?.code).toBe('POLICY_INVALID');
      expect(bad.json.error?.message).toContain('rules[0].quorum');
      expect(bad.json.error?.message).not.toContain('\u202e');
      const scoped = await issueToken({
        secret: SECRET,
        role: 'admin',
        ttlSeconds: 600,
        subject: 'x',
        party: alice.id,
      });
      expect((await h.call('PUT', '/wallet/v1/policy', { token: scoped, body: {} })).status).toBe(403);
      expect((await h.call('PUT', '/wallet/v1/policy', { token: submit, body: {} })).status).toBe(403);
      expect((await h.call('PUT', '/wallet/v1/policy', { token: admin, body: '[1]' })).status).toBe(400);
      expect((await h.call('GET', '/wallet/v1/policy', { token: admin })).json.version).toBe(2);
    } finally {
      await h.close();
    }
  });
});

describe('approvals are decided under the policy in force (issue 29 item 3)', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  let store: SubmissionStore;
  let alice = '';
  const redis = testRedis();
  const tok = (role: Role, subject: string) => issueToken({ secret: SECRET, role, ttlSeconds: 600, subject });
  const HOLD = {
    name: 'hold',
    match: { template: '#quill-coin:Quill.Coin:Holding' },
    action: 'approve',
    quorum: 1,
  };

  beforeAll(async () => {
    h = await apiHarness({}, { recognizers: SANDBOX_RECOGNIZERS });
    store = new SubmissionStore(redis, h.config.redisPrefix);
    alice = (await h.party('alice')).id;
  });
  afterAll(async () => {
    await h?.close();
    redis.disconnect();
  });

  async function usePolicy(doc: Record<string, unknown>): Promise<number> {
    const res = await h.call('PUT', '/wallet/v1/policy', { token: await tok('admin', 'root'), body: doc });
    expect(res.status).toBe(200);
    return res.json.version as number;
  }
  async function held(amount: string) {
    const t = transfer(alice, 'bob::1', amount);
    const res = await h.call('POST', '/wallet/v1/submissions', {
      token: await tok('submit', 'sam'),
      body: t.body,
    });
    expect(res.json.status).toBe('awaiting_approval');
    const approval = res.json.approval as { policyVersion: number };
    return { id: res.json.id as string, hash: t.hashHex, version: approval.policyVersion };
  }
  const approve = async (s: { id: string; hash: string }, subject: string) =>
    h.call('POST', `/wallet/v1/submissions/${s.id}/approvals`, {
      token: await tok('approve', subject),
      body: { decision: 'approve', hash: s.hash },
    });
  async function signatures(id: string): Promise<number> {
    const entries = await auditOf(store).signatures();
    return entries.filter((e) => e.submission === id && e.stored === 'true').length;
  }

  it('a deny rule added while it waits ends it rejected (POLICY_CHANGED) when it takes effect, never signed', async () => {
    await usePolicy({ default: 'allow', rules: [HOLD] });
    const s = await held('300.0');
    const put = await h.call('PUT', '/wallet/v1/policy', {
      token: await tok('admin', 'root'),
      body: {
        default: 'allow',
        rules: [
          { name: 'no-bob', match: { counterparty: 'bob::1' }, action: 'deny', reason: 'bob is frozen' },
          HOLD,
        ],
      },
    });
    expect(put.status).toBe(200);
    expect(put.json.review).toMatchObject({ rejected: 1, signed: 0 });
    // Ended by the change itself, before anyone approves.
    const rec = await h.call('GET', `/wallet/v1/submissions/${s.id}`, { token: await tok('read', 'r') });
    expect(rec.json).toMatchObject({
      status: 'rejected',
      error: { code: 'POLICY_CHANGED' },
      approval: { policyVersion: s.version, decidedByPolicyVersion: put.json.version },
    });
    expect(rec.json.error?.message).toContain('bob is frozen');
    expect(await signatures(s.id)).toBe(0);
    expect((await approve(s, 'appr-2')).json.error?.code).toBe('NOT_AWAITING_APPROVAL');
    const entries = await auditOf(store).entries();
    expect(
      entries.some(
        (e) =>
          e.fields.some(([k, v]) => k === 'kind' && v === 'approval.review') &&
          e.fields.some(([k, v]) => k === 'submission' && v === s.id),
      ),
    ).toBe(true);
  });

  it('a smaller quorum its approvals already meet signs it when the change takes effect', async () => {
    await usePolicy({ default: 'allow', rules: [{ ...HOLD, quorum: 2 }] });
    const s = await held('300.0');
    expect((await approve(s, 'appr-1')).json.status).toBe('awaiting_approval');
    const put = await h.call('PUT', '/wallet/v1/policy', {
      token: await tok('admin', 'root'),
      body: { default: 'allow', rules: [HOLD] },
    });
    expect(put.json.review).toMatchObject({ rejected: 0, signed: 1 });
    const rec = await h.call('GET', `/wallet/v1/submissions/${s.id}`, { token: await tok('read', 'r') });
    expect(['queued', 'executing', 'committed']).toContain(rec.json.status);
    expect(await signatures(s.id)).toBe(1);
  });

  it('a larger quorum keeps it waiting under the new requirement; the quorum in force signs it', async () => {
    await usePolicy({ default: 'allow', rules: [HOLD] });
    const s = await held('300.0');
    const v2 = await usePolicy({ default: 'allow', rules: [{ ...HOLD, name: 'hold-2', quorum: 2 }] });
    const one = await approve(s, 'appr-1');
    expect(one.json).toMatchObject({
      status: 'awaiting_approval',
      approval: { rule: 'hold-2', policyVersion: v2, quorum: 2 },
    });
    expect(await signatures(s.id)).toBe(0);
    const two = await approve(s, 'appr-2');
    expect(two.json).toMatchObject({ status: 'queued', approval: { decidedByPolicyVersion: v2 } });
    expect(await signatures(s.id)).toBe(1);
  });

  it('an approver removed from the group no longer counts', async () => {
    await usePolicy({ default: 'allow', rules: [{ ...HOLD, quorum: 2 }] });
    const s = await held('300.0');
    expect((await approve(s, 'appr-a')).json.status).toBe('awaiting_approval');
    await usePolicy({
      default: 'allow',
      groups: { treasury: ['appr-b', 'appr-c'] },
      rules: [{ ...HOLD, quorum: 2, group: 'treasury' }],
    });
    expect((await approve(s, 'appr-x')).json.error?.code).toBe('NOT_AN_APPROVER');
    expect((await approve(s, 'appr-b')).json).toMatchObject({
      status: 'awaiting_approval',
      approval: { group: 'treasury', quorum: 2 },
    });
    expect((await approve(s, 'appr-c')).json.status).toBe('queued');
    expect(await signatures(s.id)).toBe(1);
  });

  it('an unchanged policy signs as before; its velocity does not count the submission itself', async () => {
    const v = await usePolicy({
      default: 'allow',
      rules: [
        {
          name: 'coin-hourly',
          match: {
            instrument: { admin: 'operator::1220op', id: 'QuillCoin' },
            velocity: { window: '1h', maxAmount: '450' },
          },
          action: 'deny',
        },
        HOLD,
      ],
    });
    // A fresh party: earlier tests' transfers do not fill its window.
    alice = (await h.party('carol')).id;
    const s = await held('300.0');
    const res = await approve(s, 'appr-1');
    expect(res.json).toMatchObject({ status: 'queued', approval: { decidedByPolicyVersion: v } });
    expect(await signatures(s.id)).toBe(1);
  });
});
