// The encrypted key store: file format, no plaintext secrets, tamper detection, disable, check.
import { createDecipheriv, createHash, createPrivateKey, createPublicKey, scryptSync } from 'node:crypto';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { inspect } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  KeyStore,
  SigningError,
  verifyingSigner,
} from '../../../src/signing/index.ts';
import { type DerivedKey, deriveKey, openKeyFile, type ScryptParams } from '../../../src/signing/keyfile.ts';
import { FAST_SCRYPT, PASSPHRASE, tempStore } from '../../support/keys.ts';

/** Decrypts a key file with node:crypto only, following the documented format (not our code). */
function decryptIndependently(text: string, passphrase: string): Buffer {
  const f = JSON.parse(text);
  const out = scryptSync(Buffer.from(passphrase, 'utf8'), Buffer.from(f.kdf.salt, 'base64'), 64, {
    N: f.kdf.N,
    r: f.kdf.r,
    p: f.kdf.p,
    maxmem: 64 * 1024 * 1024,
  });
  expect(createHash('sha256').update(out.subarray(32)).digest('base64')).toBe(f.kdf.check);
  const aad = JSON.stringify([
    f.format,
    f.fingerprint,
    f.algorithm,
    f.keySpec,
    f.publicKey,
    f.label,
    f.status,
    f.createdAt,
    f.kdf.name,
    f.kdf.N,
    f.kdf.r,
    f.kdf.p,
    f.kdf.salt,
    f.kdf.check,
    f.cipher.name,
    f.cipher.iv,
  ]);
  const d = createDecipheriv('aes-256-gcm', out.subarray(0, 32), Buffer.from(f.cipher.iv, 'base64'));
  d.setAAD(Buffer.from(aad));
  d.setAuthTag(Buffer.from(f.cipher.tag, 'base64'));
  return Buffer.concat([d.update(Buffer.from(f.cipher.ciphertext, 'base64')), d.final()]);
}

/** Every encoding of the secret a careless implementation might have written. */
function secretEncodings(secret: Buffer, spkiB64: string): Buffer[] {
  const pub = createPublicKey({ key: Buffer.from(spkiB64, 'base64'), format: 'der', type: 'spki' });
  const jwk = { ...pub.export({ format: 'jwk' }), d: secret.toString('base64url') };
  const priv = createPrivateKey({ key: jwk, format: 'jwk' });
  expect(createPublicKey(priv).export({ format: 'jwk' }).x).toBe(pub.export({ format: 'jwk' }).x); // it is the key
  const pkcs8 = priv.export({ type: 'pkcs8', format: 'der' });
  const pem = priv.export({ type: 'pkcs8', format: 'pem' }) as string;
  const texts = [
    secret.toString('hex'),
    secret.toString('hex').toUpperCase(),
    secret.toString('base64'),
    secret.toString('base64url'),
    pkcs8.toString('hex'),
    pkcs8.toString('base64'),
    pkcs8.toString('base64url'),
    pem.split('\n')[1]!,
    JSON.stringify(priv.export({ format: 'jwk' }).d),
  ];
  return [secret, pkcs8, ...texts.map((t) => Buffer.from(t))];
}

describe('key files', () => {
  it.each(KEY_ALGORITHMS)(
    '%s: 0600 file in a 0700 dir, named by fingerprint, no plaintext secret',
    async (alg) => {
      const store = await tempStore();
      const view = await store.generate(alg, 'cold wallet');
      const path = join(store.dir, `${view.fingerprint}.json`);
      expect((await stat(path)).mode & 0o777).toBe(0o600);
      expect((await stat(store.dir)).mode & 0o777).toBe(0o700);
      const text = await readFile(path, 'utf8');
      const file = Buffer.from(text);
      const secret = decryptIndependently(text, PASSPHRASE);
      expect(secret.length).toBe(alg === 'p384' ? 48 : 32);
      for (const encoding of secretEncodings(secret, view.publicKey))
        expect(file.includes(encoding)).toBe(false);
      expect(text).not.toContain('"d"');
      const parsed = JSON.parse(text);
      // The file holds the public metadata; `backend` is what the store says of it, not a sealed field.
      const { backend, ...sealed } = view;
      expect(backend).toBe('file');
      expect(parsed).not.toHaveProperty('backend');
      expect(parsed).toMatchObject({
        ...sealed,
        kdf: { name: 'scrypt', ...FAST_SCRYPT },
        cipher: { name: 'aes-256-gcm' },
      });
    },
  );

  it('the production default is scrypt N=2^17', async () => {
    const store = new KeyStore({ dir: join((await tempStore()).dir), passphrase: PASSPHRASE });
    const view = await store.generate('ed25519');
    const f = JSON.parse(await readFile(join(store.dir, `${view.fingerprint}.json`), 'utf8'));
    expect(f.kdf).toMatchObject({ N: 2 ** 17, r: 8, p: 1 });
    expect(view.label).toBeNull();
  });
});

