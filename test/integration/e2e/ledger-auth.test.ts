// Issue 26, wallet bug 2: the ledger refusing the wallet's credentials. A participant answers 403 to a token
// executing as another user, even an admin's (Claims.validForUser), and 401 to a token it cannot verify, both
// with redacted bodies (code "NA"); the sandbox now does the same. The wallet (through `quill serve`'s composition
// root) refreshes a provider token once on 401, and otherwise stops the submission at once with
// LEDGER_PERMISSION_DENIED / LEDGER_UNAUTHENTICATED, shown in /readyz and /metrics, instead of retrying it until
// its attempts run out.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LedgerClient } from '@quill/canton/ledger';
import { type Sandbox, startSandbox } from '@quill/sandbox';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { type Serving, serve } from '../../../src/server/serve.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn, SECRET } from '../../support/wallet.ts';

const LEDGER_SECRET = 'ledger-auth-test-secret-0123456789abcdef';

let sandbox: Sandbox;
beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: { secret: LEDGER_SECRET } });
  await sandbox.mintToken('custody', { admin: true }); // creates the user, a participant admin
});
afterAll(async () => {
  await sandbox?.close();
});

function env(extra: Record<string, string>) {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `ledger-auth-${randomUUID().slice(0, 8)}`,
    AUTH_JWT_SECRET: SECRET,
    KEYSTORE_PASSPHRASE: 'ledger auth passphrase',
    KEYSTORE_SCRYPT_N: '1024',
    KEYS_DIR: tempDir('quill-ledger-auth-'),
    LEDGER_URL: sandbox.url,
    SUBMIT_MAX_ATTEMPTS: '4',
    RETRY_BASE_DELAY_MS: '20',
    RETRY_MAX_DELAY_MS: '200',
    ...extra,
  };
}

/** A wallet served from `env`, with an admin caller and a party it onboarded (its user may act as it). */
async function wallet(s: Serving, ledgerToken: string) {
  const admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 600, subject: 'e2e' });
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${s.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    let json: Record<string, unknown> = {};
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: res.status, json, text };
  };
  const key = await call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const onboarded = await call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: `p${randomUUID().slice(0, 6)}`,
  });
  expect(onboarded.status, onboarded.text).toBe(201);
  const party = onboarded.json.partyId as string;
  const ledger = new LedgerClient({ baseUrl: sandbox.url, token: ledgerToken });
  const prepare = () => prepareOn(ledger, party, noteCommand(party), undefined, { userId: 'custody' });
  return { call, party, prepare };
}

describe('403: a submission executed as another user than the ledger token’s', () => {
  it('is rejected at its first attempt with LEDGER_PERMISSION_DENIED, shown in /readyz and /metrics', async () => {
    const token = await sandbox.mintToken('custody', { admin: true });
    const s = await serve({ env: env({ LEDGER_TOKEN: token }), role: 'all' });
    try {
      const w = await wallet(s, token);
      // The request names a user of its own (the API's `userId`): the token is custody's, so every execution
      // is 403, admin or not.
      const sent = await w.call('POST', '/wallet/v1/submissions?wait=20', {
        ...(await w.prepare()),
        userId: 'someone-else',
      });
      expect(sent.json, sent.text).toMatchObject({
        status: 'rejected',
        error: { code: 'LEDGER_PERMISSION_DENIED' },
      });
      expect(sent.json.attempts).toHaveLength(1);
      const ready = await w.call('GET', '/readyz');
      expect(ready.json).toMatchObject({
        ledger: true,
        ledgerAuth: { ok: false, code: 'LEDGER_PERMISSION_DENIED' },
      });
      expect(String((ready.json.ledgerAuth as { message: string }).message)).toContain('LEDGER_USER_ID');
      const metrics = await fetch(`${s.url}/metrics`).then((r) => r.text());
      expect(metrics).toContain('quill_ledger_auth_refusals_total{code="LEDGER_PERMISSION_DENIED"} 1');
      expect(metrics).toContain('quill_ledger_auth_failing{code="LEDGER_PERMISSION_DENIED"} 1');
      // The wallet's own user executes: committed, and the refusal is over.
      const ok = await w.call('POST', '/wallet/v1/submissions?wait=20', await w.prepare());
      expect(ok.json, ok.text).toMatchObject({ status: 'committed', userId: 'custody' });
      expect((await w.call('GET', '/readyz')).json).toMatchObject({ ledgerAuth: { ok: true } });
    } finally {
      await s.stop();
    }
  }, 60_000);
});

describe('401: a provider token the ledger refuses', () => {
  let oauth: Server;
  let oauthUrl: string;
  let issued = 0;
  let mode: 'first-bad' | 'always-bad' = 'first-bad';
  beforeAll(async () => {
    const sign = (secret: string) =>
      new SignJWT({ scope: 'daml_ledger_api' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('custody')
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(secret));
    oauth = createServer((req, res) => {
      req.resume();
      req.on('end', async () => {
        issued++;
        // A token the ledger cannot verify (revoked: another key), the IdP saying it lives an hour.
        const bad = mode === 'always-bad' || issued === 1;
        const token = await sign(bad ? 'a-key-the-ledger-does-not-know-0123456789' : LEDGER_SECRET);
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ access_token: token, expires_in: 3600 }));
      });
    });
    await new Promise<void>((r) => oauth.listen(0, '127.0.0.1', r));
    oauthUrl = `http://127.0.0.1:${(oauth.address() as AddressInfo).port}/token`;
  });
  afterAll(async () => {
    await new Promise((r) => oauth.close(r));
  });

  const oauthEnv = () => ({
    LEDGER_OAUTH_TOKEN_URL: oauthUrl,
    LEDGER_OAUTH_CLIENT_ID: 'quill',
    LEDGER_OAUTH_CLIENT_SECRET: 'client-secret',
    LEDGER_USER_ID: 'custody',
  });

  it('is fetched again once, past the OAuth cache, and the submission commits', async () => {
    issued = 0;
    mode = 'first-bad';
    const s = await serve({ env: env(oauthEnv()), role: 'all' });
    try {
      const w = await wallet(s, await sandbox.mintToken('custody', { admin: true }));
      const sent = await w.call('POST', '/wallet/v1/submissions?wait=20', await w.prepare());
      expect(sent.json, sent.text).toMatchObject({ status: 'committed', userId: 'custody' });
      expect(issued).toBe(2);
      expect((await w.call('GET', '/readyz')).json).toMatchObject({ ledger: true, ledgerAuth: { ok: true } });
    } finally {
      await s.stop();
    }
  }, 60_000);

  it('refused again after the refresh: /readyz is not ready and says LEDGER_UNAUTHENTICATED', async () => {
    issued = 0;
    mode = 'always-bad';
    const s = await serve({ env: env(oauthEnv()), role: 'all' });
    try {
      const ready = await fetch(`${s.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toMatchObject({
        ledger: false,
        ledgerAuth: { ok: false, code: 'LEDGER_UNAUTHENTICATED' },
      });
      const metrics = await fetch(`${s.url}/metrics`).then((r) => r.text());
      expect(metrics).toContain('quill_ledger_auth_failing{code="LEDGER_UNAUTHENTICATED"} 1');
    } finally {
      await s.stop();
    }
  }, 60_000);
});
