// Issue 26, wallet bug 3: the ledger user the wallet executes as. A participant refuses an empty `userId` when
// its auth is off (400 INVALID_TOKEN, Authorizer.defaultUserId) and a token acting as another user (403,
// Claims.validForUser), and the sandbox now does the same. `quill serve` (the composition root, src/server/serve.ts)
// takes LEDGER_USER_ID, else the user its ledger token names (GET /v2/authenticated-user), and refuses to start
// (exit 2, one line naming LEDGER_USER_ID) when no user can be known or the two disagree.
import { randomUUID } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import { type Sandbox, startSandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { exitFor } from '../../../src/cli/index.ts';
import { type Serving, serve } from '../../../src/server/serve.ts';
import { tempDir } from '../../support/tmp.ts';
import { noteCommand, prepareOn, SECRET } from '../../support/wallet.ts';

const LEDGER_SECRET = 'ledger-user-test-secret-0123456789abcdef';

function env(ledgerUrl: string, extra: Record<string, string> = {}) {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `ledger-user-${randomUUID().slice(0, 8)}`,
    AUTH_JWT_SECRET: SECRET,
    KEYSTORE_PASSPHRASE: 'ledger user passphrase',
    KEYSTORE_SCRYPT_N: '1024',
    KEYS_DIR: tempDir('quill-ledger-user-'),
    LEDGER_URL: ledgerUrl,
    RETRY_BASE_DELAY_MS: '20',
    RETRY_MAX_DELAY_MS: '200',
    ...extra,
  };
}

/** serve() refused to start: the CLI's exit code and its one line. */
async function refusal(start: Promise<Serving>) {
  const err = await start.then(
    async (s) => {
      await s.stop();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(err, 'quill serve started').toBeInstanceOf(Error);
  const { code } = exitFor(err);
  const message = (err as Error).message;
  expect(message).not.toContain('\n');
  return { code, message };
}

describe('auth off: LEDGER_USER_ID is required', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('without LEDGER_USER_ID and without a ledger token no user can be known: exit 2 naming LEDGER_USER_ID', async () => {
    const { code, message } = await refusal(serve({ env: env(sandbox.url), role: 'all' }));
    expect(code).toBe(2);
    expect(message).toMatch(/^refusing to start: no ledger user is known: set LEDGER_USER_ID/);
  });

  it('a token the participant ignores names no user either (authenticated-user is 400): exit 2', async () => {
    const { code, message } = await refusal(
      serve({ env: env(sandbox.url, { LEDGER_TOKEN: 'ignored-by-a-ledger-without-auth' }), role: 'all' }),
    );
    expect(code).toBe(2);
    expect(message).toContain('set LEDGER_USER_ID');
  });
});

describe('auth on: the user the ledger token names', () => {
  let sandbox: Sandbox;
  let token: string;
  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      scanPort: 0,
      host: '127.0.0.1',
      auth: { secret: LEDGER_SECRET },
    });
    token = await sandbox.mintToken('custody', { admin: true });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('without LEDGER_USER_ID the wallet executes as the token user: a submission commits with userId "custody"', async () => {
    const s = await serve({ env: env(sandbox.url, { LEDGER_TOKEN: token }), role: 'all' });
    try {
      expect(s.config.ledgerUserId).toBe('custody');
      const admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 600, subject: 'e2e' });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`${s.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        return { status: res.status, json: (await res.json()) as Record<string, unknown> };
      };
      const key = await call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
      expect(key.status).toBe(201);
      const onboarded = await call('POST', '/wallet/v1/parties', {
        keyFingerprint: key.json.fingerprint,
        partyHint: 'custody',
      });
      expect(onboarded.status, JSON.stringify(onboarded.json)).toBe(201);
      const party = onboarded.json.partyId as string;
      const ledger = new LedgerClient({ baseUrl: sandbox.url, token });
      const body = await prepareOn(ledger, party, noteCommand(party), undefined, { userId: 'custody' });
      const sent = await call('POST', '/wallet/v1/submissions?wait=20', body);
      expect(sent.json).toMatchObject({ status: 'committed', userId: 'custody', error: null });
    } finally {
      await s.stop();
    }
  });

  it('LEDGER_USER_ID naming another user than the token is refused: exit 2, both named', async () => {
    const { code, message } = await refusal(
      serve({ env: env(sandbox.url, { LEDGER_TOKEN: token, LEDGER_USER_ID: 'someone-else' }), role: 'all' }),
    );
    expect(code).toBe(2);
    expect(message).toContain('LEDGER_USER_ID is someone-else but the ledger token is for user custody');
  });
});
