// Issue #12, finding 1 (in part): accepting is rate-limited per token (subject and party), counted in Redis so
// the limit holds across API processes; over it, 429 RATE_LIMITED with Retry-After, and nothing is signed.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiError } from '../../../src/api/errors.ts';
import { acceptLimiter } from '../../../src/api/rate-limit.ts';
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

describe('the rate-limit window', () => {
  it('opens at the first count, is not extended by later ones, and closes whole', async () => {
    const redis = new Redis(inject('redisUrl'));
    try {
      const prefix = `rl-${randomBytes(3).toString('hex')}:`;
      const limit = acceptLimiter(redis, prefix, { max: 3, windowMs: 600 });
      const who = { subject: 'w', party: 'p' };
      await limit(who, 2);
      const [key] = await redis.keys(`${prefix}*`);
      const first = await redis.pttl(key as string);
      expect(first).toBeGreaterThan(0);
      expect(first).toBeLessThanOrEqual(600);
      await new Promise((r) => setTimeout(r, 150));
      await limit(who, 1);
      expect(await redis.pttl(key as string)).toBeLessThanOrEqual(first - 100);
      const over = await limit(who, 1).catch((e: unknown) => e);
      expect(over).toBeInstanceOf(ApiError);
      expect((over as ApiError).status).toBe(429);
      expect(await redis.get(key as string)).toBe('4');
      await new Promise((r) => setTimeout(r, 600));
      expect(await redis.exists(key as string)).toBe(0);
      await limit(who, 3);
    } finally {
      redis.disconnect();
    }
  });
});
