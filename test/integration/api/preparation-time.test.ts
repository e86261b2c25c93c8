// Issue 12 finding 9: a preparation time further ahead than the tolerance is refused at accept, unsigned.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHarness, prepared } from '../../support/api-harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h.close());

describe('preparation time in the future', () => {
  it('refuses a transaction prepared a year ahead with 422 TRANSACTION_NOT_YET_VALID and signs nothing', async () => {
    const alice = await h.party('alice');
    const token = await h.token('submit');
    const ahead = prepared(alice.id, { preparationTime: new Date(Date.now() + 365 * 86_400_000) });
    const res = await h.call('POST', '/wallet/v1/submissions', { body: ahead.body, token });
    expect({ status: res.status, code: res.json.error?.code }).toEqual({
      status: 422,
      code: 'TRANSACTION_NOT_YET_VALID',
    });
    expect(res.json.error?.message).toMatch(/future/);
    // In a batch too, and just past the tolerance (24 h by default).
    const edge = prepared(alice.id, { preparationTime: new Date(Date.now() + 86_400_000 + 60_000) });
    const batch = await h.call('POST', '/wallet/v1/submissions/batch', {
      body: { submissions: [edge.body] },
      token,
    });
    expect(JSON.stringify(batch.json)).toContain('TRANSACTION_NOT_YET_VALID');
    expect(await h.wallet.audit.signatures()).toEqual([]);

    // A clock a little ahead (within the tolerance) is still accepted.
    const skewed = prepared(alice.id, { preparationTime: new Date(Date.now() + 3_600_000) });
    const ok = await h.call('POST', '/wallet/v1/submissions', { body: skewed.body, token });
    expect(ok.status, ok.text).toBe(202);
  });
});
