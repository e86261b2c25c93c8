// `quill parties onboard|list` against a real HTTP participant (test/parties/fake-participant.ts), and
// against the sandbox with auth on, with the ledger token from LEDGER_TOKEN_FILE or OAuth client credentials.
import { writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { type Sandbox, startSandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { type FakeParticipant, SYNCHRONIZER, startFakeParticipant } from '../../support/fake-participant.ts';
import { tempDir } from '../../support/keys.ts';
import { runCli } from '../../support/run-cli.ts';

let participant: FakeParticipant;
let env: Record<string, string | undefined>;

beforeAll(async () => {
  participant = await startFakeParticipant();
  env = {
    KEYS_DIR: join(await tempDir(), 'keys'),
    KEYSTORE_PASSPHRASE: 'parties cli',
    KEYSTORE_PASSPHRASE_FILE: undefined,
    KEYSTORE_SCRYPT_N: '1024',
    LEDGER_URL: participant.url,
    LEDGER_TOKEN: undefined,
    // Key changes are audited in the chain.
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `t-keys-${process.pid}`,
  };
});
afterAll(() => participant.close());

describe('quill parties', () => {
  it('onboards with a key and lists the party', async () => {
    const key = JSON.parse((await runCli(['keys', 'generate', '--algorithm', 'p256', '--json'], env)).stdout);
    const r = await runCli(
      ['parties', 'onboard', '--key', key.fingerprint, '--hint', 'treasury', '--json'],
      env,
    );
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const party = {
      partyId: `treasury::${key.fingerprint}`,
      keyFingerprint: key.fingerprint,
      synchronizerId: SYNCHRONIZER,
    };
    expect(JSON.parse(r.stdout)).toEqual(party);
    expect(participant.allocated.get(party.partyId)).toBe(SYNCHRONIZER);
    const list = await runCli(['parties', 'list', '--json'], env);
    expect(JSON.parse(list.stdout)).toEqual([expect.objectContaining(party)]);
    const text = await runCli(['parties', 'list'], env);
    expect(text.stdout).toContain(`${party.partyId}  ${key.fingerprint}  ${SYNCHRONIZER}`);
  });

  it('bad input exits 2 with one line; a refusal exits 1', async () => {
    const key = JSON.parse(
      (await runCli(['keys', 'generate', '--algorithm', 'ed25519', '--json'], env)).stdout,
    );
    const bad: [string[], Record<string, string | undefined>][] = [
      [['parties', 'onboard', '--key', key.fingerprint], env],
      [['parties', 'onboard', '--key', key.fingerprint, '--hint', 'a::b'], env],
      [['parties', 'onboard', '--key', 'nope', '--hint', 'a'], env],
      [['parties', 'onboard', '--key', key.fingerprint, '--hint', 'a'], { ...env, LEDGER_URL: undefined }],
      [['parties', 'onboard', '--key', key.fingerprint, '--hint', 'a', '--ledger-url', 'ftp://x'], env],
    ];
    for (const [args, e] of bad) {
      const r = await runCli(args, e);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
    }
    const down = await runCli(
      ['parties', 'onboard', '--key', key.fingerprint, '--hint', 'z', '--ledger-url', 'http://127.0.0.1:1'],
      env,
    );
    expect(down.code).toBe(1);
    expect(down.stderr.trim().split('\n')).toHaveLength(1);
    participant.tamper = 'multiHash';
    const refused = await runCli(['parties', 'onboard', '--key', key.fingerprint, '--hint', 'x'], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('multi-hash');
    await runCli(['keys', 'disable', key.fingerprint], env);
    const disabled = await runCli(['parties', 'onboard', '--key', key.fingerprint, '--hint', 'y'], env);
    expect(disabled.code).toBe(1);
    expect(disabled.stderr).toContain('disabled');
  });
});

describe('quill parties onboard with ledger auth (the same token settings as serve)', () => {
  let sandbox: Sandbox;
  let base: Record<string, string | undefined>;
  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      scanPort: 0,
      host: '127.0.0.1',
      auth: { secret: 'parties-cli-secret-0123456789-abcdefghij' },
    });
    base = { ...env, LEDGER_URL: sandbox.url, LEDGER_USER_ID: 'ops' };
  });
  afterAll(() => sandbox?.close());

  const generate = async () =>
    JSON.parse((await runCli(['keys', 'generate', '--algorithm', 'ed25519', '--json'], base)).stdout)
      .fingerprint as string;

  it('uses the token in LEDGER_TOKEN_FILE (and fails without one)', async () => {
    const key = await generate();
    const anonymous = await runCli(['parties', 'onboard', '--key', key, '--hint', 'filed'], base);
    expect(anonymous.code).toBe(1);
    expect(anonymous.stderr).toMatch(/^quill: ledger: /);

    const file = join(await tempDir(), 'ledger-token');
    const token = await sandbox.mintToken('ops', { admin: true });
    await writeFile(file, `${token}\n`);
    const r = await runCli(['parties', 'onboard', '--key', key, '--hint', 'filed', '--json'], {
      ...base,
      LEDGER_TOKEN_FILE: file,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout).partyId).toBe(`filed::${key}`);

    const missing = await runCli(['parties', 'onboard', '--key', key, '--hint', 'gone'], {
      ...base,
      LEDGER_TOKEN_FILE: join(file, 'nope'),
    });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot read the ledger token file');
  });

  it('uses OAuth client credentials (LEDGER_OAUTH_*), never printing the client secret', async () => {
    const token = await sandbox.mintToken('ops', { admin: true });
    const seen: URLSearchParams[] = [];
    const idp = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        seen.push(form);
        const ok =
          form.get('grant_type') === 'client_credentials' && form.get('client_secret') === 'right-secret';
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify(ok ? { access_token: token, expires_in: 600 } : { error: 'invalid_client' }));
      });
    });
    await new Promise<void>((r) => idp.listen(0, '127.0.0.1', r));
    try {
      const oauth = {
        ...base,
        LEDGER_OAUTH_TOKEN_URL: `http://127.0.0.1:${(idp.address() as AddressInfo).port}/token`,
        LEDGER_OAUTH_CLIENT_ID: 'quill-cli',
        LEDGER_OAUTH_AUDIENCE: 'https://ledger',
      };
      const key = await generate();
      const r = await runCli(['parties', 'onboard', '--key', key, '--hint', 'oauth', '--json'], {
        ...oauth,
        LEDGER_OAUTH_CLIENT_SECRET: 'right-secret',
      });
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).partyId).toBe(`oauth::${key}`);
      expect(seen[0]?.get('client_id')).toBe('quill-cli');
      expect(seen[0]?.get('audience')).toBe('https://ledger');

      const refused = await runCli(['parties', 'onboard', '--key', key, '--hint', 'oauth2'], {
        ...oauth,
        LEDGER_OAUTH_CLIENT_SECRET: 'wrong-secret',
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/token endpoint .* answered 401/);
      expect(refused.stderr).not.toContain('wrong-secret');
      const incomplete = await runCli(['parties', 'onboard', '--key', key, '--hint', 'x'], oauth);
      expect(incomplete.code).toBe(2);
      expect(incomplete.stderr).toContain('LEDGER_OAUTH_TOKEN_URL needs LEDGER_OAUTH_CLIENT_ID');
    } finally {
      idp.close();
    }
  });
});
