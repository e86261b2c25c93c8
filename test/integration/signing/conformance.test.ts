// The signer conformance suite: what every key backend must do, run against each of them (the encrypted file
// store and a PKCS#11 token, SoftHSM2 here). A new backend (cloud KMS, Vault transit) joins the `BACKENDS` list.
// Signatures are checked by node:crypto and by noble, independently of the code that made them.
import { createPublicKey, verify as nodeVerify, randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { p256, p384 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  fingerprintOf,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type KeyBackend,
  KeyStore,
  openPkcs11Backend,
  type Signer,
  verifyingSigner,
  verifySignature,
} from '../../../src/signing/index.ts';
import { FAST_SCRYPT, PASSPHRASE } from '../../support/keys.ts';
import { softhsmToken } from '../../support/softhsm.ts';
import { tempDir } from '../../support/tmp.ts';

/** The suite needs backends that make keys (`generate`); one that only adopts is tested through its adopt. */
type Making = KeyBackend & Required<Pick<KeyBackend, 'generate'>>;

const BACKENDS: [string, (dir: string) => Making][] = [
  ['file', (dir) => new KeyStore({ dir, passphrase: PASSPHRASE, scrypt: FAST_SCRYPT })],
  [
    'pkcs11',
    (dir) => {
      const t = softhsmToken();
      return openPkcs11Backend({ module: t.module, tokenLabel: t.tokenLabel, pin: t.pin, sessions: 8, dir });
    },
  ],
];

const CURVES = { p256, p384, secp256k1 } as const;
const multihash = () => Uint8Array.from([0x12, 0x20, ...randomBytes(32)]);

/** node:crypto's verdict, as the participant verifies: Ed25519 over the message, ECDSA over its digest (DER). */
function nodeVerdict(
  algorithm: KeyAlgorithm,
  spkiB64: string,
  message: Uint8Array,
  sig: Uint8Array,
): boolean {
  const key = createPublicKey({ key: Buffer.from(spkiB64, 'base64'), format: 'der', type: 'spki' });
  const digest = ALGORITHMS[algorithm].digest;
  return digest === null
    ? nodeVerify(null, message, key, sig)
    : nodeVerify(digest, message, { key, dsaEncoding: 'der' }, sig);
}

describe.each(BACKENDS)('signer conformance: %s backend', (name, make) => {
  let backend: Making;
  let signer: Signer;
  let dir: string;
  beforeAll(() => {
    dir = tempDir(`quill-conformance-${name}-`);
    backend = make(dir);
    signer = verifyingSigner(backend);
  });
  afterAll(() => backend.close?.());

  it.each(KEY_ALGORITHMS)(
    '%s: generate, fingerprint, sign a hash and a multihash, both verifiers agree',
    async (alg) => {
      const view = await backend.generate(alg, `conformance ${alg}`);
      expect(view).toMatchObject({
        algorithm: alg,
        keySpec: ALGORITHMS[alg].keySpec,
        status: 'active',
        backend: name,
        label: `conformance ${alg}`,
      });
      expect(view.fingerprint).toBe(fingerprintOf(alg, Buffer.from(view.publicKey, 'base64')));
      expect(await backend.get(view.fingerprint)).toEqual(view);
      for (const message of [randomBytes(32), multihash()]) {
        const s = await signer.sign(view.fingerprint, message);
        expect(s).toMatchObject({
          signedBy: view.fingerprint,
          format: ALGORITHMS[alg].signatureFormat,
          signingAlgorithmSpec: ALGORITHMS[alg].signingAlgorithmSpec,
        });
        const bytes = Buffer.from(s.signature, 'base64');
        expect(nodeVerdict(alg, view.publicKey, message, bytes)).toBe(true);
        const raw = Buffer.from(view.publicKey, 'base64').subarray(-ALGORITHMS[alg].rawPublicKeyLength);
        expect(verifySignature(alg, raw, message, bytes)).toBe(true);
        expect(nodeVerdict(alg, view.publicKey, randomBytes(32), bytes)).toBe(false);
        if (alg !== 'ed25519') {
          // Strict DER with the low S, as the participant requires.
          const sig = CURVES[alg].Signature.fromBytes(bytes, 'der');
          expect(sig.hasHighS()).toBe(false);
          expect(Buffer.from(sig.toBytes('der')).equals(bytes)).toBe(true);
        } else {
          expect(bytes).toHaveLength(64);
        }
      }
    },
  );

  it('200 concurrent signatures, every one valid', async () => {
    const view = await backend.generate('p256');
    const messages = Array.from({ length: 200 }, () => randomBytes(32));
    const sigs = await Promise.all(messages.map((m) => signer.sign(view.fingerprint, m)));
    for (const [i, s] of sigs.entries()) {
      expect(
        nodeVerdict('p256', view.publicKey, messages[i] as Uint8Array, Buffer.from(s.signature, 'base64')),
      ).toBe(true);
    }
  });

  it('a disabled key never signs again; list, survey and check see every key', async () => {
    const view = await backend.generate('ed25519');
    expect((await backend.disable(view.fingerprint)).status).toBe('disabled');
    expect((await backend.disable(view.fingerprint)).status).toBe('disabled'); // idempotent
    await expect(signer.sign(view.fingerprint, randomBytes(32))).rejects.toMatchObject({ code: 'DISABLED' });
    expect((await backend.list()).map((k) => k.fingerprint)).toContain(view.fingerprint);
    const survey = await backend.survey();
    expect(survey.problems).toEqual([]);
    expect(survey.keys.find((k) => k.fingerprint === view.fingerprint)?.status).toBe('disabled');
    expect((await backend.check()).every((r) => r.ok)).toBe(true);
  });

  it('refuses what it must: unknown keys, bad algorithms, messages that are not a hash', async () => {
    const view = await backend.generate('secp256k1');
    await expect(signer.sign(`1220${'0'.repeat(64)}`, randomBytes(32))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(signer.sign('not-a-key', randomBytes(32))).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(signer.sign(view.fingerprint, randomBytes(33))).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(backend.generate('rsa' as KeyAlgorithm)).rejects.toMatchObject({ code: 'BAD_INPUT' });
    await expect(backend.generate('p256', 'x'.repeat(500))).rejects.toMatchObject({ code: 'BAD_INPUT' });
  });

  it('a signature that does not verify never leaves (a faulty backend)', async () => {
    const view = await backend.generate('p384');
    const flipping = verifyingSigner({
      signBytes: async (fp, m) => {
        const r = await backend.signBytes(fp, m);
        const bad = Uint8Array.from(r.signature);
        bad[bad.length - 1] = (bad[bad.length - 1] as number) ^ 1;
        return { view: r.view, signature: bad };
      },
    });
    await expect(flipping.sign(view.fingerprint, randomBytes(32))).rejects.toMatchObject({
      code: 'SIGNING_FAILED',
    });
  });

  it('KEYS_DIR holds no private key material', async () => {
    const view = await backend.generate('ed25519');
    const files = await readdir(dir, { recursive: true });
    const text = (
      await Promise.all(
        files.filter((f) => f.endsWith('.json')).map((f) => readFile(join(dir, f), 'utf8').catch(() => '')),
      )
    ).join('\n');
    expect(text).toContain(view.fingerprint);
    expect(text).not.toMatch(/"(d|secret|privateKey|seed)"/);
  });
});
