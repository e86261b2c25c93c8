// Bearer tokens as the participant reads them: HS256 shared secret, RS256/ES256 through a JWKS URL, the
// audience-based and scope-based claim shapes, rights from the user record; auth off ignores tokens.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox } from '../src/index.ts';
import { call, type Sandbox } from './helpers.ts';

const SECRET = 'auth-test-secret-0123456789';
let jwks: Server;
let jwksUrl: string;
const keys: Record<string, Awaited<ReturnType<typeof generateKeyPair>>> = {};

beforeAll(async () => {
  keys.ES256 = await generateKeyPair('ES256');
  keys.RS256 = await generateKeyPair('RS256');
  const published = await Promise.all(
    Object.entries(keys).map(async ([alg, k]) => ({
      ...(await exportJWK(k.publicKey)),
      kid: alg,
      alg,
      use: 'sig',
    })),
  );
  jwks = createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ keys: published }));
  });
  await new Promise<void>((resolve) => jwks.listen(0, '127.0.0.1', resolve));
  jwksUrl = `http://127.0.0.1:${(jwks.address() as AddressInfo).port}/jwks`;
});
afterAll(async () => {
  await new Promise((resolve) => jwks.close(resolve));
});

function claims(sb: Sandbox, form: 'audience' | 'scope', sub = 'participant_admin') {
  const jwt = new SignJWT(form === 'scope' ? { scope: 'daml_ledger_api openid' } : {})
    .setSubject(sub)
    .setIssuedAt()
    .setExpirationTime('10m');
  return form === 'audience'
    ? jwt.setAudience(`https://daml.com/jwt/aud/participant/${sb.state.participantId}`)
    : jwt;
}

describe('JWKS (RS256 / ES256)', () => {
  let sb: Sandbox;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, scanPort: 0, auth: { jwksUrl } });
  });
  afterAll(async () => {
    await sb?.close();
  });

  test.each([
    ['ES256', 'audience'],
    ['RS256', 'scope'],
  ] as const)('%s token in the %s-based form is accepted', async (alg, form) => {
    const token = await claims(sb, form).setProtectedHeader({ alg, kid: alg }).sign(keys[alg]!.privateKey);
    const r = await call(sb.url, 'GET', '/v2/authenticated-user', undefined, token);
    expect([r.status, r.json.user?.id]).toEqual([200, 'participant_admin']);
  });

  test('an HS256 token, a token without ledger claims, an unknown user', async () => {
    const hs = await claims(sb, 'scope')
      .setProtectedHeader({ alg: 'HS256' })
      .sign(new TextEncoder().encode(SECRET));
    expect((await call(sb.url, 'GET', '/v2/state/ledger-end', undefined, hs)).status).toBe(401);
    const bare = await new SignJWT({})
      .setSubject('participant_admin')
      .setProtectedHeader({ alg: 'ES256', kid: 'ES256' })
      .sign(keys.ES256!.privateKey);
    const r = await call(sb.url, 'GET', '/v2/state/ledger-end', undefined, bare);
    // Redacted (DecodedCantonError.redactedError): participant-auth.test.ts checks the whole body.
    expect([r.status, r.json.code, r.json.context]).toEqual([401, 'NA', {}]);
    const stranger = await claims(sb, 'audience', 'nobody')
      .setProtectedHeader({ alg: 'ES256', kid: 'ES256' })
      .sign(keys.ES256!.privateKey);
    expect((await call(sb.url, 'GET', '/v2/state/ledger-end', undefined, stranger)).status).toBe(403);
  });
});

describe('HS256 and auth off', () => {
  test('expired tokens are refused; rights come from the user record', async () => {
    const sb = await startSandbox({ port: 0, scanPort: 0, auth: { secret: SECRET } });
    try {
      const expired = await claims(sb, 'scope')
        .setExpirationTime(Math.floor(Date.now() / 1000) - 60)
        .setProtectedHeader({ alg: 'HS256' })
        .sign(new TextEncoder().encode(SECRET));
      expect((await call(sb.url, 'GET', '/v2/state/ledger-end', undefined, expired)).status).toBe(401);
      const plain = await sb.mintToken('plain-user');
      expect((await call(sb.url, 'GET', '/v2/state/ledger-end', undefined, plain)).status).toBe(200);
      const users = await call(sb.url, 'GET', '/v2/users', undefined, plain);
      expect([users.status, users.json.code]).toEqual([403, 'NA']);
      await call(
        sb.url,
        'POST',
        '/v2/users/plain-user/rights',
        { userId: 'plain-user', rights: [{ kind: { ParticipantAdmin: { value: {} } } }] },
        await sb.mintToken('participant_admin'),
      );
      expect((await call(sb.url, 'GET', '/v2/users', undefined, plain)).status).toBe(200);
    } finally {
      await sb.close();
    }
  });

  test('with auth off any bearer token is ignored and there is no authenticated user', async () => {
    const sb = await startSandbox({ port: 0, scanPort: 0, auth: 'none' });
    try {
      expect((await call(sb.url, 'GET', '/v2/users', undefined, 'garbage')).status).toBe(200);
      const me = await call(sb.url, 'GET', '/v2/authenticated-user', undefined, 'garbage');
      expect(me.status).toBe(400);
      expect(me.json.cause).toContain('The submitted request is missing a user-id');
    } finally {
      await sb.close();
    }
  });
});
