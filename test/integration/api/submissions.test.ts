import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHarness, prepared } from '../../support/api-harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
let alice: { id: string; fingerprint: string };
let submitToken: string;

beforeAll(async () => {
  h = await apiHarness();
  alice = await h.party('alice');
  submitToken = await h.token('submit');
});
afterAll(() => h.close());

async function noSignatures(): Promise<void> {
  expect(await h.wallet.audit.signatures()).toEqual([]);
}

describe('refusals (4xx with a clear error, never a signature)', () => {
  it('needs a token with the right role', async () => {
    const { body } = prepared(alice.id);
    const none = await h.call('POST', '/wallet/v1/submissions', { body });
    expect(none.status).toBe(401);
    expect(none.json.error?.code).toBe('UNAUTHENTICATED');
    const bad = await h.call('POST', '/wallet/v1/submissions', { body, token: 'not.a.jwt' });
    expect(bad.status).toBe(401);
    const read = await h.call('POST', '/wallet/v1/submissions', { body, token: await h.token('read') });
    expect(read.status).toBe(403);
    const keys = await h.call('GET', '/wallet/v1/keys', { token: submitToken });
    expect(keys.status).toBe(403);
    await noSignatures();
  });

  it('refuses tampered bytes, a hash mismatch, the wrong party, an unknown party and an expired transaction', async () => {
    const { body, hashHex } = prepared(alice.id);
    const bytes = Buffer.from(body.preparedTransaction, 'base64');
    bytes[bytes.length - 3] = (bytes[bytes.length - 3] as number) ^ 0x01;
    const cases: [unknown, number, string][] = [
      [{ ...body, preparedTransaction: 'bm90IGEgdHJhbnNhY3Rpb24=' }, 400, 'INVALID_PREPARED_TRANSACTION'],
      [{ ...body, preparedTransactionHash: 'ab'.repeat(32) }, 422, 'HASH_MISMATCH'],
      [{ ...body, preparedTransactionHash: 'zz' }, 400, 'INVALID_HASH'],
      [{ ...body, hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3' }, 201, ''],
      [{ ...body, party: 'mallory::1220ff' }, 422, 'PARTY_MISMATCH'],
      [prepared('bob::1220abcd').body, 422, 'UNKNOWN_PARTY'],
      [prepared(alice.id, { maxRecordTime: new Date(Date.now() - 60_000) }).body, 422, 'TRANSACTION_EXPIRED'],
      // prepared longer ago than the synchronizer's preparation time tolerance (24 h by default)
      [
        prepared(alice.id, { preparationTime: new Date(Date.now() - 86_401_000) }).body,
        422,
        'TRANSACTION_EXPIRED',
      ],
      // (A field this API does not name is ignored: the participant's prepare response is taken as it is.)
      [{ ...body, hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V1' }, 400, 'INVALID_REQUEST'],
    ];
    for (const [payload, status, code] of cases) {
      if (status === 201) continue; // V3 hash of a V2-prepared body is a different hash: checked below
      const res = await h.call('POST', '/wallet/v1/submissions', { body: payload, token: submitToken });
      expect({ status: res.status, code: res.json?.error?.code }).toEqual({ status, code });
      expect(res.json.error?.message.length).toBeGreaterThan(5);
      expect(res.json.error?.message).not.toMatch(/\n|at .*\.ts:/);
    }
    // A flipped bit anywhere, sent with the participant's hash: refused (undecodable, or a hash mismatch).
    const p = prepared(alice.id);
    const raw = Buffer.from(p.body.preparedTransaction, 'base64');
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: raw.length - 1 }),
        fc.integer({ min: 0, max: 7 }),
        async (i, bit) => {
          const t = Buffer.from(raw);
          t[i] = (t[i] as number) ^ (1 << bit);
          const res = await h.call('POST', '/wallet/v1/submissions', {
            body: {
              ...p.body,
              preparedTransaction: t.toString('base64'),
              preparedTransactionHash: p.hashB64,
            },
            token: submitToken,
          });
          // Which one depends on the bit: the bytes no longer decode, or they decode to another hash.
          expect([
            { status: 400, code: 'INVALID_PREPARED_TRANSACTION' },
            { status: 422, code: 'HASH_MISMATCH' },
          ]).toContainEqual({ status: res.status, code: res.json.error?.code });
        },
      ),
      { numRuns: 60 },
    );
    expect(bytes.length).toBeGreaterThan(0);
    const wrongScheme = await h.call('POST', '/wallet/v1/submissions', {
      body: { ...body, hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3', preparedTransactionHash: hashHex },
      token: submitToken,
    });
    expect({ status: wrongScheme.status, code: wrongScheme.json.error?.code }).toEqual({
      status: 422,
      code: 'HASH_MISMATCH',
    });
    await noSignatures();
  });

  it('refuses a party-scoped token for another party, and a disabled key', async () => {
    const bob = await h.party('bob');
    const res = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(bob.id).body,
      token: await h.token('submit', alice.id),
    });
    expect(res.status).toBe(403);
    expect(res.json.error?.code).toBe('PARTY_NOT_ALLOWED');
    const admin = await h.token('admin');
    const dis = await h.call('POST', `/wallet/v1/keys/${bob.fingerprint}/disable`, { token: admin });
    expect(dis.status).toBe(200);
    expect(dis.json.status).toBe('disabled');
    const off = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(bob.id).body,
      token: submitToken,
    });
    expect(off.status).toBe(422);
    expect(off.json.error?.code).toBe('KEY_DISABLED');
    await noSignatures();
  });

  it('answers fuzzed bodies with a 4xx JSON error, never a 500', async () => {
    const valid = prepared(alice.id).body;
    const arbBody = fc.oneof(
      fc.anything(),
      fc.record(
        {
          preparedTransaction: fc.oneof(
            fc.string(),
            fc.base64String(),
            fc.constant(valid.preparedTransaction),
          ),
          hashingSchemeVersion: fc.oneof(fc.string(), fc.constant('HASHING_SCHEME_VERSION_V2')),
          preparedTransactionHash: fc.oneof(fc.string(), fc.stringMatching(/^[0-9a-f]{0,70}$/)),
          party: fc.string(),
          deduplicationPeriod: fc.anything(),
          userId: fc.anything(),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(arbBody, async (b) => {
        const res = await h.call('POST', '/wallet/v1/submissions', {
          body: JSON.stringify(b) ?? 'null',
          token: submitToken,
        });
        if (res.status === 202 || res.status === 200) return; // a valid submission slipped through: fine
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(res.status).toBeLessThan(500);
        expect(typeof res.json?.error?.code).toBe('string');
      }),
      { numRuns: 150 },
    );
    const raw = await h.call('POST', '/wallet/v1/submissions', {
      body: '{"preparedTransaction": ',
      token: submitToken,
    });
    expect(raw.status).toBe(400);
    expect(raw.json.error?.code).toBe('INVALID_JSON');
  });
});