describe('tamper detection', () => {
  const cache = new Map<string, Promise<DerivedKey>>();
  const derive = (salt: Uint8Array, params: ScryptParams) => {
    const id = `${Buffer.from(salt).toString('hex')}/${params.N}/${params.r}/${params.p}`;
    if (!cache.has(id)) cache.set(id, deriveKey(PASSPHRASE, salt, params));
    return cache.get(id)!;
  };

  async function expectDetected(bytes: Uint8Array, fp: string) {
    const err = await openKeyFile(bytes, `keys/${fp}.json`, fp, derive).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(SigningError);
    expect(['TAMPERED', 'WRONG_PASSPHRASE']).toContain((err as SigningError).code);
    expect((err as SigningError).message).toContain(`keys/${fp}.json`);
  }

  it('every single-bit flip of an Ed25519 key file is detected (exhaustive)', async () => {
    const store = await tempStore();
    const view = await store.generate('ed25519', 'flip me');
    const bytes = await readFile(join(store.dir, `${view.fingerprint}.json`));
    await expect(openKeyFile(bytes, 'x', view.fingerprint, derive)).resolves.toBeDefined();
    for (let bit = 0; bit < bytes.length * 8; bit++) {
      const flipped = Buffer.from(bytes);
      flipped[bit >> 3] = flipped[bit >> 3]! ^ (1 << (bit & 7));
      await expectDetected(flipped, view.fingerprint);
    }
  }, 120_000);

  it.each(KEY_ALGORITHMS)(
    '%s: random bit flips are detected through the store, even after caching',
    async (alg) => {
      const store = await tempStore();
      const view = await store.generate(alg, 'x');
      const path = join(store.dir, `${view.fingerprint}.json`);
      const original = await readFile(path);
      await fc.assert(
        fc.asyncProperty(fc.nat({ max: original.length * 8 - 1 }), async (bit) => {
          await writeFile(path, original);
          await store.get(view.fingerprint); // cached now
          const flipped = Buffer.from(original);
          flipped[bit >> 3] = flipped[bit >> 3]! ^ (1 << (bit & 7));
          await writeFile(path, flipped);
          const err = await store.get(view.fingerprint).then(
            () => undefined,
            (e: unknown) => e,
          );
          expect(err).toBeInstanceOf(SigningError);
          expect((err as Error).message).toContain(path);
        }),
        { numRuns: 60 },
      );
    },
  );

  it('re-activating a disabled key by editing the file is detected', async () => {
    const store = await tempStore();
    const view = await store.generate('p256', 'x');
    await store.disable(view.fingerprint);
    const path = join(store.dir, `${view.fingerprint}.json`);
    const text = await readFile(path, 'utf8');
    await writeFile(path, text.replace('"status": "disabled"', '"status": "active"'));
    await expect(verifyingSigner(store).sign(view.fingerprint, new Uint8Array(32))).rejects.toMatchObject({
      code: 'TAMPERED',
    });
  });

  it('a key file copied under another key name is detected', async () => {
    const store = await tempStore();
    const a = await store.generate('ed25519');
    const b = await store.generate('ed25519');
    await writeFile(
      join(store.dir, `${b.fingerprint}.json`),
      await readFile(join(store.dir, `${a.fingerprint}.json`)),
    );
    await expect(store.get(b.fingerprint)).rejects.toMatchObject({ code: 'TAMPERED' });
  });
});

