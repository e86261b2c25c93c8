// Issue #12, finding 1: large prepared transactions are decoded and hashed on worker threads, not on the request
// thread; what they answer is exactly what the inline path answers.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TransactionError } from '@quill/canton/transaction';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_RECOGNIZERS } from '../../../src/policy/index.ts';
import { inspectPrepared, parseBody, previewStored } from '../../../src/submissions/accept/inspect.ts';
import { InspectPool } from '../../../src/submissions/accept/pool.ts';
import { SubmissionRefused } from '../../../src/submissions/index.ts';
import { apiHarness, prepared } from '../../support/api-harness.ts';
import { referenceHashHex } from '../../support/oracle.ts';
import { tempDir } from '../../support/tmp.ts';

const V2 = 'HASHING_SCHEME_VERSION_V2';
const HOLDINGS = DEFAULT_RECOGNIZERS.holdings;

describe('InspectPool', () => {
  let pool: InspectPool;
  beforeAll(() => {
    pool = new InspectPool({ threads: 2, maxQueued: 4, threadMemoryMb: 256, holdings: HOLDINGS });
  });
  afterAll(() => pool.close());

  it('answers what the inline inspection answers, for both schemes', async () => {
    for (const scheme of [V2, 'HASHING_SCHEME_VERSION_V3'] as const) {
      const b64 = prepared('alice::1220aa', { scheme, units: 20_000 }).body.preparedTransaction;
      const { facts: offFacts, ...off } = await pool.inspect(b64, scheme);
      const { facts: inFacts, ...inline } = inspectPrepared(b64, scheme, HOLDINGS);
      expect(off).toEqual(inline);
      // The policy's facts are computed on the thread and arrive as data.
      expect(offFacts?.()).toEqual(inFacts?.());
      expect(offFacts?.()).toMatchObject({ party: 'alice::1220aa' });
    }
  });

  it("a stored transaction's preview is the inline one, serialized on the thread", async () => {
    for (const scheme of [V2, 'HASHING_SCHEME_VERSION_V3'] as const) {
      const b64 = prepared('alice::1220aa', { scheme, units: 20_000 }).body.preparedTransaction;
      const off = await pool.preview(b64, scheme);
      expect(off).toEqual(previewStored(b64, scheme, HOLDINGS));
      expect(JSON.parse(off.json)).toMatchObject({ tree: [expect.any(String)], preview: { hash: off.hash } });
    }
  });

  it('a request body parsed on the thread is what the inline parse answers: JSON, too deep, or not JSON', async () => {
    const bodies = ['{"a":[1,"x",{"b":null}]}', `${'['.repeat(65)}${']'.repeat(65)}`, '{"a":', '"é"'];
    for (const text of bodies) {
      const bytes = new TextEncoder().encode(text);
      expect(await pool.parseJson(bytes)).toEqual(parseBody(bytes));
    }
    expect(parseBody(new TextEncoder().encode(bodies[1] as string))).toEqual({ tooDeep: true });
    expect(parseBody(new TextEncoder().encode('{"a":'))).toEqual({ malformed: true });
  });

  it('a malformed transaction is the TransactionError the inline path throws', async () => {
    const err = await pool.inspect('AAAA', V2).catch((e) => e);
    expect(err).toBeInstanceOf(TransactionError);
    let inline: unknown;
    try {
      inspectPrepared('AAAA', V2, HOLDINGS);
    } catch (e) {
      inline = e;
    }
    expect({ code: err.code, message: err.message }).toEqual({
      code: (inline as TransactionError).code,
      message: (inline as TransactionError).message,
    });
  });

  it('more than maxQueued at once: the extra ones are refused with 503, the rest answered', async () => {
    const b64 = prepared('alice::1220aa', { units: 100_000 }).body.preparedTransaction;
    const all = await Promise.allSettled(Array.from({ length: 6 }, () => pool.inspect(b64, V2)));
    expect(all.filter((r) => r.status === 'fulfilled')).toHaveLength(4);
    const refused = all.flatMap((r) => (r.status === 'rejected' ? [r.reason] : []));
    expect(refused).toHaveLength(2);
    for (const e of refused) expect(e).toMatchObject({ status: 503, code: 'UNAVAILABLE' });
    expect(pool.pending).toBe(0);
  });

  it('a transaction that needs more memory than a thread may use is a 413; the pool goes on', async () => {
    const small = new InspectPool({ threads: 1, maxQueued: 4, threadMemoryMb: 64, holdings: HOLDINGS });
    try {
      const huge = prepared('alice::1220aa', { units: 1_500_000 }).body.preparedTransaction;
      const fine = prepared('alice::1220aa', { units: 1000 }).body.preparedTransaction;
      const [a, b] = await Promise.allSettled([small.inspect(huge, V2), small.inspect(fine, V2)]);
      expect(a.status === 'rejected' && a.reason).toBeInstanceOf(SubmissionRefused);
      expect(a.status === 'rejected' && a.reason).toMatchObject({ status: 413, code: 'TOO_LARGE' });
      expect(b.status === 'fulfilled' && b.value.hash).toEqual(inspectPrepared(fine, V2, HOLDINGS).hash);
    } finally {
      await small.close();
    }
  }, 60_000);
});

