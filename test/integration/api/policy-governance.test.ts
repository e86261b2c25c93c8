// Governed policy changes (issue 29 item 4): while the policy in force has `policyGovernance`, one admin's PUT is only
// a proposal; it takes effect when a quorum of distinct admins of the group approves its document hash, once,
// and never over a version made meanwhile. Every step is in the audit chain.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuditLog, verifyAuditChain } from '../../../src/audit/index.ts';
import { issueToken, type Role } from '../../../src/auth/index.ts';
import {
  PolicyProposals,
  PolicyStore,
  policyHash,
  seedPolicy,
  validatePolicy,
} from '../../../src/policy/index.ts';
import { apiHarness, coinTransfer, SECRET } from '../../support/api-harness.ts';
import { testRedis } from '../../support/records.ts';

const tok = (role: Role, subject: string, party?: string) =>
  issueToken({ secret: SECRET, role, ttlSeconds: 600, subject, ...(party ? { party } : {}) });

const GOVERNED = {
  default: 'deny',
  groups: { admins: ['ann', 'ben', 'cat', 'oidc:dee'] },
  rules: [{ name: 'small', match: { amount: { lte: '10' } }, action: 'allow' }],
  policyGovernance: { quorum: 2, group: 'admins' },
};
/** The answers these tests read, typed once. */
interface Res {
  status: number;
  json: {
    id: string;
    documentHash: string;
    status?: string;
    appliedVersion?: number;
    version?: number;
    document?: unknown;
    diff?: unknown;
    items: { id: string; diff: unknown }[];
    error?: { code: string; message: string };
    [k: string]: unknown;
  };
}

/** What an attacker with one admin token wants: every control off. */
const OPEN = { default: 'allow' };

