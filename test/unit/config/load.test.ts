import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { QuillError } from '@quill/canton/errors';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { KEY_BACKEND_TYPES } from '../../../src/signing/backends.ts';
import { tempDir } from '../../support/tmp.ts';

function problems(env: Record<string, string>): string[] {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  return [];
}

describe('loadConfig', () => {
  it('has defaults for everything', () => {
    const c = loadConfig({});
    expect(c.port).toBe(8080);
    expect(c.redisUrl).toBe('redis://127.0.0.1:6379');
    expect(c.keysDir).toBe('keys');
    expect(c.sandbox).toEqual({ port: 7575, scanPort: 7576, adminPort: 0, hosts: [] });
    expect(c.ledgerHosts).toEqual([]);
    expect(c.ledgerAdmin).toBeUndefined();
    expect(c.ledgerUrl).toBeUndefined();
  });

  it('names each bad value in its own message and never echoes secrets', () => {
    const p = problems({
      PORT: 'eighty',
      REDIS_URL: 'http://x',
      LEDGER_URL: 'not a url',
      AUTH_JWT_SECRET: 'short-secret-value',
      WORKER_CONCURRENCY: '0',
    });
    expect(p).toHaveLength(5);
    expect(p.find((x) => x.startsWith('PORT:'))).toMatch(/port/);
    expect(p.find((x) => x.startsWith('REDIS_URL:'))).toMatch(/redis/);
    expect(p.find((x) => x.startsWith('LEDGER_URL:'))).toMatch(/URL/);
    expect(p.find((x) => x.startsWith('AUTH_JWT_SECRET:'))).toMatch(/32 characters/);
    expect(p.join(' ')).not.toContain('short-secret-value');
    expect(p.find((x) => x.startsWith('WORKER_CONCURRENCY:'))).toMatch(/at least 1/);
  });

  it('refuses conflicting settings', () => {
    const secret = 'x'.repeat(40);
    expect(problems({ AUTH_JWT_SECRET: secret, AUTH_JWKS_URL: 'https://idp/jwks' })[0]).toMatch(/choose one/);
    expect(problems({ KEYSTORE_PASSPHRASE: 'a', KEYSTORE_PASSPHRASE_FILE: '/x' })[0]).toMatch(/choose one/);
    expect(problems({ LEDGER_TOKEN: 't', LEDGER_TOKEN_FILE: '/t' })[0]).toMatch(/at most one/);
    expect(problems({ SANDBOX_PORT: '7000', SANDBOX_SCAN_PORT: '7000' })[0]).toMatch(/differ/);
  });

  it('reads AUTH_JWT_SECRET_FILE, and refuses it beside AUTH_JWT_SECRET, short or missing, without echoing it', () => {
    const dir = tempDir('quill-cfg-');
    const secret = 's'.repeat(40);
    writeFileSync(join(dir, 'secret'), `${secret}\n`);
    const c = loadConfig({ AUTH_JWT_SECRET_FILE: join(dir, 'secret') }, ['auth']);
    expect(c.auth.jwtSecret).toBe(secret);
    expect(c.auth.algorithms).toEqual(['HS256']);
    expect(problems({ AUTH_JWT_SECRET_FILE: join(dir, 'secret'), AUTH_JWT_SECRET: secret })[0]).toMatch(
      /choose one/,
    );
    writeFileSync(join(dir, 'short'), 'short-file-secret\n');
    const short = problems({ AUTH_JWT_SECRET_FILE: join(dir, 'short') });
    expect(short[0]).toMatch(/^AUTH_JWT_SECRET_FILE: .*32 characters/);
    expect(short.join(' ')).not.toContain('short-file-secret');
    expect(problems({ AUTH_JWT_SECRET_FILE: join(dir, 'missing') })[0]).toMatch(/cannot read .*ENOENT/);
  });

  it('reads the passphrase file and reports a missing one', () => {
    const dir = tempDir('quill-cfg-');
    writeFileSync(join(dir, 'pass'), 'hunter2-passphrase\n');
    const file = loadConfig({ KEYSTORE_PASSPHRASE_FILE: join(dir, 'pass') }).keyBackends.file;
    expect(file).toMatchObject({ passphrase: 'hunter2-passphrase', dir: 'keys' });
    expect(problems({ KEYSTORE_PASSPHRASE_FILE: join(dir, 'missing') })[0]).toMatch(/cannot read .*ENOENT/);
    writeFileSync(join(dir, 'empty'), '\n');
    expect(problems({ KEYSTORE_PASSPHRASE_FILE: join(dir, 'empty') })[0]).toMatch(/is empty/);
    const both = problems({ KEYSTORE_PASSPHRASE: 'abc-secret', KEYSTORE_PASSPHRASE_FILE: join(dir, 'pass') });
    expect(both).toEqual(['KEYSTORE_PASSPHRASE and KEYSTORE_PASSPHRASE_FILE are both set: choose one']);
    // Without a passphrase the file backend is simply not configured (opening keys then says what is missing).
    expect(loadConfig({}).keyBackends).toEqual({});
  });

  it('composes each key backend’s own settings; the default backend must be a configured one', () => {
    const pkcs11 = { PKCS11_MODULE: '/lib/p11.so', PKCS11_TOKEN_LABEL: 'quill', PKCS11_PIN: '1234' };
    expect(loadConfig(pkcs11).keyBackends).toEqual({
      pkcs11: { module: '/lib/p11.so', tokenLabel: 'quill', pin: '1234', sessions: 8, dir: 'keys' },
    });
    expect(problems({ KEYS_DEFAULT_BACKEND: 'vault' })).toEqual([
      `KEYS_DEFAULT_BACKEND: must be one of ${KEY_BACKEND_TYPES.map((t) => t.name).join(', ')}`,
    ]);
    expect(problems({ KEYS_DEFAULT_BACKEND: 'pkcs11' })).toEqual([
      'KEYS_DEFAULT_BACKEND=pkcs11 needs its settings: set PKCS11_MODULE, the token (PKCS11_TOKEN_LABEL or PKCS11_SLOT) and its PIN',
    ]);
    expect(problems({ PKCS11_PIN: '1234' })[0]).toMatch(/need PKCS11_MODULE/);
  });

  it('pins HS256 for a shared secret and asymmetric algorithms for JWKS', () => {
    expect(loadConfig({ AUTH_JWT_SECRET: 'y'.repeat(32) }).auth.algorithms).toEqual(['HS256']);
    expect(loadConfig({ AUTH_JWKS_URL: 'https://idp/jwks' }).auth.algorithms).toEqual(['RS256', 'ES256']);
    expect(problems({ AUTH_JWKS_URL: 'https://idp/jwks', AUTH_JWT_ALGORITHMS: 'HS256' })[0]).toMatch(
      /not one of/,
    );
  });

  it('reads the ledger token as exactly one of static, file or OAuth client credentials', () => {
    expect(loadConfig({}).ledgerToken).toBeUndefined();
    expect(loadConfig({ LEDGER_TOKEN: ' t ' }).ledgerToken).toEqual({ static: 't' });
    expect(loadConfig({ LEDGER_TOKEN_FILE: '/run/token' }).ledgerToken).toEqual({ file: '/run/token' });
    const oauth = {
      LEDGER_OAUTH_TOKEN_URL: 'https://idp/token',
      LEDGER_OAUTH_CLIENT_ID: 'quill',
      LEDGER_OAUTH_CLIENT_SECRET: 'client-secret-value',
    };
    expect(loadConfig({ ...oauth, LEDGER_OAUTH_SCOPE: 'ledger' }).ledgerToken).toEqual({
      oauth: {
        tokenUrl: 'https://idp/token',
        clientId: 'quill',
        clientSecret: 'client-secret-value',
        scope: 'ledger',
      },
    });
    const p = problems({ ...oauth, LEDGER_OAUTH_CLIENT_ID: '', LEDGER_TOKEN: 'static-token-value' });
    expect(p).toEqual([
      'LEDGER_TOKEN, LEDGER_TOKEN_FILE and LEDGER_OAUTH_TOKEN_URL: set at most one',
      'LEDGER_OAUTH_TOKEN_URL needs LEDGER_OAUTH_CLIENT_ID and LEDGER_OAUTH_CLIENT_SECRET',
    ]);
    expect(p.join(' ')).not.toMatch(/client-secret-value|static-token-value/);
  });

  it('loads only the sections asked for, and is a QuillError with code CONFIG', () => {
    const env = { PORT: 'eighty', KEYS_DIR: '/k', KEYSTORE_PASSPHRASE: 'p', KEYSTORE_SCRYPT_N: '1024' };
    expect(loadConfig(env, ['keys'])).toEqual({
      keysDir: '/k',
      keyBackends: { file: { dir: '/k', passphrase: 'p', scrypt: { N: 1024 } } },
    });
    expect(() => loadConfig(env)).toThrow(ConfigError);
    expect(problems({ KEYSTORE_SCRYPT_N: '1000' })).toEqual([
      'KEYSTORE_SCRYPT_N: must be a power of two between 2^10 and 2^20',
    ]);
    try {
      loadConfig({ QUILL_URL: 'ftp://wallet' }, ['client']);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(QuillError);
      expect((err as ConfigError).code).toBe('CONFIG');
      expect((err as ConfigError).message).toBe(
        'bad configuration: QUILL_URL: must be a URL (http or https)',
      );
    }
    expect(loadConfig({ QUILL_URL: 'http://w:1/' }, ['client'])).toEqual({ walletUrl: 'http://w:1' });
  });

  it('counts empty variables as unset and returns a fresh object each time', () => {
    const a = loadConfig({ PORT: '', LEDGER_URL: 'http://ledger/', AUTH_JWT_ALGORITHMS: '' });
    expect(a.port).toBe(8080);
    expect(a.ledgerUrl).toBe('http://ledger');
    expect(a.auth.algorithms).toEqual(['RS256', 'ES256']);
    expect(loadConfig({})).not.toBe(loadConfig({}));
  });
});
