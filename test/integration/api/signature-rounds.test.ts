// Signature rounds over the HTTP API, with real Redis and real signatures: a party whose signing set needs more
// signatures than Quill's keys give waits `awaiting_signatures`; its external holders post theirs (verified
// against the registered key, counted once); the post that reaches M queues it exactly once, however many race.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { EventLog, relayStep } from '../../../src/events/index.ts';
import { PartyRegistry } from '../../../src/parties/index.ts';
import { jobIdFor, type SubmissionRecord } from '../../../src/submissions/index.ts';
import { apiHarness, prepared } from '../../support/api-harness.ts';
import { type ExternalKey, externalKey, multiSigParty } from '../../support/signing-sets.ts';
import { tempDir } from '../../support/tmp.ts';

type Rec = SubmissionRecord & Record<string, unknown>;

describe('signature rounds over the API', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  const registry = new PartyRegistry({ dir: tempDir('quill-sets-') });
  let submit: string;
  let signer: string;

  beforeAll(async () => {
    h = await apiHarness({}, { registry });
    submit = await h.token('submit');
    signer = await h.token('approve');
  });
  afterAll(async () => {
    await h?.close();
  });

  const accept = async (partyId: string, opts: Parameters<typeof prepared>[1] = {}) => {
    const p = prepared(partyId, opts);
    const res = await h.call('POST', '/wallet/v1/submissions', { body: p.body, token: submit });
    expect(res.status, res.text).toBe(202);
    return { rec: res.json as unknown as Rec, hash: Buffer.from(p.hashHex, 'hex'), hashHex: p.hashHex };
  };
  const post = (id: string, signature: unknown, token = signer) =>
    h.call('POST', `/wallet/v1/submissions/${id}/signatures`, { body: { signature }, token });
  const sent = async (id: string) =>
    (await h.wallet.store.get(id))?.payload?.partySignatures.signatures ?? [];
  const signersOf = async (id: string) =>
    (await sent(id)).flatMap((p) => p.signatures.map((s) => s.signedBy));
  const signatureEntries = async (id: string) =>
    (await h.wallet.audit.signatures()).filter((e) => e.submission === id);

  it('a single-key party is signed with its one key and queued, with no round, as before', async () => {
    const legacy = await h.party('legacy');
    const { rec, hashHex } = await accept(legacy.id);
    expect(rec.status).toBe('queued');
    expect(rec.signatureRound).toBeUndefined();
    expect(rec.keyFingerprint).toBe(legacy.fingerprint);
    expect(await signersOf(rec.id)).toEqual([legacy.fingerprint]);
    const entries = await signatureEntries(rec.id);
    expect(entries.map((e) => [e.keyFingerprint, e.hash, e.stored])).toEqual([
      [legacy.fingerprint, hashHex, 'true'],
    ]);
    // Nothing to sign for anyone else.
    const round = await h.call('GET', `/wallet/v1/submissions/${rec.id}/signatures`, { token: signer });
    expect(round.json.error?.code).toBe('NOT_AWAITING_SIGNATURES');
  });

  it('2 of 3 with two Quill keys queues at once with both signatures (never the namespace key)', async () => {
    const ext = externalKey();
    const p = await multiSigParty(registry, h.keys, { quill: 2, external: [ext], threshold: 2 });
    const { rec } = await accept(p.partyId);
    expect(rec.status).toBe('queued');
    expect(rec.signatureRound?.threshold).toBe(2);
    expect(rec.signatureRound?.keys.map((k) => [k.holder, k.signedAt !== null])).toEqual([
      ['quill', true],
      ['quill', true],
      ['external', false],
    ]);
    const by = await signersOf(rec.id);
    expect(by.sort()).toEqual(p.quill.map((k) => k.fingerprint).sort());
    expect(by).not.toContain(p.namespace.fingerprint);
    expect((await signatureEntries(rec.id)).map((e) => e.keyFingerprint).sort()).toEqual([...by].sort());
  });

  it('1 Quill key + external holders: waits, shows the hash and the awaited keys, the external post queues it', async () => {
    const a = externalKey('ed25519', 'alice ledger');
    const b = externalKey('p256', 'bob yubikey');
    const p = await multiSigParty(registry, h.keys, { quill: 1, external: [a, b], threshold: 2 });
    const { rec, hash, hashHex } = await accept(p.partyId);
    expect(rec.status).toBe('awaiting_signatures');
    expect(await signersOf(rec.id)).toEqual([p.quill[0]?.fingerprint]);
    const round = await h.call('GET', `/wallet/v1/submissions/${rec.id}/signatures`, {
      token: await h.token('read'),
    });
    expect(round.status).toBe(200);
    expect(round.json).toMatchObject({
      status: 'awaiting_signatures',
      threshold: 2,
      signed: 1,
      hash: hashHex,
      hashBase64: hash.toString('base64'),
      deadline: rec.canCommitUntil,
      awaiting: [
        { fingerprint: a.entry.fingerprint, label: 'alice ledger', holder: 'external' },
        { fingerprint: b.entry.fingerprint, label: 'bob yubikey', holder: 'external' },
      ],
    });
    expect(typeof round.json.preview).toBe('string');
    // A reader may look but not sign.
    expect((await post(rec.id, b.sign(hash), await h.token('read'))).status).toBe(403);
    const res = await post(rec.id, b.sign(hash));
    expect(res.status, res.text).toBe(200);
    expect(res.json).toMatchObject({ counted: true, queued: true, submission: { status: 'queued' } });
    expect((await signersOf(rec.id)).sort()).toEqual([p.quill[0]?.fingerprint, b.entry.fingerprint].sort());
    // Its audit entry names the signer, the actor and the hash.
    const entries = (await h.wallet.audit.entries()).map((e) => Object.fromEntries(e.fields));
    expect(entries.filter((e) => e.kind === 'submission.signature' && e.submission === rec.id)).toEqual([
      expect.objectContaining({ keyFingerprint: b.entry.fingerprint, actor: 't-approve', hash: hashHex }),
    ]);
    // After the threshold: another holder's post is refused, the same holder's again is counted once.
    expect((await post(rec.id, a.sign(hash))).json.error?.code).toBe('NOT_AWAITING_SIGNATURES');
    const again = await post(rec.id, b.sign(hash));
    expect(again.status).toBe(200);
    expect(again.json).toMatchObject({ counted: false, queued: false });
  });

  it('announces the round: submission.awaiting_signatures, then submission.signature per signature', async () => {
    const redis = new Redis(inject('redisUrl'));
    try {
      const prefix = h.config.redisPrefix;
      const log = new EventLog(redis, prefix);
      while ((await relayStep(redis, prefix)) > 0);
      const start = await log.end();
      const a = externalKey();
      const b = externalKey();
      const p = await multiSigParty(registry, h.keys, { quill: 1, external: [a, b], threshold: 3 });
      const { rec, hash } = await accept(p.partyId);
      await post(rec.id, a.sign(hash));
      await post(rec.id, a.sign(hash)); // counted once: no second event
      await post(rec.id, b.sign(hash));
      while ((await relayStep(redis, prefix)) > 0);
      const { events } = await log.read(start, {}, 100);
      const mine = events.filter((e) => (e.body as { id: string }).id === rec.id);
      // The body is the record as the relay read it (queued by now).
      expect(mine.map((e) => e.type)).toEqual([
        'submission.awaiting_signatures',
        'submission.signature',
        'submission.signature',
      ]);
    } finally {
      await redis.quit();
    }
  });

  it('a disabled Quill key does not sign: the round waits for the external holder instead', async () => {
    const ext = externalKey();
    const p = await multiSigParty(registry, h.keys, { quill: 2, external: [ext], threshold: 2 });
    await h.keys.disable(p.quill[1]?.fingerprint as string);
    const { rec, hash } = await accept(p.partyId);
    expect(rec.status).toBe('awaiting_signatures');
    expect(await signersOf(rec.id)).toEqual([p.quill[0]?.fingerprint]);
    expect((await post(rec.id, ext.sign(hash))).json).toMatchObject({ queued: true });
  });

  it('refuses a key not in the set, a bad signature (never echoed), and counts a duplicate once', async () => {
    const a = externalKey();
    const b = externalKey('p256');
    const p = await multiSigParty(registry, h.keys, { quill: 1, external: [a, b], threshold: 3 });
    const { rec, hash } = await accept(p.partyId);
    const stranger = externalKey();
    const notInSet = await post(rec.id, stranger.sign(hash));
    expect([notInSet.status, notInSet.json.error?.code]).toEqual([422, 'NOT_A_SIGNER']);
    // The namespace key of a separate layout is not a signer either.
    const ns = await post(rec.id, { ...stranger.sign(hash), signedBy: p.namespace.fingerprint });
    expect(ns.json.error?.code).toBe('NOT_A_SIGNER');
    // Signed by another key, claimed as a's; a's signature over another hash; b's with the wrong algorithm.
    const forged = { ...stranger.sign(hash), signedBy: a.entry.fingerprint };
    const wrongHash = a.sign(randomBytes(32));
    const wrongAlgo = { ...b.sign(hash), signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384' };
    for (const bad of [forged, wrongHash, wrongAlgo]) {
      const res = await post(rec.id, bad);
      expect([res.status, res.json.error?.code]).toEqual([422, 'BAD_SIGNATURE']);
      expect(res.text).not.toContain(bad.signature);
    }
    const first = await post(rec.id, a.sign(hash));
    expect(first.json).toMatchObject({
      counted: true,
      queued: false,
      submission: { status: 'awaiting_signatures' },
    });
    const dup = await post(rec.id, a.sign(hash));
    expect([dup.status, dup.json.counted]).toEqual([200, false]);
    expect(await signersOf(rec.id)).toEqual([p.quill[0]?.fingerprint, a.entry.fingerprint]);
    const round = await h.call('GET', `/wallet/v1/submissions/${rec.id}/signatures`, { token: signer });
    expect(round.json.signed).toBe(2);
    // A high-S ECDSA signature verifies and is stored low-S.
    const high = highS(b.sign(hash));
    const res = await post(rec.id, high);
    expect(res.json).toMatchObject({ counted: true, queued: true });
    const stored = (await sent(rec.id))[0]?.signatures.find((s) => s.signedBy === b.entry.fingerprint);
    expect(stored?.signature).toBe(highS(high, false).signature);
  });

  it('another party’s token sees nothing; a record that is not waiting is refused', async () => {
    const ext = externalKey();
    const p = await multiSigParty(registry, h.keys, { quill: 1, external: [ext], threshold: 2 });
    const { rec, hash } = await accept(p.partyId);
    const other = await h.token('approve', 'someone-else::1220ab');
    expect((await post(rec.id, ext.sign(hash), other)).status).toBe(404);
    expect(
      (await h.call('GET', `/wallet/v1/submissions/${rec.id}/signatures`, { token: other })).status,
    ).toBe(404);
    const scoped = await h.token('approve', p.partyId);
    expect((await post(rec.id, ext.sign(hash), scoped)).json).toMatchObject({ queued: true });
  });

  it('after the deadline: ROUND_EXPIRED, and the record ends expired SIGNATURES_MISSING naming who is awaited', async () => {
    const ext = externalKey('ed25519', 'late holder');
    const p = await multiSigParty(registry, h.keys, { quill: 1, external: [ext], threshold: 2 });
    const { rec, hash } = await accept(p.partyId, { maxRecordTime: new Date(Date.now() + 1500) });
    expect(rec.status).toBe('awaiting_signatures');
    await new Promise((r) => setTimeout(r, 1700));
    const res = await post(rec.id, ext.sign(hash));
    expect([res.status, res.json.error?.code]).toEqual([409, 'ROUND_EXPIRED']);
    const after = (await h.wallet.store.getRecord(rec.id)) as SubmissionRecord;
    expect(after.status).toBe('expired');
    expect(after.error?.code).toBe('SIGNATURES_MISSING');
    expect(after.error?.message).toMatch(/^1 of 2 signatures by .*; awaiting late holder/);
    const tl = await h.call('GET', `/wallet/v1/submissions/${rec.id}/timeline`, { token: signer });
    expect(tl.json.explanation).toMatchObject({ code: 'SIGNATURES_MISSING' });
  });

  it('racing posts of every holder (and repeats) queue it exactly once — 10 rounds', async () => {
    for (let round = 0; round < 10; round++) {
      const holders: ExternalKey[] = [externalKey(), externalKey('p256'), externalKey(), externalKey('p256')];
      const p = await multiSigParty(registry, h.keys, { quill: 1, external: holders, threshold: 3 });
      const { rec, hash } = await accept(p.partyId);
      const posts = holders.flatMap((k) => [post(rec.id, k.sign(hash)), post(rec.id, k.sign(hash))]);
      const answers = await Promise.all(posts);
      const ok = answers.filter((a) => a.status === 200);
      expect(ok.filter((a) => a.json.queued === true)).toHaveLength(1);
      // Every refusal is one of a post that came after the threshold.
      for (const a of answers.filter((x) => x.status !== 200))
        expect(a.json.error?.code).toBe('NOT_AWAITING_SIGNATURES');
      const final = (await h.wallet.store.getRecord(rec.id)) as SubmissionRecord;
      expect(final.status).toBe('queued');
      const counted = ok.filter((a) => a.json.counted === true).length;
      expect(await signersOf(rec.id)).toHaveLength(1 + counted);
      expect(new Set(await signersOf(rec.id)).size).toBe(1 + counted);
      const job = await h.wallet.queue.getJob(jobIdFor(rec));
      expect(job).toBeTruthy();
      const jobs = (await h.wallet.queue.getJobs(['waiting', 'delayed', 'active', 'completed'])).filter(
        (j) => j.data.id === rec.id,
      );
      expect(jobs).toHaveLength(1);
    }
  });
});

/** The same P-256 signature with its S high (valid, not canonical), or low with `high` false. */
function highS<T extends { signature: string }>(sig: T, high = true): T {
  const der = Buffer.from(sig.signature, 'base64');
  // DER: 30 len 02 rlen r 02 slen s
  const rlen = der[3] as number;
  const r = der.subarray(4, 4 + rlen);
  const slen = der[5 + rlen] as number;
  const s = BigInt(`0x${der.subarray(6 + rlen, 6 + rlen + slen).toString('hex')}`);
  const n = BigInt('0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551');
  const isHigh = s > n / 2n;
  const hi = isHigh === high ? s : n - s;
  let hex = hi.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let sb = Buffer.from(hex, 'hex');
  if ((sb[0] as number) & 0x80) sb = Buffer.concat([Buffer.from([0]), sb]);
  const body = Buffer.concat([Buffer.from([2, r.length]), r, Buffer.from([2, sb.length]), sb]);
  return { ...sig, signature: Buffer.concat([Buffer.from([0x30, body.length]), body]).toString('base64') };
}
