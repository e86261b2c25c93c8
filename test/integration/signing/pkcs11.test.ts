// The PKCS#11 backend against a real SoftHSM2 token: what stays in the token, one clear error for each way a
// token can be wrong (PIN, missing token, missing mechanism, bad module), and a running signer that survives the
// token being deleted and created again.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { openPkcs11Backend, type Pkcs11Options, verifyingSigner } from '../../../src/signing/index.ts';
import { CK } from '../../../src/signing/pkcs11/token.ts';
import { softhsmToken } from '../../support/softhsm.ts';
import { tempDir } from '../../support/tmp.ts';

const token = softhsmToken('quill-p11');
const options = (over: Partial<Pkcs11Options> = {}): Pkcs11Options => ({
  module: token.module,
  tokenLabel: token.tokenLabel,
  pin: token.pin,
  sessions: 4,
  dir: tempDir('quill-p11-keys-'),
  ...over,
});
const opened: { close(): Promise<void> }[] = [];
const open = (over: Partial<Pkcs11Options> = {}) => {
  const b = openPkcs11Backend(options(over));
  opened.push(b);
  return b;
};
afterAll(async () => {
  for (const b of opened) await b.close();
});

describe('keys in the token', () => {
  it('private keys are token objects, sensitive and never extractable, labelled by fingerprint', async () => {
    const backend = open();
    const views = [await backend.generate('ed25519'), await backend.generate('p256')];
    const listing = execFileSync(
      'pkcs11-tool',
      [
        '--module',
        token.module,
        '--token-label',
        token.tokenLabel,
        '--login',
        '--pin',
        token.pin,
        '--list-objects',
      ],
      { env: { ...process.env, SOFTHSM2_CONF: token.conf }, encoding: 'utf8' },
    );
    const privateObjects = listing.split(/\n(?=\S)/).filter((o) => o.startsWith('Private Key Object'));
    for (const v of views) {
      const object = privateObjects.find((o) => o.includes(`quill:${v.fingerprint}`));
      expect(object, `private key of ${v.fingerprint}`).toBeDefined();
      const access = /Access:\s+(.*)/.exec(object ?? '')?.[1]?.split(', ') ?? [];
      expect(access).toEqual(
        expect.arrayContaining(['sensitive', 'always sensitive', 'never extractable', 'local']),
      );
      expect(access).not.toContain('extractable');
      expect(/Usage:\s+(.*)/.exec(object ?? '')?.[1]).toBe('sign');
      expect(object).toContain(v.fingerprint); // CKA_ID
    }
  });
});

/** A key pair made by the token's own tools (pkcs11-tool), as an operator would before handing it to Quill. */
function toolKey(type: string, label: string, id: string, extra: string[] = []): void {
  execFileSync(
    'pkcs11-tool',
    [
      ...['--module', token.module, '--token-label', token.tokenLabel, '--login', '--pin', token.pin],
      ...['--keypairgen', '--key-type', type, '--label', label, '--id', id, '--usage-sign', ...extra],
    ],
    { env: { ...process.env, SOFTHSM2_CONF: token.conf }, stdio: 'ignore' },
  );
}

describe('keys made outside Quill (adopt)', () => {
  it('takes over a P-256 and an Ed25519 key by label or id; they sign, disable, and stay where they are', async () => {
    toolKey('EC:prime256v1', 'treasury', '0a0b');
    toolKey('EC:edwards25519', 'cold', '0c0d');
    const dir = tempDir('quill-p11-adopt-');
    const backend = open({ dir });
    const p256 = await backend.adopt('label:treasury', 'treasury key');
    expect(p256).toMatchObject({
      algorithm: 'p256',
      backend: 'pkcs11',
      status: 'active',
      label: 'treasury key',
    });
    const ed = await backend.adopt('id:0C0D');
    expect(ed.algorithm).toBe('ed25519');
    // Adopting again answers the same key; another process over the same KEYS_DIR finds it by its own CKA_ID.
    expect((await backend.adopt('id:0a0b')).fingerprint).toBe(p256.fingerprint);
    const later = verifyingSigner(open({ dir }));
    expect((await later.sign(ed.fingerprint, randomBytes(32))).signedBy).toBe(ed.fingerprint);
    const signer = verifyingSigner(backend);
    for (const view of [p256, ed]) {
      const signature = await signer.sign(view.fingerprint, randomBytes(32));
      expect(signature.signedBy).toBe(view.fingerprint);
    }
    expect((await backend.check()).every((r) => r.ok)).toBe(true);
    await backend.disable(p256.fingerprint);
    await expect(signer.sign(p256.fingerprint, randomBytes(32))).rejects.toMatchObject({ code: 'DISABLED' });
    expect(await backend.get(ed.fingerprint)).toMatchObject({ status: 'active' });
  });

  it('refuses what it cannot hold safely or find, with one clear error each', async () => {
    toolKey('EC:prime256v1', 'leaky', '0e0f', ['--extractable']);
    toolKey('EC:prime256v1', 'twin', '1011');
    toolKey('EC:prime256v1', 'twin', '1213');
    const backend = open();
    await expect(backend.adopt('label:leaky')).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/can leave the token/),
    });
    await expect(backend.adopt('label:nobody')).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(backend.adopt('label:twin')).rejects.toMatchObject({
      code: 'BAD_INPUT',
      message: expect.stringMatching(/more than one/),
    });
    for (const ref of ['treasury', 'id:xyz', 'label:', ''])
      await expect(backend.adopt(ref), ref).rejects.toMatchObject({ code: 'BAD_INPUT' });
    expect(await backend.list()).toEqual([]);
  });
});