describe('governed policy changes', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  const redis = testRedis();
  let audit: AuditLog;

  beforeAll(async () => {
    h = await apiHarness({});
    audit = new AuditLog(redis, h.config.redisPrefix);
  });
  afterAll(async () => {
    await h?.close();
    redis.disconnect();
  });

  const put = async (doc: unknown, subject = 'ann') =>
    (await h.call('PUT', '/wallet/v1/policy', {
      token: await tok('admin', subject),
      body: doc,
    })) as unknown as Res;
  const decide = async (id: string, subject: string, body: Record<string, unknown>, party?: string) =>
    (await h.call('POST', `/wallet/v1/policy/proposals/${id}/approvals`, {
      token: await tok('admin', subject, party),
      body,
    })) as unknown as Res;
  const current = async () =>
    (await h.call('GET', '/wallet/v1/policy', { token: await tok('admin', 'ann') })).json;
  /** Back to the governed policy: a proposal approved by two admins (or a plain PUT while none governs). */
  async function governed(): Promise<number> {
    const res = await put(GOVERNED);
    if (res.status === 200) return res.json.version as number;
    const id = res.json.id as string;
    await decide(id, 'ben', { decision: 'approve', hash: res.json.documentHash });
    const done = await decide(id, 'cat', { decision: 'approve', hash: res.json.documentHash });
    expect(done.json.status).toBe('applied');
    return done.json.appliedVersion as number;
  }

  it('one admin cannot switch the controls off: the change waits for its quorum and then applies once', async () => {
    const base = await governed();
    const proposed = await put(OPEN);
    expect(proposed.status).toBe(202);
    expect(proposed.json).toMatchObject({
      status: 'pending',
      baseVersion: base,
      proposedBy: 'ann',
      quorum: 2,
      group: 'admins',
      documentHash: policyHash(validatePolicy(OPEN)),
    });
    expect(proposed.json.diff).toEqual(
      expect.arrayContaining([
        { path: 'default', change: 'changed', before: 'deny', after: 'allow' },
        { path: 'rules.small', change: 'removed', before: expect.anything() },
        { path: 'policyGovernance', change: 'removed', before: GOVERNED.policyGovernance },
      ]),
    );
    // Not in force: a transfer above 10 is still denied.
    expect((await current()).version).toBe(base);
    const alice = await h.party('alice');
    const denied = await h.call('POST', '/wallet/v1/submissions', {
      token: await tok('submit', 's'),
      body: coinTransfer(alice.id, 'bob::1', '50.0').body,
    });
    expect(denied.json.error?.code).toBe('POLICY_DENIED');

    const id = proposed.json.id as string;
    const hash = proposed.json.documentHash as string;
    expect((await decide(id, 'ann', { decision: 'approve', hash })).json.error?.code).toBe('SELF_APPROVAL');
    expect((await decide(id, 'eve', { decision: 'approve', hash })).json.error?.code).toBe('NOT_AN_APPROVER');
    expect((await decide(id, 'ben', { decision: 'approve', hash: '00'.repeat(32) })).json.error?.code).toBe(
      'HASH_MISMATCH',
    );
    const scoped = await decide(id, 'ben', { decision: 'approve', hash }, alice.id);
    expect(scoped.status).toBe(403);
    const approver = await h.call('POST', `/wallet/v1/policy/proposals/${id}/approvals`, {
      token: await tok('approve', 'ben'),
      body: { decision: 'approve', hash },
    });
    expect(approver.status).toBe(403);

    const one = await decide(id, 'ben', { decision: 'approve', hash, reason: 'looked at it' });
    expect(one.json).toMatchObject({
      status: 'pending',
      decisions: [{ subject: 'ben', decision: 'approve' }],
    });
    expect((await decide(id, 'ben', { decision: 'approve', hash })).json.error?.code).toBe('ALREADY_DECIDED');
    // oidc:ben is ben (one person across API tokens and console sign-ins).
    expect((await decide(id, 'oidc:ben', { decision: 'approve', hash })).json.error?.code).toBe(
      'ALREADY_DECIDED',
    );
    expect((await current()).version).toBe(base);

    const two = await decide(id, 'dee', { decision: 'approve', hash });
    expect(two.status).toBe(200);
    expect(two.json).toMatchObject({ status: 'applied', appliedVersion: base + 1 });
    expect(await current()).toMatchObject({ version: base + 1, documentHash: hash });
    expect((await decide(id, 'cat', { decision: 'approve', hash })).json.error?.code).toBe('PROPOSAL_CLOSED');

    // Every step is in the chain, and the chain verifies.
    const entries = await audit.entries('0-0', 10_000);
    const mine = entries.filter((e) => e.fields.some(([k, v]) => k === 'proposal' && v === id));
    expect(mine.map((e) => e.fields.find(([k]) => k === 'kind')?.[1])).toEqual([
      'policy.propose',
      'policy.approve',
      'policy.approve',
      'policy',
    ]);
    expect(verifyAuditChain(entries, await audit.head()).ok).toBe(true);
  });

  it('concurrent approvals past the quorum apply it exactly once', async () => {
    const base = await governed();
    const p = await put({ ...GOVERNED, default: 'allow' }, 'ann');
    const hash = p.json.documentHash as string;
    const all = await Promise.all(
      ['ben', 'cat', 'dee'].map((s) => decide(p.json.id, s, { decision: 'approve', hash })),
    );
    const applied = all.filter((r) => r.json.status === 'applied');
    expect(applied).toHaveLength(1);
    for (const r of all.filter((r) => r.json.status !== 'applied'))
      expect(['pending', undefined]).toContain(r.json.status);
    expect((await current()).version).toBe(base + 1);
    const versions = (await h.call('GET', '/wallet/v1/policy/versions', {
      token: await tok('admin', 'ann'),
    })) as unknown as Res;
    expect(versions.json.items[0]).toMatchObject({ version: base + 1, by: 'ann' });
    expect(versions.json.items[0]?.diff).toEqual([
      { path: 'default', change: 'changed', before: 'deny', after: 'allow' },
    ]);
  });

  it('a proposal made against an older version never applies over a newer one', async () => {
    await governed();
    const first = await put({ ...GOVERNED, rules: [] }, 'ann');
    const second = await put({ ...GOVERNED, default: 'allow' }, 'ben');
    for (const s of ['cat', 'dee'])
      await decide(first.json.id, s, { decision: 'approve', hash: first.json.documentHash });
    const stale = await decide(second.json.id, 'cat', {
      decision: 'approve',
      hash: second.json.documentHash,
    });
    expect(stale.status).toBe(409);
    expect(stale.json.error?.code).toBe('PROPOSAL_STALE');
    const shown = await h.call('GET', `/wallet/v1/policy/proposals/${second.json.id}`, {
      token: await tok('admin', 'ann'),
    });
    expect(shown.json.status).toBe('superseded');
    expect((await current()).document).toMatchObject({ rules: [], default: 'deny' });
  });

  it('a rejection or the proposer withdrawing ends it; a proposal past its deadline expires', async () => {
    await governed();
    const a = await put({ ...GOVERNED, rules: [] }, 'ann');
    const r = await decide(a.json.id, 'ben', { decision: 'reject', hash: a.json.documentHash, reason: 'no' });
    expect(r.json).toMatchObject({ status: 'rejected', closedReason: 'rejected by ben: no' });
    const b = await put({ ...GOVERNED, rules: [] }, 'ann');
    const blank = await decide(b.json.id, 'ann', {
      decision: 'reject',
      hash: b.json.documentHash,
      reason: ' ',
    });
    expect(blank.json.error?.code).toBe('REASON_REQUIRED');
    const w = await decide(b.json.id, 'ann', {
      decision: 'reject',
      hash: b.json.documentHash,
      reason: 'typo',
    });
    expect(w.json).toMatchObject({ status: 'rejected', closedReason: 'withdrawn by ann: typo' });

    // A short deadline, approved in by the current governance.
    const res = await put({ ...GOVERNED, policyGovernance: { quorum: 2, group: 'admins', ttl: 1 } });
    for (const s of ['ben', 'cat'])
      await decide(res.json.id, s, { decision: 'approve', hash: res.json.documentHash });
    const late = await put({ ...GOVERNED, rules: [] }, 'ann');
    await new Promise((ok) => setTimeout(ok, 1100));
    const listed = (await h.call('GET', '/wallet/v1/policy/proposals?status=expired', {
      token: await tok('admin', 'ann'),
    })) as unknown as Res;
    expect(listed.json.items.map((p) => p.id)).toContain(late.json.id);
    const expired = await decide(late.json.id, 'ben', { decision: 'approve', hash: late.json.documentHash });
    expect(expired.json.error?.code).toBe('PROPOSAL_EXPIRED');
  });

  it('garbage is a 4xx with a JSON body', async () => {
    await governed();
    const p = await put({ ...GOVERNED, rules: [] }, 'ann');
    for (const body of [
      {},
      { decision: 'maybe', hash: 'x' },
      { decision: 'approve' },
      { decision: 'approve', hash: 'x', extra: 1 },
    ]) {
      const r = await decide(p.json.id, 'ben', body);
      expect(r.status).toBe(400);
      expect(r.json.error?.code).toBeTruthy();
    }
    expect((await decide('nope', 'ben', { decision: 'approve', hash: 'x' })).status).toBe(404);
    const bad = await put({ ...GOVERNED, policyGovernance: { quorum: 5, group: 'admins' } });
    expect(bad.status).toBe(400);
    expect(bad.json.error?.message).toContain('policyGovernance.quorum');
    expect(
      (await put({ ...GOVERNED, policyGovernance: { quorum: 1, group: 'nobody' } })).json.error?.message,
    ).toContain('policyGovernance.group');
  });

  it('POLICY_FILE at start cannot bypass the quorum: under governance it is filed as a proposal, once', async () => {
    await governed();
    const store = new PolicyStore(redis, h.config.redisPrefix);
    const proposals = new PolicyProposals(store);
    const before = (await store.current())?.version;
    const doc = validatePolicy(OPEN);
    const first = await seedPolicy(store, proposals, doc, 'POLICY_FILE');
    const again = await seedPolicy(store, proposals, doc, 'POLICY_FILE');
    expect(first.proposal?.status).toBe('pending');
    expect(again.proposal?.id).toBe(first.proposal?.id);
    expect((await store.current())?.version).toBe(before);
  });
});