describe('the accept path', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  beforeAll(async () => {
    h = await apiHarness({ INSPECT_THREADS: '1', INSPECT_OFFLOAD_BYTES: '65536' });
  });
  afterAll(() => h.close());

  it('signs a large transaction inspected off-thread exactly as a small one inline', async () => {
    const alice = await h.party('alice');
    const token = await h.token('submit', alice.id);
    for (const units of [0, 30_000]) {
      const p = prepared(alice.id, { units });
      expect(p.body.preparedTransaction.length >= 65536).toBe(units > 0);
      const res = await h.call('POST', '/wallet/v1/submissions', {
        body: { ...p.body, preparedTransactionHash: p.hashHex },
        token,
      });
      expect(res.status).toBe(202);
      // The hash as an independent hasher computes it, whichever thread decoded the transaction.
      expect(res.json.preparedTransactionHash).toBe(await referenceHashHex(p.body.preparedTransaction, V2));
    }
    const bad = await h.call('POST', '/wallet/v1/submissions', {
      body: { ...prepared(alice.id, { units: 30_000 }).body, preparedTransactionHash: '00'.repeat(32) },
      token,
    });
    expect(bad.status).toBe(422);
    expect(bad.json.error?.code).toBe('HASH_MISMATCH');
    // The two large ones went to the pool, the small one did not.
    const metrics = await h.wallet.registry.getSingleMetricAsString('quill_inspect_offloaded_total');
    expect(metrics).toMatch(/^quill_inspect_offloaded_total 2$/m);
  });

  it('previews a large stored transaction off-thread exactly as a small one inline (issue 29 item 10)', async () => {
    const alice = await h.party('alice');
    const token = await h.token('submit', alice.id);
    const before = await h.wallet.registry.getSingleMetricAsString('quill_inspect_offloaded_total');
    const count = () => Number(/ (\d+)$/m.exec(before)?.[1]);
    for (const units of [0, 30_000]) {
      const p = prepared(alice.id, { units });
      const res = await h.call('POST', '/wallet/v1/submissions', { body: p.body, token });
      expect(res.status).toBe(202);
      const pv = await h.call('GET', `/wallet/v1/submissions/${res.json.id}/preview`, { token });
      expect(pv.status).toBe(200);
      expect(pv.headers.get('content-type')).toMatch(/^application\/json/);
      const inline = previewStored(p.body.preparedTransaction, V2, HOLDINGS);
      expect(pv.json).toEqual({
        id: res.json.id,
        preparedTransactionHash: p.hashHex,
        recomputedHash: p.hashHex,
        hashMatches: true,
        payloadDroppedAt: null,
        ...JSON.parse(inline.json),
      });
    }
    // The large one was inspected and previewed on the pool; its body, parsed there, is not counted.
    const after = await h.wallet.registry.getSingleMetricAsString('quill_inspect_offloaded_total');
    expect(after).toMatch(new RegExp(`^quill_inspect_offloaded_total ${count() + 2}$`, 'm'));
  });
});

describe('the approval policy on a transaction inspected off-thread', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  beforeAll(async () => {
    const file = join(tempDir('quill-policy-'), 'policy.yaml');
    writeFileSync(
      file,
      'default: allow\nrules:\n  - name: no-things\n    match: { template: "#quill-test:Test:Thing" }\n    action: deny\n    reason: no things\n',
    );
    h = await apiHarness({ INSPECT_THREADS: '1', INSPECT_OFFLOAD_BYTES: '65536', POLICY_FILE: file });
  });
  afterAll(() => h.close());

  it('reads the facts the thread computed: a large transaction is denied like a small one', async () => {
    const alice = await h.party('alice');
    const token = await h.token('submit', alice.id);
    for (const units of [0, 30_000]) {
      const res = await h.call('POST', '/wallet/v1/submissions', {
        body: prepared(alice.id, { units }).body,
        token,
      });
      expect(res.status).toBe(422);
      expect(res.json.error?.code).toBe('POLICY_DENIED');
    }
    const metrics = await h.wallet.registry.getSingleMetricAsString('quill_inspect_offloaded_total');
    expect(metrics).toMatch(/^quill_inspect_offloaded_total 1$/m);
    expect(await h.wallet.audit.signatures()).toEqual([]);
  });
});
