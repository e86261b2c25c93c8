// The worker and signature rounds, against a ledger that records what execute received (the sandbox verifies one
// key until its M-of-N check lands): too few signatures are never sent, rotated keys' signatures are dropped and
// Quill's keys of the current set sign again, or the record ends KEYS_ROTATED with nothing sent. An approval
// quorum and a signature threshold are both required, and Quill's keys never sign before the approvals.
import { randomBytes } from 'node:crypto';
import type { JsTransaction } from '@quill/canton/ledger';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { PartyRegistry, signingSetOf } from '../../../src/parties/index.ts';
import { signaturePorts } from '../../../src/server/adapters.ts';
import { Keyring, verifyingSigner } from '../../../src/signing/index.ts';
import {
  type ExecuteRequest,
  type ExecutorConfig,
  executeStep,
  type LedgerPort,
  postSignature,
  type SubmissionRecord,
} from '../../../src/submissions/index.ts';
import { apiHarness, prepared, SECRET } from '../../support/api-harness.ts';
import { freshStore, record, testRedis } from '../../support/records.ts';
import { type ExternalKey, externalKey, multiSigParty, quillEntry } from '../../support/signing-sets.ts';
import { tempDir } from '../../support/tmp.ts';

/** A ledger that commits everything and keeps each execute request as received. */
class RecordingLedger implements LedgerPort {
  readonly received: ExecuteRequest[] = [];
  async execute(body: ExecuteRequest): Promise<JsTransaction> {
    this.received.push(structuredClone(body));
    return {
      updateId: `upd-${randomBytes(4).toString('hex')}`,
      offset: this.received.length,
      commandId: 'c',
      effectiveAt: '2026-01-01T00:00:00Z',
      recordTime: '2026-01-01T00:00:00Z',
      synchronizerId: 'sync::1220aa',
      events: [],
    };
  }
  prepare = () => Promise.reject(new Error('not here'));
  async ledgerEnd() {
    return 0;
  }
  async transactionAt() {
    return undefined;
  }
  async *transactions() {}
}

const config: ExecutorConfig = {
  maxAttempts: 4,
  baseDelayMs: 1,
  maxDelayMs: 5,
  dedup: { marginSeconds: 60, maxSeconds: 3600 },
  ledgerTimeoutMs: 1000,
  preparationToleranceMs: 86_400_000,
  settleGraceMs: 60_000,
};

const redis = testRedis();
afterAll(() => redis.quit());

