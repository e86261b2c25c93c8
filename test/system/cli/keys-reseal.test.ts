// `quill keys reseal` (issue 31 item 2): every key file from the current passphrase to a new one, all or nothing
// before the first write, harmless to run again, audited per key; bad input exits 2 with one line.
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { KeyStore, SigningError } from '../../../src/signing/index.ts';
import { auditOf } from '../../support/audit-chain.ts';
import { tempDir } from '../../support/keys.ts';
import { testRedis } from '../../support/records.ts';
import { runCli } from '../../support/run-cli.ts';

const OLD = 'old key-store passphrase';
const NEW = 'new key-store passphrase';

const redis = testRedis();
afterAll(() => redis.quit());

let n = 0;
/** A fresh KEYS_DIR, its own Redis prefix, and files holding passphrases. */
async function setup() {
  const root = await tempDir('quill-reseal-');
  const env: Record<string, string | undefined> = {
    KEYS_DIR: join(root, 'keys'),
    KEYSTORE_PASSPHRASE: OLD,
    KEYSTORE_PASSPHRASE_FILE: undefined,
    KEYSTORE_SCRYPT_N: '1024',
    REDIS_URL: inject('redisUrl'),
    REDIS_PREFIX: `t-reseal-${process.pid}-${n++}`,
  };
  const passFile = async (name: string, text: string) => {
    await writeFile(join(root, name), text, { mode: 0o600 });
    return join(root, name);
  };
  const generate = async (algorithm: string, passphrase = OLD) => {
    const r = await runCli(['keys', 'generate', '--algorithm', algorithm, '--json'], {
      ...env,
      KEYSTORE_PASSPHRASE: passphrase,
    });
    expect(r.code, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { fingerprint: string; status: string };
  };
  /** Every file of KEYS_DIR with its bytes (temp files included). */
  const snapshot = async () => {
    const dir = env.KEYS_DIR as string;
    const names = (await readdir(dir)).filter((f) => f !== 'parties').sort();
    return Object.fromEntries(
      await Promise.all(names.map(async (f) => [f, await readFile(join(dir, f), 'utf8')])),
    );
  };
  const store = (passphrase: string) => new KeyStore({ dir: env.KEYS_DIR as string, passphrase });
  const entries = async () =>
    (await auditOf({ redis, prefix: `${env.REDIS_PREFIX}:` }).entries()).map((e) =>
      Object.fromEntries(e.fields),
    );
  return { root, env, passFile, generate, snapshot, store, entries };
}

const oneLine = (s: string) => expect(s.trim().split('\n')).toHaveLength(1);
const message = new TextEncoder().encode('reseal me');

describe('quill keys reseal', () => {
  it('re-seals every key: they open and sign with the new passphrase and not with the old; audited per key', async () => {
    const t = await setup();
    const a = await t.generate('ed25519');
    const b = await t.generate('p256');
    const c = await t.generate('secp256k1');
    expect((await runCli(['keys', 'disable', c.fingerprint], t.env)).code).toBe(0);
    const before = await t.snapshot();
    const newFile = await t.passFile('new', `${NEW}\n`);

    const r = await runCli(['keys', 'reseal', '--new-passphrase-file', newFile], t.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    for (const k of [a, b, c]) expect(r.stdout).toContain(`resealed  ${k.fingerprint}`);
    expect(r.stdout).toContain('3 key files re-sealed with the new passphrase, 0 already were');
    expect(r.stdout + r.stderr).not.toContain(NEW);
    expect(r.stdout + r.stderr).not.toContain(OLD);

    // Same files (no temp file left behind), every one rewritten.
    const after = await t.snapshot();
    expect(Object.keys(after)).toEqual(Object.keys(before));
    for (const f of Object.keys(before)) expect(after[f]).not.toBe(before[f]);

    // The new passphrase opens and signs; the old one opens nothing.
    const fresh = t.store(NEW);
    for (const k of [a, b]) {
      const { signature } = await fresh.signBytes(k.fingerprint, message);
      expect(signature.length).toBeGreaterThan(0);
    }
    expect((await fresh.get(c.fingerprint)).status).toBe('disabled'); // metadata kept
    await expect(fresh.signBytes(c.fingerprint, message)).rejects.toMatchObject({ code: 'DISABLED' });
    const stale = t.store(OLD);
    for (const k of [a, b, c]) {
      const err = await stale.signBytes(k.fingerprint, message).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(SigningError);
      expect((err as SigningError).code).toBe('WRONG_PASSPHRASE');
    }
    const check = await runCli(['keys', 'check'], { ...t.env, KEYSTORE_PASSPHRASE: NEW });
    expect(check.code).toBe(0);
    expect(check.stdout.match(/^ok /gm)).toHaveLength(3);
    expect((await runCli(['keys', 'check'], t.env)).code).toBe(1);

    // One key.reseal entry per key, after the generate/disable entries; the chain verifies.
    const actor = `cli:${userInfo().username}`;
    const resealed = (await t.entries()).filter((e) => e.kind === 'key.reseal');
    expect(resealed).toHaveLength(3);
    expect(resealed.map((e) => e.keyFingerprint).sort()).toEqual([a, b, c].map((k) => k.fingerprint).sort());
    for (const e of resealed) expect(e).toMatchObject({ actor, backend: 'file' });
    expect(resealed.find((e) => e.keyFingerprint === b.fingerprint)?.algorithm).toBe('p256');
    expect((await runCli(['audit', 'verify'], t.env)).stdout).toContain('ok: 7 entries');
  });

  it('is harmless to run twice: again with the same files it changes nothing; with the new one as current it refuses', async () => {
    const t = await setup();
    await t.generate('ed25519');
    await t.generate('p384');
    const newFile = await t.passFile('new', NEW);
    expect((await runCli(['keys', 'reseal', '--new-passphrase-file', newFile], t.env)).code).toBe(0);
    const once = await t.snapshot();
    const entries = (await t.entries()).length;

    const again = await runCli(['keys', 'reseal', '--new-passphrase-file', newFile], t.env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('0 key files re-sealed with the new passphrase, 2 already were');
    expect(again.stdout.match(/^already {3}1220/gm)).toHaveLength(2);
    expect(await t.snapshot()).toEqual(once);

    const asCurrent = await runCli(['keys', 'reseal', '--new-passphrase-file', newFile], {
      ...t.env,
      KEYSTORE_PASSPHRASE: NEW,
    });
    expect(asCurrent.code).toBe(2);
    oneLine(asCurrent.stderr);
    expect(asCurrent.stderr).toContain('holds the current passphrase');
    expect(await t.snapshot()).toEqual(once);
    expect((await t.entries()).length).toBe(entries);
  });

  it('finishes an interrupted run: files already under the new passphrase are left, the rest re-sealed', async () => {
    const t = await setup();
    const done = await t.generate('ed25519', NEW); // as if a run before had re-sealed it, then stopped
    const left = await t.generate('p256', OLD);
    const before = await t.snapshot();
    const r = await runCli(['keys', 'reseal', '--new-passphrase-file', await t.passFile('new', NEW)], t.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain(`resealed  ${left.fingerprint}`);
    expect(r.stdout).toContain(`already   ${done.fingerprint}`);
    const after = await t.snapshot();
    expect(after[`${done.fingerprint}.json`]).toBe(before[`${done.fingerprint}.json`]);
    expect(after[`${left.fingerprint}.json`]).not.toBe(before[`${left.fingerprint}.json`]);
    const fresh = t.store(NEW);
    await fresh.signBytes(done.fingerprint, message);
    await fresh.signBytes(left.fingerprint, message);
    expect((await t.entries()).filter((e) => e.kind === 'key.reseal')).toHaveLength(1);
  });

  it('a wrong current passphrase, or one file that opens with neither, changes nothing (exit 1, naming the file)', async () => {
    const t = await setup();
    await t.generate('ed25519');
    await t.generate('p256');
    const newFile = await t.passFile('new', NEW);
    const before = await t.snapshot();
    const entries = (await t.entries()).length;

    const wrong = await runCli(['keys', 'reseal', '--new-passphrase-file', newFile], {
      ...t.env,
      KEYSTORE_PASSPHRASE: 'not the passphrase',
    });
    expect(wrong.code).toBe(1);
    oneLine(wrong.stderr);
    expect(wrong.stderr).toMatch(/keys\/1220[0-9a-f]{64}\.json: opens with neither the current passphrase/);
    expect(wrong.stdout).toBe('');
    expect(await t.snapshot()).toEqual(before);

    // One stranger among good files (sealed with a third passphrase): named, and no file is written.
    const stranger = await t.generate('secp256k1', 'a third passphrase');
    const withStranger = await t.snapshot();
    const r = await runCli(['keys', 'reseal', '--new-passphrase-file', newFile], t.env);
    expect(r.code).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toContain(`${stranger.fingerprint}.json: opens with neither`);
    expect(r.stderr).not.toContain('third');
    expect(await t.snapshot()).toEqual(withStranger);

    // A tampered file stops it too.
    await runCli(['keys', 'disable', stranger.fingerprint], {
      ...t.env,
      KEYSTORE_PASSPHRASE: 'a third passphrase',
    });
    await writeFile(join(t.env.KEYS_DIR as string, `${stranger.fingerprint}.json`), '{}\n');
    const tampered = await t.snapshot();
    const bad = await runCli(['keys', 'reseal', '--new-passphrase-file', newFile], t.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain(`${stranger.fingerprint}.json: tampered`);
    expect(await t.snapshot()).toEqual(tampered);
    expect((await t.entries()).filter((e) => e.kind === 'key.reseal')).toHaveLength(0);
    expect((await t.entries()).length).toBeGreaterThanOrEqual(entries);
  });

  it('changes nothing when Redis does not answer (exit 1, one line)', async () => {
    const t = await setup();
    await t.generate('ed25519');
    const before = await t.snapshot();
    const r = await runCli(['keys', 'reseal', '--new-passphrase-file', await t.passFile('new', NEW)], {
      ...t.env,
      REDIS_URL: 'redis://127.0.0.1:1',
    });
    expect(r.code).toBe(1);
    oneLine(r.stderr);
    expect(r.stderr).toContain(
      'cannot reach Redis (REDIS_URL) to write the audit entries, so nothing was re-sealed',
    );
    expect(await t.snapshot()).toEqual(before);
  });

  it('bad input exits 2 with one line and writes nothing', async () => {
    const t = await setup();
    await t.generate('ed25519');
    const before = await t.snapshot();
    const cases: [string[], Record<string, string | undefined>, RegExp][] = [
      [['keys', 'reseal'], t.env, /--new-passphrase-file/],
      [
        ['keys', 'reseal', '--new-passphrase-file', join(t.root, 'missing')],
        t.env,
        /cannot read .*missing \(ENOENT\)/,
      ],
      [['keys', 'reseal', '--new-passphrase-file', await t.passFile('empty', '\n')], t.env, /is empty/],
      [
        ['keys', 'reseal', '--new-passphrase-file', await t.passFile('same', `${OLD}\n`)],
        t.env,
        /current passphrase/,
      ],
      [
        ['keys', 'reseal', '--new-passphrase-file', await t.passFile('new', NEW)],
        { ...t.env, KEYSTORE_PASSPHRASE: undefined },
        /no key-store passphrase/,
      ],
    ];
    for (const [args, env, expected] of cases) {
      const r = await runCli(args, env);
      expect(r.code, args.join(' ')).toBe(2);
      oneLine(r.stderr);
      expect(r.stderr).toMatch(expected);
      expect(r.stderr).not.toContain(OLD);
      expect(r.stderr).not.toContain(NEW);
    }
    expect(await t.snapshot()).toEqual(before);
  });
});