describe('accepting', () => {
  it('signs once, stores, enqueues; the same request gives the same record', async () => {
    const p = prepared(alice.id);
    const body = { ...p.body, preparedTransactionHash: p.hashB64, party: alice.id };
    const first = await h.call('POST', '/wallet/v1/submissions', { body, token: submitToken });
    expect(first.status).toBe(202);
    expect(first.json).toMatchObject({
      status: 'queued',
      party: alice.id,
      preparedTransactionHash: p.hashHex,
    });
    const again = await h.call('POST', '/wallet/v1/submissions', { body, token: submitToken });
    expect(again.json.id).toBe(first.json.id);
    const hex = await h.call('POST', '/wallet/v1/submissions', {
      body: { ...body, preparedTransactionHash: p.hashHex },
      token: submitToken,
    });
    expect(hex.json.id).toBe(first.json.id);
    const log = (await h.wallet.audit.signatures()).filter((e) => e.hash === p.hashHex);
    expect(log).toHaveLength(1);
    expect(log[0]).toMatchObject({ actor: 't-submit', keyFingerprint: alice.fingerprint, party: alice.id });
    const got = await h.call('GET', `/wallet/v1/submissions/${first.json.id}`, {
      token: await h.token('read'),
    });
    expect(got.json.id).toBe(first.json.id);
    const jobs = await h.wallet.queue.getJobCounts('waiting', 'delayed', 'active');
    expect((jobs.waiting ?? 0) + (jobs.delayed ?? 0) + (jobs.active ?? 0)).toBeGreaterThan(0);
  });

  it('keeps Idempotency-Key promises and refuses the key for another body', async () => {
    const a = prepared(alice.id).body;
    const headers = { 'idempotency-key': 'order-42' };
    const one = await h.call('POST', '/wallet/v1/submissions', { body: a, token: submitToken, headers });
    const two = await h.call('POST', '/wallet/v1/submissions', { body: a, token: submitToken, headers });
    expect(two.json.id).toBe(one.json.id);
    const other = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(alice.id).body,
      token: submitToken,
      headers,
    });
    expect(other.status).toBe(422);
    expect(other.json.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('hides other parties from a party-scoped token', async () => {
    const carol = await h.party('carol');
    const res = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(carol.id).body,
      token: submitToken,
    });
    const scoped = await h.token('read', alice.id);
    const hidden = await h.call('GET', `/wallet/v1/submissions/${res.json.id}`, { token: scoped });
    expect(hidden.status).toBe(404);
    const listed = await h.call('GET', '/wallet/v1/submissions', { token: scoped });
    expect((listed.json.items as { party: string }[]).every((x) => x.party === alice.id)).toBe(true);
    const forbidden = await h.call('GET', `/wallet/v1/submissions?party=${encodeURIComponent(carol.id)}`, {
      token: scoped,
    });
    expect(forbidden.status).toBe(403);
  });

  it('answers a batch item by item and caps its size', async () => {
    const ok = prepared(alice.id).body;
    const res = await h.call('POST', '/wallet/v1/submissions/batch', {
      body: {
        submissions: [
          ok,
          { ...ok, preparedTransactionHash: '00'.repeat(32) },
          prepared('zed::1220ab').body,
          { foo: 1 },
        ],
      },
      token: submitToken,
    });
    expect(res.status).toBe(200);
    const items = res.json.items as { index: number; status: number; error?: { code: string } }[];
    expect(items.map((i) => i.status)).toEqual([202, 422, 422, 400]);
    expect(items[3]?.error?.code).toBe('INVALID_REQUEST');
    expect(items[1]?.error?.code).toBe('HASH_MISMATCH');
    const big = await h.call('POST', '/wallet/v1/submissions/batch', {
      body: { submissions: Array.from({ length: 6 }, () => ok) },
      token: submitToken,
    });
    expect(big.status).toBe(413);
  });
});
