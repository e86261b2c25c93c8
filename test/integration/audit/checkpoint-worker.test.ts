// The audit checkpoints of a deployment (issue 29 item 5, F8): two workers share the leader lease, and only its holder
// writes a checkpoint, only when the head moved; a clean stop writes a last one; the next leader does not sign the
// same head again. With the audit key in a PKCS#11 token (SoftHSM) too. AUDIT_KEY is refused at start when it is not
// a key of the ring, is disabled, or is a party's signing key.
import { join } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AuditLog, checkCheckpoints } from '../../../src/audit/index.ts';
import { PartyRegistry } from '../../../src/parties/index.ts';
import { checkAuditKey } from '../../../src/server/parts.ts';
import { startWallet } from '../../../src/server/wallet.ts';
import { Keyring, KeyStore, openPkcs11Backend } from '../../../src/signing/index.ts';
import { ledgerPort } from '../../../src/submissions/index.ts';
import { checkpointsIn } from '../../support/audit-chain.ts';
import { testRedis } from '../../support/records.ts';
import { SOFTHSM_MODULE, softhsmToken } from '../../support/softhsm.ts';
import { tempDir } from '../../support/tmp.ts';
import { walletConfig } from '../../support/wallet.ts';

const redis = testRedis();
const closers: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => {});
  await redis.quit();
});

function keyring(dir: string, hsm?: ReturnType<typeof softhsmToken>): Keyring {
  const ring = new Keyring([
    new KeyStore({ dir, passphrase: 'worker audit', scrypt: { N: 1024 } }),
    ...(hsm
      ? [
          openPkcs11Backend({
            module: hsm.module,
            tokenLabel: hsm.tokenLabel,
            pin: hsm.pin,
            sessions: 2,
            dir,
          }),
        ]
      : []),
  ]);
  closers.push(() => ring.close());
  return ring;
}

/** A key ring in a fresh folder with an audit key (in the token when `hsm`), its checkpoint file and config. */
async function deployment(env: Record<string, string> = {}, hsm?: ReturnType<typeof softhsmToken>) {
  const dir = tempDir('quill-cp-worker-');
  const ring = keyring(dir, hsm);
  const key = hsm ? await ring.generate('p256', 'audit', 'pkcs11') : await ring.generate('ed25519', 'audit');
  const file = join(dir, 'checkpoints.jsonl');
  const config = walletConfig(inject('redisUrl'), {
    AUDIT_KEY: key.fingerprint,
    AUDIT_CHECKPOINT_FILE: file,
    ...env,
  });
  return { dir, ring, key, file, config, audit: new AuditLog(redis, config.redisPrefix) };
}

/** A worker-only wallet signing checkpoints with `ring`'s key `key` into `file` (no ledger is called). */
async function worker(
  config: ReturnType<typeof walletConfig>,
  ring: Keyring,
  timing: { checkpointEveryMs: number },
) {
  const w = await startWallet({
    config,
    role: 'worker',
    // Nothing is queued: the ledger is never called.
    ledger: ledgerPort(new LedgerClient({ baseUrl: 'http://127.0.0.1:1', timeoutMs: 1000 })),
    auditSigner: ring,
    worker: { sweepEveryMs: 100, ...timing },
  });
  closers.push(() => w.close());
  return w;
}