describe('passphrase', () => {
  it('a wrong passphrase is a clear error naming the file, without the passphrase', async () => {
    const store = await tempStore();
    const view = await store.generate('secp256k1');
    const other = new KeyStore({ dir: store.dir, passphrase: 'not the passphrase' });
    const err = await other.get(view.fingerprint).then(
      () => undefined,
      (e: unknown) => e as SigningError,
    );
    expect(err?.code).toBe('WRONG_PASSPHRASE');
    expect(err?.message).toContain(join(store.dir, `${view.fingerprint}.json`));
    expect(err?.message).not.toContain('not the passphrase');
    expect(err?.file).toBe(join(store.dir, `${view.fingerprint}.json`));
  });

  it('an empty passphrase or a weak scrypt setting is refused', () => {
    expect(() => new KeyStore({ dir: 'x', passphrase: '' })).toThrow(SigningError);
    expect(() => new KeyStore({ dir: 'x', passphrase: 'p', scrypt: { N: 1000 } })).toThrow(/power of two/);
  });

  it('nothing secret shows when the store or an unlocked key is printed', async () => {
    const store = await tempStore();
    const view = await store.generate('ed25519');
    const { key } = await store.signingKey(view.fingerprint);
    for (const text of [
      JSON.stringify(store),
      JSON.stringify(key),
      inspect(store),
      inspect(key, { showHidden: true }),
    ]) {
      expect(text).not.toContain(PASSPHRASE);
      expect(text).not.toMatch(/[0-9a-f]{64}|[A-Za-z0-9+/]{43}=/);
    }
  });
});

describe('disable, list, get, check', () => {
  it('a disabled key never signs, also when disabled by another process', async () => {
    const store = await tempStore();
    const signer = verifyingSigner(store);
    const view = await store.generate('ed25519', 'hot');
    await signer.sign(view.fingerprint, new Uint8Array(32)); // unlocked and cached
    const cli = new KeyStore({ dir: store.dir, passphrase: PASSPHRASE });
    const disabled = await cli.disable(view.fingerprint);
    expect(disabled).toEqual({ ...view, status: 'disabled' });
    await expect(signer.sign(view.fingerprint, new Uint8Array(32))).rejects.toMatchObject({
      code: 'DISABLED',
    });
    expect(await store.get(view.fingerprint)).toEqual(disabled);
    expect(await cli.disable(view.fingerprint)).toEqual(disabled); // idempotent
  });

  it('lists keys in creation order and refuses bad input', async () => {
    const store = await tempStore();
    expect(await store.list()).toEqual([]);
    const a = await store.generate('p384', 'a');
    const b = await store.generate('ed25519');
    expect((await store.list()).map((v) => v.fingerprint)).toEqual([a.fingerprint, b.fingerprint]);
    expect(await store.get(` ${a.fingerprint.toUpperCase()} `)).toEqual(a);
    await expect(store.get('1220abc')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(store.get(`1220${'1'.repeat(64)}`)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.generate('rsa' as KeyAlgorithm)).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(store.generate('ed25519', '')).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(store.generate('ed25519', 'a\nb')).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('check names each failing file and why', async () => {
    const store = await tempStore();
    const good = await store.generate('ed25519');
    const bad = await store.generate('p256');
    const badPath = join(store.dir, `${bad.fingerprint}.json`);
    await writeFile(badPath, (await readFile(badPath, 'utf8')).replace('"label": null', '"label": "x"'));
    const unreadable = `1220${'a'.repeat(64)}`;
    await mkdir(join(store.dir, `${unreadable}.json`));
    await writeFile(join(store.dir, 'notes.json'), '{}');
    const results = await store.check();
    const byFile = Object.fromEntries(results.map((r) => [r.location, r]));
    expect(byFile[join(store.dir, `${good.fingerprint}.json`)]).toMatchObject({ ok: true });
    expect(byFile[badPath]).toMatchObject({ ok: false, problem: 'tampered' });
    expect(byFile[join(store.dir, `${unreadable}.json`)]).toMatchObject({ ok: false, problem: 'unreadable' });
    expect(byFile[join(store.dir, 'notes.json')]).toMatchObject({ ok: false, problem: 'tampered' });
    const wrong = await new KeyStore({ dir: store.dir, passphrase: 'nope' }).check();
    expect(wrong.find((r) => r.fingerprint === good.fingerprint)).toMatchObject({
      problem: 'wrong-passphrase',
    });
    await expect(store.list()).rejects.toBeInstanceOf(SigningError);
  });

  it('signs concurrently from a cold cache', async () => {
    const store = await tempStore();
    const views = await Promise.all(KEY_ALGORITHMS.map((a) => store.generate(a)));
    const fresh = verifyingSigner(new KeyStore({ dir: store.dir, passphrase: PASSPHRASE }));
    const sigs = await Promise.all(
      views.flatMap((v) => [1, 2, 3].map(() => fresh.sign(v.fingerprint, new Uint8Array(32)))),
    );
    expect(sigs).toHaveLength(12);
  });
});
