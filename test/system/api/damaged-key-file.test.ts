// Issue 12 finding 8: one damaged file in KEYS_DIR must not take key administration down.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiHarness } from '../../support/api-harness.ts';
import { runCli } from '../../support/run-cli.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h.close());

describe('a damaged key file (issue 12, finding 8)', () => {
  it('lists the healthy keys, names the broken files, and answers 503 only for the broken key', async () => {
    const admin = await h.token('admin');
    const good = await h.keys.generate('ed25519', 'good');
    const junk = await h.keys.generate('p256', 'junk');
    const tampered = await h.keys.generate('ed25519', 'tampered');
    // The attack: junk JSON in one key's file, an edited byte in another, an unreadable one, a stray file.
    await writeFile(join(h.dir, `${junk.fingerprint}.json`), '{"not": "a key"');
    const tamperedPath = join(h.dir, `${tampered.fingerprint}.json`);
    const { readFile } = await import('node:fs/promises');
    await writeFile(tamperedPath, (await readFile(tamperedPath, 'utf8')).replace('"tampered"', '"renamed"'));
    const unreadable = `1220${'b'.repeat(64)}`;
    await mkdir(join(h.dir, `${unreadable}.json`));
    await writeFile(join(h.dir, 'notes.json'), 'junk');

    const list = await h.call('GET', '/wallet/v1/keys', { token: admin });
    expect(list.status).toBe(200);
    expect((list.json.items as { fingerprint: string }[]).map((k) => k.fingerprint)).toEqual([
      good.fingerprint,
    ]);
    expect(list.json.problems).toEqual(
      expect.arrayContaining([
        { file: `${junk.fingerprint}.json`, problem: 'tampered' },
        { file: `${tampered.fingerprint}.json`, problem: 'tampered' },
        { file: `${unreadable}.json`, problem: 'unreadable' },
        { file: 'notes.json', problem: 'tampered' },
      ]),
    );
    expect(list.json.problems).toHaveLength(4);
    expect(list.text).not.toContain(h.dir); // names, not the directory's path

    expect((await h.call('GET', `/wallet/v1/keys/${good.fingerprint}`, { token: admin })).status).toBe(200);
    for (const fp of [junk.fingerprint, tampered.fingerprint, unreadable]) {
      for (const [method, path] of [
        ['GET', `/wallet/v1/keys/${fp}`],
        ['POST', `/wallet/v1/keys/${fp}/disable`],
      ] as const) {
        const res = await h.call(method, path, { token: admin });
        expect(res.status, `${method} ${path}`).toBe(503);
        expect(res.json.error?.code).toBe('KEYSTORE_UNAVAILABLE');
      }
    }
    const made = await h.call('POST', '/wallet/v1/keys', { token: admin, body: { algorithm: 'p384' } });
    expect(made.status).toBe(201);

    const ready = await h.call('GET', '/readyz');
    expect(ready.status).toBe(200); // the other keys still sign
    // The unauthenticated probe counts the broken files without naming any key.
    expect(ready.json.keys).toEqual({ ok: false, broken: 4 });
    expect(ready.text).not.toContain(junk.fingerprint);
    expect(ready.text).not.toContain(tampered.fingerprint);

    // The CLI: healthy keys on stdout, each broken file on stderr, exit 1.
    const env = { KEYS_DIR: h.dir, KEYSTORE_PASSPHRASE: 'test passphrase', KEYSTORE_SCRYPT_N: '1024' };
    const cli = await runCli(['keys', 'list'], env);
    expect(cli.code).toBe(1);
    expect(cli.stdout).toContain(good.fingerprint);
    expect(cli.stdout).toContain(made.json.fingerprint as string);
    expect(cli.stderr).toContain(`FAILED  ${join(h.dir, `${junk.fingerprint}.json`)}: tampered`);
    expect(cli.stderr).toContain(`FAILED  ${join(h.dir, 'notes.json')}: tampered`);
    expect(cli.stderr).toContain('4 of 6 key files failed the check');
  });
});