const linesOf = checkpointsIn;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the worker takes audit checkpoints under the leader lease', () => {
  it('only the leader writes, only when the head moved; a clean stop writes the last one; the next leader goes on', async () => {
    const { ring, key, file, config, audit } = await deployment({ LEADER_LEASE_MS: '1000' });
    await checkAuditKey(ring, config);
    for (let i = 0; i < 3; i++) await audit.append({ kind: 'policy', at: `t${i}`, actor: 'ops' });
    const a = await worker(config, ring, { checkpointEveryMs: 100 });
    const b = await worker(config, ring, { checkpointEveryMs: 100 });
    await expect.poll(async () => (await linesOf(file)).map((c) => c.count), { timeout: 5000 }).toEqual([3]);
    await sleep(600); // six rounds with the head where it was
    expect((await linesOf(file)).length).toBe(1);
    expect([a.leader?.held, b.leader?.held].filter(Boolean)).toHaveLength(1);
    await audit.append({ kind: 'policy', at: 't3', actor: 'ops' });
    await expect
      .poll(async () => (await linesOf(file)).map((c) => c.count), { timeout: 5000 })
      .toEqual([3, 4]);

    // The leader stops cleanly right after an entry: its last checkpoint covers it.
    const [leader, other] = a.leader?.held ? [a, b] : [b, a];
    await audit.append({ kind: 'policy', at: 't4', actor: 'ops' });
    await leader.close();
    expect((await linesOf(file)).at(-1)?.count).toBe(5);
    const written = (await linesOf(file)).length;
    // The other worker leads now, and does not sign the head the file already has.
    await expect.poll(() => other.leader?.held, { timeout: 5000 }).toBe(true);
    await sleep(400);
    expect((await linesOf(file)).length).toBe(written);
    await audit.append({ kind: 'policy', at: 't5', actor: 'ops' });
    await expect.poll(async () => (await linesOf(file)).at(-1)?.count, { timeout: 5000 }).toBe(6);
    expect(other.checkpointer?.failures).toEqual({ chain: 0, sign: 0, file: 0, webhook: 0 });

    const entries = await audit.entries();
    const checkpoints = (await linesOf(file)).map((checkpoint, i) => ({ line: i + 1, checkpoint }));
    expect(
      checkCheckpoints(entries, checkpoints, (fp) => (fp === key.fingerprint ? key : undefined), {
        file,
        unknownKey: '-',
      }),
    ).toMatchObject({ ok: true, checked: checkpoints.length });
  });

  it('a clean stop of the leader writes a checkpoint when the head moved since the last one', async () => {
    const { ring, file, config, audit } = await deployment();
    // No round comes before the stop: only the stop can write it.
    const w = await worker(config, ring, { checkpointEveryMs: 600_000 });
    await expect.poll(() => w.leader?.held, { timeout: 5000 }).toBe(true);
    await audit.append({ kind: 'policy', at: 't0', actor: 'ops' });
    await audit.append({ kind: 'policy', at: 't1', actor: 'ops' });
    expect(await linesOf(file)).toEqual([]);
    await w.close();
    expect((await linesOf(file)).map((c) => c.count)).toEqual([2]);
  });

  it.skipIf(!SOFTHSM_MODULE)('with the audit key in a PKCS#11 token', async () => {
    const { ring, key, file, config, audit } = await deployment({}, softhsmToken('quill-audit-cp'));
    await checkAuditKey(ring, config);
    await audit.append({ kind: 'policy', at: 't0', actor: 'ops' });
    await worker(config, ring, { checkpointEveryMs: 100 });
    await expect.poll(async () => (await linesOf(file)).length, { timeout: 5000 }).toBe(1);
    const [checkpoint] = await linesOf(file);
    expect(checkpoint).toMatchObject({ count: 1, key: key.fingerprint });
    expect(
      checkCheckpoints(await audit.entries(), [{ line: 1, checkpoint: checkpoint as never }], () => key, {
        file,
        unknownKey: '-',
      }),
    ).toMatchObject({ ok: true, checked: 1 });
  });

  it('AUDIT_KEY is refused at start: not in the ring, disabled, a party’s key, a file that cannot be opened', async () => {
    const dir = tempDir('quill-cp-worker-');
    const ring = keyring(dir);
    const file = join(dir, 'checkpoints.jsonl');
    const check = (fp: string, f = file) =>
      checkAuditKey(
        ring,
        walletConfig(inject('redisUrl'), { AUDIT_KEY: fp, AUDIT_CHECKPOINT_FILE: f, KEYS_DIR: dir }),
      );
    const missing = `1220${'0'.repeat(64)}`;
    await expect(check(missing)).rejects.toThrow(
      `refusing to start: AUDIT_KEY ${missing} is not a key of the key ring (KEYS_DIR, PKCS11_*)`,
    );
    const party = await ring.generate('ed25519', 'party');
    await new PartyRegistry({ dir }).add({
      partyId: `alice::${party.fingerprint}`,
      keyFingerprint: party.fingerprint,
      synchronizerId: 'sync::1',
      createdAt: new Date().toISOString(),
    });
    await expect(check(party.fingerprint)).rejects.toThrow(/is the signing key of party alice::/);
    const old = await ring.generate('ed25519', 'old');
    await ring.disable(old.fingerprint);
    await expect(check(old.fingerprint)).rejects.toThrow(/is disabled/);
    const good = await ring.generate('ed25519', 'audit');
    await expect(check(good.fingerprint, join(dir, 'no/such/dir/cp.jsonl'))).rejects.toThrow(
      /AUDIT_CHECKPOINT_FILE .* cannot be opened to append \(ENOENT\)/,
    );
    await expect(check(good.fingerprint)).resolves.toBeUndefined();
  });
});