describe('concurrency', () => {
  it('2,000 signatures, 64 at a time over 8 sessions, all valid (the library locks for itself)', async () => {
    const backend = open({ sessions: 8 });
    const signer = verifyingSigner(backend);
    const keys = [await backend.generate('ed25519'), await backend.generate('secp256k1')];
    for (let round = 0; round < 2000 / 64; round++) {
      await Promise.all(
        Array.from({ length: 64 }, (_, i) =>
          signer.sign((keys[i % 2] as { fingerprint: string }).fingerprint, randomBytes(32)),
        ),
      );
    }
  }, 60_000);
});

describe('one clear error, never a crash', () => {
  it('a wrong PIN is WRONG_PIN, never retried, and never named', async () => {
    // A token of its own: a PKCS#11 login is per process and token, and the main test token is logged in.
    const locked = softhsmToken('quill-p11-pin');
    const backend = open({ tokenLabel: locked.tokenLabel, pin: '999999' });
    const first = await backend.generate('p256').catch((e) => e);
    expect(first).toMatchObject({ name: 'SigningError', code: 'WRONG_PIN' });
    expect(first.message).not.toContain('999999');
    // The token is not asked again (tokens lock after a few wrong tries): the same refusal, at once.
    const t0 = performance.now();
    await expect(backend.check()).resolves.toEqual([]);
    await expect(backend.generate('ed25519')).rejects.toBe(first);
    expect(performance.now() - t0).toBeLessThan(50);
  });

  it('a token that is not there is UNAVAILABLE; a module that does not exist is CONFIG', async () => {
    await expect(open({ tokenLabel: 'no-such-token' }).generate('p256')).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining('no token "no-such-token" is present'),
    });
    expect(() => openPkcs11Backend(options({ module: '/nonexistent/libpkcs11.so' }))).toThrow(
      expect.objectContaining({ code: 'CONFIG' }),
    );
  });

  it('a token without EdDSA says so for Ed25519 only', async () => {
    const backend = open({ withoutMechanisms: [CK.CKM_EDDSA] });
    await expect(backend.generate('ed25519')).rejects.toMatchObject({
      code: 'UNSUPPORTED',
      message: expect.stringContaining('EdDSA'),
    });
    const ec = await backend.generate('p256');
    await expect(verifyingSigner(backend).sign(ec.fingerprint, randomBytes(32))).resolves.toMatchObject({
      signedBy: ec.fingerprint,
    });
  });
});

describe('the token deleted and created again under a running signer', () => {
  it('old keys are reported missing, new keys work, nothing crashes', async () => {
    const local = softhsmToken('quill-p11-again');
    const backend = open({ tokenLabel: local.tokenLabel, pin: local.pin });
    const signer = verifyingSigner(backend);
    const before = await backend.generate('p256');
    await signer.sign(before.fingerprint, randomBytes(32));

    local.recreate();
    await expect(signer.sign(before.fingerprint, randomBytes(32))).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringContaining(`does not hold key ${before.fingerprint}`),
    });
    const check = await backend.check();
    expect(check).toEqual([
      expect.objectContaining({ fingerprint: before.fingerprint, ok: false, problem: 'missing' }),
    ]);

    const after = await backend.generate('ed25519');
    await expect(signer.sign(after.fingerprint, randomBytes(32))).resolves.toMatchObject({
      signedBy: after.fingerprint,
    });
  });
});
