// End to end on the sandbox (issue 15): "coin transfers above 100.0 need 2 approvals; transfers to X are denied".

import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { mint, type Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { AuditLog } from '../../../src/audit/index.ts';
import { issueToken, type Role } from '../../../src/auth/index.ts';
import { SubmissionStore } from '../../../src/submissions/index.ts';
import { testRedis } from '../../support/records.ts';
import {
  coinTemplate,
  prepareOn,
  SECRET,
  startFullWallet,
  startLedger,
  walletConfig,
} from '../../support/wallet.ts';

/** The audit chain of a store's deployment. */
const auditOf = (s: { redis: import('ioredis').Redis; prefix: string }) => new AuditLog(s.redis, s.prefix);

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;
let bob: string;
let x: string;
let party: string;
let store: SubmissionStore;
const redis = testRedis();
const tok = (role: Role, subject: string) => issueToken({ secret: SECRET, role, ttlSeconds: 600, subject });

beforeAll(async () => {
  sandbox = await startLedger();
  bob = sandbox.state.allocateLocalParty('bob').partyId;
  x = sandbox.state.allocateLocalParty('x').partyId;
  const dir = mkdtempSync(join(tmpdir(), 'quill-e2e-policy-'));
  const file = join(dir, 'policy.yaml');
  writeFileSync(
    file,
    `rules:
  - name: no-x
    match: { counterparty: "${x}" }
    action: deny
    reason: transfers to X are not allowed
  - name: big
    match: { template: "${coinTemplate('Holding')}", amount: { gt: "100.0" } }
    action: approve
    quorum: 2
    ttl: 1h
`,
  );
  const config = walletConfig(inject('redisUrl'), { POLICY_FILE: file });
  w = await startFullWallet(sandbox, config);
  store = new SubmissionStore(redis, config.redisPrefix);
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const onboarded = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'treasury',
  });
  party = onboarded.json.partyId as string;
});
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
  redis.disconnect();
});

async function transfer(receiver: string, amount: string) {
  const minted = mint(sandbox.state, party, '1000.0000000000');
  const holding = minted.nodes.find((n) => n.kind === 'create' && n.contract.templateId.endsWith(':Holding'));
  return prepareOn(w.client, party, {
    ExerciseCommand: {
      templateId: coinTemplate('Holding'),
      contractId: holding?.kind === 'create' ? holding.contract.contractId : '',
      choice: 'Holding_Transfer',
      choiceArgument: { receiver, amount },
    },
  });
}

const signatures = async (id: string) =>
  (await auditOf(store).signatures()).filter((e) => e.submission === id && e.stored === 'true').length;

describe('approval policy on the sandbox', () => {
  it('50 commits alone; 500 waits for two distinct approvers, then commits once; reject; deny to X', async () => {
    const submitter = await tok('submit', 'alice');
    const small = await w.call(
      'POST',
      '/wallet/v1/submissions?wait=20',
      await transfer(bob, '50.0000000000'),
      submitter,
    );
    expect(small.json.status).toBe('committed');

    const big = await transfer(bob, '500.0000000000');
    const hash = Buffer.from(big.preparedTransactionHash, 'base64').toString('hex');
    const held = await w.call('POST', '/wallet/v1/submissions', big, submitter);
    expect(held.status).toBe(202);
    expect(held.json.status).toBe('awaiting_approval');
    const id = held.json.id as string;
    expect(await signatures(id)).toBe(0);
    const url = `/wallet/v1/submissions/${id}/approvals`;
    const own = await w.call('POST', url, { decision: 'approve', hash }, await tok('approve', 'alice'));
    expect(own.json.error?.code).toBe('SELF_APPROVAL');
    const stale = await w.call(
      'POST',
      url,
      { decision: 'approve', hash: 'ab'.repeat(32) },
      await tok('approve', 'carol'),
    );
    expect(stale.status).toBe(409);
    const one = await w.call('POST', url, { decision: 'approve', hash }, await tok('approve', 'carol'));
    expect(one.json.status).toBe('awaiting_approval');
    const two = await w.call('POST', url, { decision: 'approve', hash }, await tok('approve', 'dave'));
    expect(two.json.status).toBe('queued');
    const done = await w.call('GET', `/wallet/v1/submissions/${id}?wait=20`);
    expect(done.json.status).toBe('committed');
    expect(await signatures(id)).toBe(1);
    const byUpdate = await w.call(
      'GET',
      `/wallet/v1/updates/${encodeURIComponent(String(done.json.updateId))}`,
    );
    expect(byUpdate.json.id).toBe(id);
    expect(sandbox.state.commits.get(String(done.json.commandId))).toBe(1);

    const other = await w.call(
      'POST',
      '/wallet/v1/submissions',
      await transfer(bob, '500.0000000000'),
      submitter,
    );
    const otherHash = (other.json.preparedTransactionHash as string) ?? '';
    const rej = await w.call(
      `POST`,
      `/wallet/v1/submissions/${other.json.id}/approvals`,
      { decision: 'reject', hash: otherHash, reason: 'no' },
      await tok('approve', 'carol'),
    );
    expect(rej.json.status).toBe('rejected');
    expect((rej.json.error as { code: string }).code).toBe('APPROVAL_REJECTED');
    expect(await signatures(other.json.id as string)).toBe(0);

    const denied = await w.call(
      'POST',
      '/wallet/v1/submissions',
      await transfer(x, '5.0000000000'),
      submitter,
    );
    expect(denied.status).toBe(422);
    expect(denied.json.error?.code).toBe('POLICY_DENIED');
  });
});
