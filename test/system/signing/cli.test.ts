// `quill keys …`: output, exit codes (0 ok, 1 failure, 2 bad input), one-line errors without secrets.
import { spawnSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { tempDir } from '../../support/keys.ts';
import { runCli } from '../../support/run-cli.ts';

let env: Record<string, string | undefined>;
beforeAll(async () => {
  env = {
    KEYS_DIR: join(await tempDir(), 'keys'),
    KEYSTORE_PASSPHRASE: 'cli passphrase',
    KEYSTORE_PASSPHRASE_FILE: undefined,
    KEYSTORE_SCRYPT_N: '1024',
    // Key changes are audited in the chain.
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `t-keys-${process.pid}`,
  };
});

const oneLine = (s: string) => expect(s.trim().split('\n')).toHaveLength(1);

describe('quill keys', () => {
  it('generate, list, show, disable, check', async () => {
    const gen = await runCli(
      ['keys', 'generate', '--algorithm', 'ed25519', '--label', 'ops key', '--json'],
      env,
    );
    expect(gen.code).toBe(0);
    const view = JSON.parse(gen.stdout);
    expect(view).toMatchObject({ algorithm: 'ed25519', label: 'ops key', status: 'active' });
    const gen2 = await runCli(['keys', 'generate', '--algorithm', 'secp256k1'], env);
    expect(gen2.code).toBe(0);
    expect(gen2.stdout).toMatch(/^fingerprint {2}1220[0-9a-f]{64}$/m);

    const list = await runCli(['keys', 'list', '--json'], env);
    expect(list.code).toBe(0);
    expect(JSON.parse(list.stdout)).toHaveLength(2);
    const text = await runCli(['keys', 'list'], env);
    expect(text.stdout).toContain(
      `${view.fingerprint}  ed25519    file    active    ${view.createdAt}  ops key`,
    );

    const show = await runCli(['keys', 'show', view.fingerprint, '--json'], env);
    expect(JSON.parse(show.stdout)).toEqual(view);
    expect((await runCli(['keys', 'disable', view.fingerprint], env)).code).toBe(0);
    expect(JSON.parse((await runCli(['keys', 'show', view.fingerprint, '--json'], env)).stdout).status).toBe(
      'disabled',
    );

    const check = await runCli(['keys', 'check'], env);
    expect(check.code).toBe(0);
    expect(check.stdout.match(/^ok /gm)).toHaveLength(2);
  });

  it('check exits 1 and names each failing file', async () => {
    const dir = join(await tempDir(), 'keys');
    const e = { ...env, KEYS_DIR: dir };
    const a = JSON.parse((await runCli(['keys', 'generate', '--algorithm', 'p384', '--json'], e)).stdout);
    await runCli(['keys', 'generate', '--algorithm', 'p256'], e);
    const path = join(dir, `${a.fingerprint}.json`);
    await writeFile(path, (await readFile(path, 'utf8')).replace('"label": null', '"label": "renamed"'));
    const r = await runCli(['keys', 'check'], e);
    expect(r.code).toBe(1);
    expect(r.stdout).toContain(`FAILED  ${path}: tampered`);
    expect(r.stdout.match(/^ok /gm)).toHaveLength(1);
    oneLine(r.stderr);
    const wrong = await runCli(['keys', 'check'], { ...e, KEYSTORE_PASSPHRASE: 'guess' });
    expect(wrong.code).toBe(1);
    expect(wrong.stdout).toContain('wrong passphrase');
    expect(wrong.stdout + wrong.stderr).not.toContain('guess');
    const list = await runCli(['keys', 'list'], e);
    expect(list.code).toBe(1);
    expect(list.stderr).toContain(path);
  });

  it('bad input exits 2 with one line on stderr', async () => {
    const cases: [string[], Record<string, string | undefined>][] = [
      [['keys', 'generate', '--algorithm', 'rsa'], env],
      [['keys', 'generate'], env],
      [['keys', 'generate', '--algorithm', 'p256', '--label', ''], env],
      [['keys', 'show', 'not-a-fingerprint'], env],
      [['keys', 'disable', '1220zz'], env],
      [['keys', 'list'], { ...env, KEYSTORE_PASSPHRASE: undefined }],
      [['keys', 'list'], { ...env, KEYSTORE_PASSPHRASE: '' }],
      [['keys', 'list'], { ...env, KEYSTORE_PASSPHRASE_FILE: '/nonexistent/pass' }],
      [['keys', 'generate', '--algorithm', 'p256'], { ...env, KEYSTORE_SCRYPT_N: '1000' }],
    ];
    for (const [args, e] of cases) {
      const r = await runCli(args, e);
      expect(r.code, args.join(' ')).toBe(2);
      oneLine(r.stderr);
      expect(r.stderr).not.toContain('    at ');
    }
    const missing = await runCli(['keys', 'show', `1220${'0'.repeat(64)}`], env);
    expect(missing.code).toBe(1);
  });

  it('reads only its own config section: an unrelated bad variable does not stop it', async () => {
    const unrelated = { ...env, PORT: 'eighty', REDIS_URL: 'http://not-redis', LEDGER_URL: 'nope' };
    expect((await runCli(['keys', 'list'], unrelated)).code).toBe(0);
    const bad = await runCli(['keys', 'list'], { ...env, KEYSTORE_SCRYPT_N: 'lots' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(
      'quill: bad configuration: KEYSTORE_SCRYPT_N: must be a power of two between 2^10 and 2^20\n',
    );
  });

  it('exits with the real process exit codes', () => {
    const r = spawnSync('node', ['bin/quill.js', 'keys', 'show', 'nope'], {
      encoding: 'utf8',
      env: { ...process.env, ...env } as NodeJS.ProcessEnv,
    });
    expect(r.status).toBe(2);
    expect(r.stderr.trim()).toBe('quill: not a key fingerprint (expected 1220 followed by 64 hex digits)');
  });
});