describe('the worker and signature rounds', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  const registry = new PartyRegistry({ dir: tempDir('quill-sets-') });
  let keyring: Keyring;
  let submit: string;

  beforeAll(async () => {
    h = await apiHarness({}, { registry });
    keyring = new Keyring([h.keys]);
    submit = await h.token('submit');
  });
  afterAll(async () => {
    await h?.close();
  });

  const ports = () =>
    signaturePorts({
      signer: verifyingSigner(keyring),
      parties: {
        keyOf: async (p) => (await registry.get(p))?.keyFingerprint,
        signingSet: async (p) => {
          const r = await registry.get(p);
          return r ? signingSetOf(r) : undefined;
        },
      },
    });
  const run = async (id: string, withPorts = true) => {
    const ledger = new RecordingLedger();
    const p = ports();
    await executeStep(
      { store: h.wallet.store, ledger, config, ...(withPorts && p ? { signatures: p } : {}) },
      id,
    );
    return { ledger, record: (await h.wallet.store.getRecord(id)) as SubmissionRecord };
  };
  const sentBy = (ledger: RecordingLedger) =>
    ledger.received.map((b) =>
      b.partySignatures.signatures.flatMap((p) => p.signatures.map((s) => s.signedBy)),
    );
  const accept = async (partyId: string) => {
    const p = prepared(partyId);
    const res = await h.call('POST', '/wallet/v1/submissions', { body: p.body, token: submit });
    expect(res.status, res.text).toBe(202);
    return { rec: res.json as unknown as SubmissionRecord, hash: Buffer.from(p.hashHex, 'hex') };
  };

  it('sends every collected signature in one partySignatures entry', async () => {
    const ext = externalKey();
    const p = await multiSigParty(registry, h.keys, { quill: 1, external: [ext], threshold: 2 });
    const { rec, hash } = await accept(p.partyId);
    await h.call('POST', `/wallet/v1/submissions/${rec.id}/signatures`, {
      body: { signature: ext.sign(hash) },
      token: await h.token('approve'),
    });
    const { ledger, record: after } = await run(rec.id);
    expect(after.status).toBe('committed');
    expect(ledger.received).toHaveLength(1);
    expect(ledger.received[0]?.partySignatures.signatures).toHaveLength(1);
    expect(ledger.received[0]?.partySignatures.signatures[0]?.party).toBe(p.partyId);
    expect(sentBy(ledger)[0]?.sort()).toEqual([p.quill[0]?.fingerprint, ext.entry.fingerprint].sort());
  });

  it('never sends fewer signatures than the threshold (with and without the signing sets)', async () => {
    const ext = externalKey();
    const p = await multiSigParty(registry, h.keys, { quill: 1, external: [ext], threshold: 2 });
    for (const withPorts of [true, false]) {
      const { rec } = await accept(p.partyId);
      // A damaged or hand-edited record: queued with one signature of two.
      await h.wallet.store.update(rec.id, (r) => ({ ...r, status: 'queued' }));
      const { ledger, record: after } = await run(rec.id, withPorts);
      expect(ledger.received).toEqual([]);
      expect(after.status).toBe('rejected');
      expect(after.error?.code).toBe('SIGNATURES_MISSING');
    }
    // A record still awaiting signatures is not sent by a stray job either, and stays waiting.
    const { rec } = await accept(p.partyId);
    const { ledger, record: after } = await run(rec.id);
    expect([ledger.received.length, after.status]).toEqual([0, 'awaiting_signatures']);
  });

  it('keys rotated under queued work: dropped, Quill re-signs with the current set, or KEYS_ROTATED', async () => {
    const ext = externalKey();
    const p = await multiSigParty(registry, h.keys, { quill: 2, external: [ext], threshold: 2 });
    const [q1, q2] = p.quill;
    const q3 = await h.keys.generate('p256');
    const first = await accept(p.partyId);
    const second = await accept(p.partyId);
    expect(first.rec.status).toBe('queued');
    // The set changes: q1 leaves, q3 joins (serial 2).
    const rotated = await registry.replace(
      {
        ...p.record,
        signing: { threshold: 2, keys: [quillEntry(q2 as never), quillEntry(q3, 'quill-3'), ext.entry] },
        serial: 2,
      },
      1,
    );
    const { ledger, record: after } = await run(first.rec.id);
    expect(after.status).toBe('committed');
    expect(sentBy(ledger)[0]?.sort()).toEqual([q2?.fingerprint, q3.fingerprint].sort());
    expect(sentBy(ledger)[0]).not.toContain(q1?.fingerprint);
    // The new signature is audited (by the worker) and kept; the round tells the current set.
    const entries = (await h.wallet.audit.signatures()).filter((e) => e.submission === first.rec.id);
    expect(entries.filter((e) => e.actor === 'worker').map((e) => e.keyFingerprint)).toEqual([
      q3.fingerprint,
    ]);
    expect(after.signatureRound?.keys.map((k) => k.fingerprint)).toEqual([
      q2?.fingerprint,
      q3.fingerprint,
      ext.entry.fingerprint,
    ]);
    // Then only external keys: nothing Quill holds can make up the threshold.
    const other = externalKey();
    await registry.replace(
      { ...rotated, signing: { threshold: 2, keys: [ext.entry, other.entry] }, serial: 3 },
      2,
    );
    const last = await run(second.rec.id);
    expect(last.ledger.received).toEqual([]);
    expect(last.record.status).toBe('rejected');
    expect(last.record.error?.code).toBe('KEYS_ROTATED');
    const tl = await h.call('GET', `/wallet/v1/submissions/${second.rec.id}/timeline`, {
      token: await h.token('read'),
    });
    expect(tl.json.explanation).toMatchObject({ code: 'KEYS_ROTATED' });
  });

  it('property: fewer than M valid distinct signers never queue it, whatever is posted', async () => {
    const store = freshStore(redis);
    const set = [externalKey(), externalKey('p256'), externalKey(), externalKey('p256'), externalKey()];
    const partyId = `prop::${randomBytes(4).toString('hex')}`;
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 5 }),
        fc.array(fc.record({ key: fc.nat(6), valid: fc.boolean() }), { maxLength: 12 }),
        async (threshold, posts) => {
          const hash = randomBytes(32);
          const rec = record({
            party: partyId,
            status: 'awaiting_signatures',
            preparedTransactionHash: hash.toString('hex'),
            signatureRound: {
              threshold,
              deadline: null,
              keys: set.map((k) => ({
                fingerprint: k.entry.fingerprint,
                holder: 'external',
                label: null,
                signedAt: null,
              })),
            },
          });
          await store.create(rec, { preparedTransaction: 'AA==', partySignatures: { signatures: [] } });
          let enqueued = 0;
          const deps = {
            store,
            enqueue: async () => {
              enqueued++;
            },
            signingSet: async () => ({ threshold, keys: set.map((k) => k.entry) }),
          };
          const valid = new Set<string>();
          const who = { subject: 'holder', role: 'approve' as const, party: undefined };
          for (const p of posts) {
            // Indexes 5 and 6: keys outside the set.
            const k: ExternalKey = set[p.key] ?? externalKey();
            const sig = p.valid ? k.sign(hash) : k.sign(randomBytes(32));
            try {
              await postSignature(deps, who, rec.id, sig);
              if (p.valid && set[p.key]) valid.add(k.entry.fingerprint);
            } catch {
              // Refusals are what the property expects of invalid posts.
            }
            const now = (await store.getRecord(rec.id)) as SubmissionRecord;
            if (valid.size < threshold) expect([now.status, enqueued]).toEqual(['awaiting_signatures', 0]);
            else expect([now.status, enqueued]).toEqual(['queued', 1]);
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('an approval quorum and a signature threshold are both required', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  const registry = new PartyRegistry({ dir: tempDir('quill-sets-') });
  beforeAll(async () => {
    const dir = tempDir('quill-policy-');
    const file = `${dir}/policy.yaml`;
    (await import('node:fs')).writeFileSync(
      file,
      'default: allow\nrules:\n  - name: things\n    match: { template: "#quill-test:Test:Thing" }\n    action: approve\n    quorum: 1\n    ttl: 1h\n',
    );
    h = await apiHarness({ POLICY_FILE: file }, { registry });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('holds unsigned for approval, then Quill signs, then the external holder completes it', async () => {
    const ext = externalKey();
    const p = await multiSigParty(registry, h.keys, { quill: 1, external: [ext], threshold: 2 });
    const tx = prepared(p.partyId);
    const hash = Buffer.from(tx.hashHex, 'hex');
    const res = await h.call('POST', '/wallet/v1/submissions', {
      body: tx.body,
      token: await h.token('submit'),
    });
    expect(res.json.status).toBe('awaiting_approval');
    const id = res.json.id as string;
    const approver = await issue(h, 'approver-1');
    // A signature before the approvals is refused, and Quill has signed nothing.
    const early = await h.call('POST', `/wallet/v1/submissions/${id}/signatures`, {
      body: { signature: ext.sign(hash) },
      token: approver,
    });
    expect(early.json.error?.code).toBe('NOT_AWAITING_SIGNATURES');
    expect((await h.wallet.store.get(id))?.payload?.partySignatures.signatures).toEqual([]);
    expect((await h.wallet.audit.signatures()).filter((e) => e.submission === id)).toEqual([]);
    const approved = await h.call('POST', `/wallet/v1/submissions/${id}/approvals`, {
      body: { decision: 'approve', hash: tx.hashHex },
      token: approver,
    });
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json.status).toBe('awaiting_signatures');
    const after = await h.wallet.store.get(id);
    expect(after?.payload?.partySignatures.signatures[0]?.signatures.map((s) => s.signedBy)).toEqual([
      p.quill[0]?.fingerprint,
    ]);
    const done = await h.call('POST', `/wallet/v1/submissions/${id}/signatures`, {
      body: { signature: ext.sign(hash) },
      token: approver,
    });
    expect(done.json).toMatchObject({ queued: true, submission: { status: 'queued' } });
    const tl = await h.call('GET', `/wallet/v1/submissions/${id}/timeline`, { token: approver });
    const kinds = (tl.json.steps as { kind: string }[]).map((s) => s.kind);
    expect(kinds).toEqual(['accepted', 'approval', 'signed', 'signature', 'signature', 'waiting']);
  });
});

function issue(_h: unknown, subject: string) {
  return issueToken({ secret: SECRET, role: 'approve', ttlSeconds: 600, subject });
}
