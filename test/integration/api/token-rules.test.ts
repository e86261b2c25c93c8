// Attacks on token handling from issue 12 (findings 5, 6, 7, 10), each performed against the real API first.
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AuthError, createVerifier, issueToken } from '../../../src/auth/index.ts';
import { serve } from '../../../src/server/serve.ts';
import { apiHarness, prepared, SECRET } from '../../support/api-harness.ts';

type H = Awaited<ReturnType<typeof apiHarness>>;
let h: H;

/** A token signed with the API's secret carrying exactly `claims` (plus iat/exp unless given). */
function mint(claims: Record<string, unknown>, times: { iat?: number; exp?: number | null } = {}) {
  const now = Math.floor(Date.now() / 1000);
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).setIssuedAt(times.iat ?? now);
  if (times.exp !== null) jwt = jwt.setExpirationTime(times.exp ?? now + 600);
  return jwt.sign(new TextEncoder().encode(SECRET));
}
/** The one role claim Quill reads. */
const role = (r: 'read' | 'submit' | 'admin') => ({ scope: `quill:${r}` });

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

describe('finding 6: idempotency keys per tenant', () => {
  it("does not let one party's key refuse another party's request with the same subject and key", async () => {
    const alice = await h.party('alice');
    const bob = await h.party('bob');
    const headers = { 'idempotency-key': 'order-1' };
    // The same subject, as `quill tokens issue --party P` used to give every token.
    const asAlice = await mint({ ...role('submit'), sub: 'quill-submit', party: alice.id });
    const asBob = await mint({ ...role('submit'), sub: 'quill-submit', party: bob.id });
    const a = await h.call('POST', '/wallet/v1/submissions', {
      token: asAlice,
      headers,
      body: prepared(alice.id).body,
    });
    expect(a.status).toBe(202);
    // Before the fix: 422 IDEMPOTENCY_KEY_REUSED (alice's key, bob's body).
    const bobBody = prepared(bob.id).body;
    const b = await h.call('POST', '/wallet/v1/submissions', { token: asBob, headers, body: bobBody });
    expect(b.status).toBe(202);
    expect(b.json.party).toBe(bob.id);
    // Each still replays its own.
    const again = await h.call('POST', '/wallet/v1/submissions', { token: asBob, headers, body: bobBody });
    expect(again.json.id).toBe(b.json.id);
    const other = await h.call('POST', '/wallet/v1/submissions', {
      token: asBob,
      headers,
      body: prepared(bob.id).body,
    });
    expect(other.json.error?.code).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('refuses tokens without a subject, and issued tokens get distinct subjects by default', async () => {
    for (const sub of [undefined, '', ' ']) {
      const token = await mint({ ...role('read'), ...(sub !== undefined ? { sub } : {}) });
      const res = await h.call('GET', '/wallet/v1/submissions', { token });
      expect(res.status, JSON.stringify(sub)).toBe(401);
    }
    const verify = createVerifier({ jwtSecret: SECRET, algorithms: ['HS256'] });
    const one = await verify(
      await issueToken({ secret: SECRET, role: 'submit', party: 'p::1220', ttlSeconds: 60 }),
    );
    const two = await verify(
      await issueToken({ secret: SECRET, role: 'submit', party: 'p::1220', ttlSeconds: 60 }),
    );
    expect(one.subject).toMatch(/^tok-[0-9a-f]{16}$/);
    expect(one.subject).not.toBe(two.subject);
  });
});

describe('finding 7: COMMAND_ID_IN_USE', () => {
  it("does not name another party's submission, and names it to a caller who may see it", async () => {
    const alice = await h.party('alice');
    const bob = await h.party('bob');
    const commandId = `cmd-${Date.now()}-${Math.random()}`;
    const held = await h.call('POST', '/wallet/v1/submissions', {
      token: await h.token('submit', alice.id),
      body: prepared(alice.id, { commandId }).body,
    });
    expect(held.status).toBe(202);
    const id = held.json.id as string;
    // Bob picks alice's command id for his own transaction: before the fix the answer named her submission.
    const probe = await h.call('POST', '/wallet/v1/submissions', {
      token: await h.token('submit', bob.id),
      body: prepared(bob.id, { commandId }).body,
    });
    expect(probe.status).toBe(409);
    expect(probe.json.error?.code).toBe('COMMAND_ID_IN_USE');
    expect(probe.text).not.toContain(id);
    const unscoped = await h.call('POST', '/wallet/v1/submissions', {
      token: await h.token('submit'),
      body: prepared(bob.id, { commandId }).body,
    });
    expect(unscoped.status).toBe(409);
    expect(unscoped.json.error?.message).toContain(id);
  });

  it('does not name it either when the two requests race past the first check (the store decides)', async () => {
    const alice = await h.party('alice');
    const bob = await h.party('bob');
    const [aliceToken, bobToken] = [await h.token('submit', alice.id), await h.token('submit', bob.id)];
    for (let round = 0; round < 10; round++) {
      const commandId = `race-${round}-${Date.now()}-${Math.random()}`;
      const [a, b] = await Promise.all([
        h.call('POST', '/wallet/v1/submissions', {
          token: aliceToken,
          body: prepared(alice.id, { commandId }).body,
        }),
        h.call('POST', '/wallet/v1/submissions', {
          token: bobToken,
          body: prepared(bob.id, { commandId }).body,
        }),
      ]);
      // Exactly one holds the command id; the other is refused without the winner's id.
      expect([a.status, b.status].sort()).toEqual([202, 409]);
      const [won, lost] = a.status === 202 ? [a, b] : [b, a];
      expect(lost.json.error?.code).toBe('COMMAND_ID_IN_USE');
      expect(lost.text).not.toContain(String(won.json.id));
    }
    // The race was real: both were signed, and the store kept one (the other's audit entry says so).
    const unused = (await h.wallet.audit.signatures()).filter(
      (e) => e.commandId.startsWith('race-') && e.stored === 'false',
    );
    expect(unused.length).toBeGreaterThan(0);
  });
});

describe('finding 10: token rules', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const status = async (token: string) => (await h.call('GET', '/wallet/v1/submissions', { token })).status;

  it('refuses tokens that live longer than AUTH_MAX_TOKEN_TTL, lack exp, or are issued in the future', async () => {
    // Before the fix, a ten-year token and one "issued" next year were accepted.
    expect(await status(await mint({ ...role('admin'), sub: 'x' }, { exp: now() + 10 * 365 * 86_400 }))).toBe(
      401,
    );
    expect(
      await status(
        await mint(
          { ...role('admin'), sub: 'x' },
          { iat: now() + 365 * 86_400, exp: now() + 365 * 86_400 + 60 },
        ),
      ),
    ).toBe(401);
    expect(await status(await mint({ ...role('admin'), sub: 'x' }, { exp: null }))).toBe(401);
    // Within the bounds: a day-long token, and a clock a few seconds ahead.
    expect(await status(await mint({ ...role('read'), sub: 'x' }, { exp: now() + 86_400 }))).toBe(200);
    expect(await status(await mint({ ...role('read'), sub: 'x' }, { iat: now() + 10 }))).toBe(200);
    expect(h.config.auth.maxTokenTtlSeconds).toBe(86_400);
    const short = createVerifier({ jwtSecret: SECRET, algorithms: ['HS256'], maxTokenTtlSeconds: 60 });
    await expect(short(await mint({ ...role('read'), sub: 'x' }, { exp: now() + 120 }))).rejects.toThrow(
      /AUTH_MAX_TOKEN_TTL/,
    );
  });

  it("reads roles from one claim only: an identity provider's generic role claims make no Quill role", async () => {
    // Before the fix, each of these was an admin.
    for (const claims of [{ role: 'admin' }, { roles: ['admin'] }, { scope: 'admin' }]) {
      expect(await status(await mint({ ...claims, sub: 'idp-user' })), JSON.stringify(claims)).toBe(401);
    }
    expect(await status(await mint({ scope: 'openid quill:read profile', sub: 'idp-user' }))).toBe(200);
  });

  it('with AUTH_JWKS_URL, requires AUTH_AUDIENCE unless --insecure-any-audience', async () => {
    const jwksUrl = 'https://idp.invalid/jwks';
    expect(() => createVerifier({ jwksUrl, algorithms: ['RS256'] })).toThrow(AuthError);
    expect(() => createVerifier({ jwksUrl, algorithms: ['RS256'] })).toThrow(/AUTH_AUDIENCE/);
    expect(() => createVerifier({ jwksUrl, algorithms: ['RS256'], audience: 'quill' })).not.toThrow();
    expect(() => createVerifier({ jwksUrl, algorithms: ['RS256'], anyAudience: true })).not.toThrow();
    await expect(
      serve({
        env: { AUTH_JWKS_URL: jwksUrl, REDIS_URL: 'redis://127.0.0.1:1', LEDGER_URL: 'http://127.0.0.1:9' },
        role: 'api',
      }),
    ).rejects.toThrow(/AUTH_AUDIENCE \(or --insecure-any-audience\)/);
  });
});

describe('verified tokens answered from memory', () => {
  it('until exp (plus the clock tolerance) or 60 s, whichever is first; a changed byte is verified afresh', async () => {
    let clock = Date.now();
    const verify = createVerifier({ jwtSecret: SECRET, algorithms: ['HS256'] }, () => clock);
    const token = await issueToken({ secret: SECRET, role: 'read', ttlSeconds: 3600 });
    const first = await verify(token);
    expect(await verify(token)).toBe(first); // the same object: from memory
    clock += 61_000; // past the memory's 60 s: verified again (still valid)
    const again = await verify(token);
    expect(again).not.toBe(first);
    expect(again).toEqual(first);
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    await expect(verify(tampered)).rejects.toThrow(AuthError);

    // A token that expires in 5 s is not answered from memory after exp + 30 s, even within the 60 s: out of
    // memory it is verified again (jose's own clock is real time, so it still passes, as a new object).
    const short = await issueToken({ secret: SECRET, role: 'read', ttlSeconds: 5 });
    clock = Date.now();
    const remembered = await verify(short);
    clock = Date.now() + 20_000;
    expect(await verify(short)).toBe(remembered);
    clock = Date.now() + 36_000;
    expect(await verify(short)).not.toBe(remembered);
  });
});
