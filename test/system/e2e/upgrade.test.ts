// Today's release on a Redis filled by the previous one (issue 31 item 3). The fixture is release 0.1.0's state
// (commit ccf260d, before layouts had versions): a wallet of that release on the embedded sandbox made a key and a
// party, committed two submissions, had one rejected for a spent input and one held for approval, under a policy
// file; its Redis prefix and key store were then taken with `quill backup` (test/fixtures/upgrade-0.1.0, DUMP
// payloads of Redis 7.0, which later Redis versions restore). Restored into an empty prefix, today's wallet
// migrates the layout, reads every record, the policy and the audit chain as they were, and the restored key signs.
// (The held submission's approval deadline passed a day after the fixture was made, so nothing here decides it. Past
// it, the record ends expired at the worker's next sweep or the next listing of approvals: the test lists them.)
import { createPublicKey, randomBytes, verify } from 'node:crypto';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LAYOUT_VERSION, storedVersion } from '../../../src/redis/index.ts';
import { verifyingSigner } from '../../../src/signing/index.ts';
import { conn } from '../../support/events.ts';
import { runCli } from '../../support/run-cli.ts';
import { tempDir } from '../../support/tmp.ts';
import { startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

const FIXTURE = join(import.meta.dirname, '../../fixtures/upgrade-0.1.0');
const ids = (await import('../../fixtures/upgrade-0.1.0/ids.json', { with: { type: 'json' } })).default as {
  party: string;
  committed: string[];
  rejected: string;
  awaiting: string;
};
/** The backup's prefix: records, queues and indexes name each other by key, so it is restored as it was. */
const PREFIX = 'upgrade';
const redis = conn();
let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>> | undefined;
const keysDir = join(tempDir('quill-upgrade-'), 'keys');

beforeAll(async () => {
  const backup = join(tempDir('quill-upgrade-backup-'), 'backup');
  cpSync(join(FIXTURE, 'backup'), backup, { recursive: true });
  const restored = await runCli(['restore', backup], {
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: PREFIX,
    REDIS_SENTINELS: undefined,
    REDIS_CLUSTER_NODES: undefined,
    KEYS_DIR: keysDir,
    AUDIT_CHECKPOINT_FILE: undefined,
  });
  expect(restored.stderr).toBe('');
  expect(restored.code).toBe(0);
  expect(await storedVersion(redis, PREFIX)).toBeUndefined();
  sandbox = await startLedger();
  w = await startFullWallet(
    sandbox,
    walletConfig(inject('redisUrl'), { REDIS_PREFIX: PREFIX }),
    'all',
    keysDir,
  );
}, 60_000);

afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
  redis.disconnect();
});

describe("today's release on the previous release's Redis", () => {
  it('migrates the layout from 1 and reads every record as the previous release left it', async () => {
    expect(await storedVersion(redis, PREFIX)).toBe(LAYOUT_VERSION);
    const wallet = w as NonNullable<typeof w>;
    // Held for approval until a day after the fixture was made; past that, listing the approvals expires it now.
    const overdue = Date.now() >= Date.parse('2026-11-29T06:07:50Z');
    if (overdue) expect((await wallet.call('GET', '/wallet/v1/approvals')).json).toMatchObject({ items: [] });
    const expected: [string, string][] = [
      ...ids.committed.map((id): [string, string] => [id, 'committed']),
      [ids.rejected, 'rejected'],
      [ids.awaiting, overdue ? 'expired' : 'awaiting_approval'],
    ];
    for (const [id, status] of expected) {
      const rec = await wallet.call('GET', `/wallet/v1/submissions/${id}`);
      expect(rec.status, id).toBe(200);
      expect(rec.json).toMatchObject({ id, status, party: ids.party });
      const t = await wallet.call('GET', `/wallet/v1/submissions/${id}/timeline`);
      expect(t.status, id).toBe(200);
    }
    const rejected = await wallet.call('GET', `/wallet/v1/submissions/${ids.rejected}/timeline`);
    expect(rejected.json).toMatchObject({ explanation: { code: 'LOCAL_VERDICT_INACTIVE_CONTRACTS' } });
    const list = await wallet.call('GET', `/wallet/v1/submissions?party=${encodeURIComponent(ids.party)}`);
    expect((list.json.items as unknown[]).length).toBe(4);
    const policy = await wallet.call('GET', '/wallet/v1/policy');
    expect(JSON.stringify(policy.json)).toContain('gated');
  });

  it('verifies the audit chain the previous release wrote', async () => {
    const verified = await runCli(['audit', 'verify'], {
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: PREFIX,
      REDIS_SENTINELS: undefined,
      REDIS_CLUSTER_NODES: undefined,
      KEYS_DIR: keysDir,
      AUDIT_CHECKPOINT_FILE: undefined,
      AUDIT_KEY: undefined,
    });
    expect(verified.stderr).toBe('');
    expect(verified.stdout).toMatch(/^ok: \d+ entries/);
  });

  it('the restored key signs, each signature checked by an independent verifier', async () => {
    const wallet = w as NonNullable<typeof w>;
    const fingerprint = ids.party.split('::')[1] as string;
    const key = await wallet.call('GET', `/wallet/v1/keys/${fingerprint}`);
    expect(key.json).toMatchObject({ fingerprint, status: 'active', algorithm: 'ed25519' });
    const hash = randomBytes(32);
    const signature = await verifyingSigner(wallet.keys).sign(fingerprint, hash);
    const spki = createPublicKey({
      key: Buffer.from(key.json.publicKey as string, 'base64'),
      format: 'der',
      type: 'spki',
    });
    expect(verify(null, hash, spki, Buffer.from(signature.signature, 'base64'))).toBe(true);
  });
});
