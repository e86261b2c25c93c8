// `quill keys` with a PKCS#11 token (SoftHSM2): generate in the token, list and check both backends, disable;
// PKCS11_* mistakes are exit 2 with one line that never shows the PIN.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import { tempDir } from '../../support/keys.ts';
import { runCli } from '../../support/run-cli.ts';
import { softhsmToken } from '../../support/softhsm.ts';

const token = softhsmToken('quill-cli');

describe('quill keys with PKCS11_*', () => {
  it('generate --backend pkcs11, list, show, check, disable; the file backend beside it', async () => {
    const env = {
      KEYS_DIR: join(await tempDir(), 'keys'),
      KEYSTORE_PASSPHRASE: 'cli passphrase',
      KEYSTORE_SCRYPT_N: '1024',
      PKCS11_MODULE: token.module,
      PKCS11_TOKEN_LABEL: token.tokenLabel,
      PKCS11_PIN: token.pin,
      // Key changes are audited in the chain.
      REDIS_URL: inject('redisUrl'),
      REDIS_PREFIX: `t-keys-${process.pid}`,
    };
    const hsm = await runCli(
      ['keys', 'generate', '--algorithm', 'p384', '--backend', 'pkcs11', '--json'],
      env,
    );
    expect(hsm.code).toBe(0);
    const view = JSON.parse(hsm.stdout);
    expect(view).toMatchObject({ algorithm: 'p384', backend: 'pkcs11' });
    const file = JSON.parse(
      (await runCli(['keys', 'generate', '--algorithm', 'ed25519', '--json'], env)).stdout,
    );
    expect(file.backend).toBe('file');

    const list = await runCli(['keys', 'list'], env);
    expect(list.code).toBe(0);
    expect(list.stdout).toMatch(new RegExp(`${view.fingerprint}  p384 +pkcs11  active`));
    expect(list.stdout).toMatch(new RegExp(`${file.fingerprint}  ed25519 +file +active`));
    expect((await runCli(['keys', 'show', view.fingerprint], env)).stdout).toContain('backend      pkcs11');

    const check = await runCli(['keys', 'check'], env);
    expect(check.code).toBe(0);
    expect(check.stdout).toContain(join('pkcs11', `${view.fingerprint}.json`));
    expect((await runCli(['keys', 'disable', view.fingerprint], env)).code).toBe(0);
    expect((await runCli(['keys', 'show', view.fingerprint, '--json'], env)).stdout).toContain('"disabled"');

    // Only the token: no passphrase needed, the file keys are simply not in reach.
    const tokenOnly = { ...env, KEYSTORE_PASSPHRASE: undefined };
    const onlyHsm = await runCli(['keys', 'list', '--json'], tokenOnly);
    expect(onlyHsm.code).toBe(0);
    expect(JSON.parse(onlyHsm.stdout).map((k: { backend: string }) => k.backend)).toEqual(['pkcs11']);
  });

  it('configuration mistakes are exit 2, one line, PIN never shown', async () => {
    const dir = await tempDir();
    const pinFile = join(dir, 'pin');
    await writeFile(pinFile, `${token.pin}\n`);
    const base = { KEYS_DIR: join(dir, 'keys'), KEYSTORE_PASSPHRASE: 'x' };
    const cases: [Record<string, string | undefined>, RegExp][] = [
      [
        { PKCS11_MODULE: token.module, PKCS11_PIN: 's3cret-pin' },
        /exactly one of PKCS11_TOKEN_LABEL and PKCS11_SLOT/,
      ],
      [{ PKCS11_MODULE: token.module, PKCS11_TOKEN_LABEL: 'x' }, /needs PKCS11_PIN or PKCS11_PIN_FILE/],
      [{ PKCS11_TOKEN_LABEL: 'x', PKCS11_PIN: 's3cret-pin' }, /need PKCS11_MODULE/],
      [
        {
          PKCS11_MODULE: token.module,
          PKCS11_TOKEN_LABEL: 'x',
          PKCS11_PIN: 's3cret-pin',
          PKCS11_PIN_FILE: pinFile,
        },
        /both set/,
      ],
      [
        { PKCS11_MODULE: '/nope/lib.so', PKCS11_TOKEN_LABEL: 'x', PKCS11_PIN: 's3cret-pin' },
        /does not exist/,
      ],
      [
        { KEYS_DEFAULT_BACKEND: 'pkcs11' },
        /KEYS_DEFAULT_BACKEND=pkcs11 needs its settings: set PKCS11_MODULE/,
      ],
    ];
    for (const [extra, message] of cases) {
      const r = await runCli(['keys', 'list'], { ...base, ...extra });
      expect(r.code, JSON.stringify(extra)).toBe(2);
      expect(r.stderr).toMatch(message);
      expect(r.stderr.trim().split('\n')).toHaveLength(1);
      expect(r.stderr).not.toContain('s3cret-pin');
    }
    // PKCS11_PIN_FILE works like PKCS11_PIN.
    const ok = await runCli(['keys', 'list'], {
      ...base,
      PKCS11_MODULE: token.module,
      PKCS11_TOKEN_LABEL: token.tokenLabel,
      PKCS11_PIN_FILE: pinFile,
    });
    expect(ok.code).toBe(0);
  });
});
