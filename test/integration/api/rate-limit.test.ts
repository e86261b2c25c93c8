// Issue #12, finding 1 (in part): accepting is rate-limited per token (subject and party), counted in Redis so
// the limit holds across API processes; over it, 429 RATE_LIMITED with Retry-After, and nothing is signed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { apiHarness, prepared, SECRET } from '../../support/api-harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
let alice: { id: string };

beforeAll(async () => {
  h = await apiHarness({ ACCEPT_RATE_LIMIT: '3', ACCEPT_RATE_WINDOW_SECONDS: '60' });
  alice = await h.party('alice');
});
afterAll(() => h.close());

const tokenFor = (subject: string) =>
  issueToken({ secret: SECRET, role: 'submit', ttlSeconds: 600, subject, party: alice.id });

describe('accept rate limit', () => {
  it('answers 429 with Retry-After past the limit, for that token only', async () => {
    const flood = await tokenFor('flooder');
    for (let i = 0; i < 3; i++) {
      const ok = await h.call('POST', '/wallet/v1/submissions', {
        body: prepared(alice.id).body,
        token: flood,
      });
      expect(ok.status).toBe(202);
    }
    const signedBefore = (await h.wallet.audit.signatures()).length;
    const over = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(alice.id).body,
      token: flood,
    });
    expect(over.status).toBe(429);
    expect(over.json.error?.code).toBe('RATE_LIMITED');
    const retryAfter = Number(over.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    const batch = await h.call('POST', '/wallet/v1/submissions/batch', {
      body: { submissions: [prepared(alice.id).body] },
      token: flood,
    });
    expect(batch.status).toBe(429);
    expect((await h.wallet.audit.signatures()).length).toBe(signedBefore);

    const other = await tokenFor('someone-else');
    const fine = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(alice.id).body,
      token: other,
    });
    expect(fine.status).toBe(202);
  });

  it('counts every item of a batch', async () => {
    const t = await tokenFor('batcher');
    const four = { submissions: Array.from({ length: 4 }, () => prepared(alice.id).body) };
    const res = await h.call('POST', '/wallet/v1/submissions/batch', { body: four, token: t });
    expect(res.status).toBe(429);
  });
});
