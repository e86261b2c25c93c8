// Attacks on token handling from issue 12 (findings 5, 6, 7, 10), each performed against the real API first.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHarness, prepared, SECRET } from './harness.ts';

type H = Awaited<ReturnType<typeof apiHarness>>;
let h: H;

/** A token signed with the API's secret carrying exactly `claims` (plus iat/exp unless given). */
function mint(claims: Record<string, unknown>, times: { iat?: number; exp?: number | null } = {}) {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(times.iat ?? now);
  if (times.exp !== null) jwt = jwt.setExpirationTime(times.exp ?? now + 600);
  return jwt.sign(new TextEncoder().encode(SECRET));
}
const role = (r: 'read' | 'submit' | 'admin') => ({ role: r });

beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h?.close());

describe('finding 5: empty party claim', () => {
  it('refuses a token whose party claim is empty, blank or not a string (401)', async () => {
    const alice = await h.party('alice');
    const made = await h.call('POST', '/wallet/v1/submissions', {
      token: await h.token('admin'),
      body: prepared(alice.id).body,
    });
    expect(made.status).toBe(202);
    for (const party of ['', '  ', 7, null, ['x']]) {
      const token = await mint({ ...role('read'), sub: 'mallory', party });
      const res = await h.call('GET', '/wallet/v1/submissions', { token });
      // Before the fix, party "" listed every party's submissions (alice's included).
      expect(res.status, JSON.stringify(party)).toBe(401);
      expect(res.json.error?.code).toBe('UNAUTHENTICATED');
    }
  });
});
