// Signatures and fingerprints checked against node:crypto, an implementation independent of ours.
import { createHash, createPublicKey, generateKeyPairSync, randomBytes, verify } from 'node:crypto';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { spkiOf } from '../../../src/signing/algorithms.ts';
import {
  fingerprintOf,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type KeyStore,
  type KeyView,
  type Signer,
  verifyingSigner,
  verifySignature,
} from '../../../src/signing/index.ts';
import { tempStore } from '../../support/keys.ts';

const NODE_CURVE = { p256: 'prime256v1', p384: 'secp384r1', secp256k1: 'secp256k1' } as const;
const ORDER: Record<Exclude<KeyAlgorithm, 'ed25519'>, bigint> = {
  p256: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  p384: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  secp256k1: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
};
const EXPECTED = {
  ed25519: [
    'SIGNATURE_FORMAT_CONCAT',
    'SIGNING_ALGORITHM_SPEC_ED25519',
    'SIGNING_KEY_SPEC_EC_CURVE25519',
    null,
  ],
  p256: [
    'SIGNATURE_FORMAT_DER',
    'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
    'SIGNING_KEY_SPEC_EC_P256',
    'sha256',
  ],
  p384: [
    'SIGNATURE_FORMAT_DER',
    'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
    'SIGNING_KEY_SPEC_EC_P384',
    'sha384',
  ],
  secp256k1: [
    'SIGNATURE_FORMAT_DER',
    'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
    'SIGNING_KEY_SPEC_EC_SECP256K1',
    'sha256',
  ],
} as const;

/** The participant's rule, computed here with node:crypto only. */
function independentFingerprint(algorithm: KeyAlgorithm, spki: Buffer): string {
  const key = createPublicKey({ key: spki, format: 'der', type: 'spki' });
  const bytes =
    algorithm === 'ed25519'
      ? Buffer.from(key.export({ format: 'jwk' }).x as string, 'base64url')
      : key.export({ type: 'spki', format: 'der' });
  const digest = createHash('sha256')
    .update(Buffer.from([0, 0, 0, 12]))
    .update(bytes)
    .digest('hex');
  return `1220${digest}`;
}

/** s of a DER ECDSA signature, parsed here (not by the code under test). */
function derS(sig: Buffer): bigint {
  let at = 2;
  if (sig[1]! & 0x80) at += sig[1]! & 0x7f;
  const rLen = sig[at + 1]!;
  at += 2 + rLen;
  expect(sig[at]).toBe(0x02);
  const sLen = sig[at + 1]!;
  return BigInt(`0x${sig.subarray(at + 2, at + 2 + sLen).toString('hex')}`);
}

let store: KeyStore;
let signer: Signer;
const views = {} as Record<KeyAlgorithm, KeyView>;

beforeAll(async () => {
  store = await tempStore();
  signer = verifyingSigner(store);
  for (const a of KEY_ALGORITHMS) views[a] = await store.generate(a, `test ${a}`);
});

describe.each(KEY_ALGORITHMS)('%s', (algorithm) => {
  const [format, spec, keySpec, digest] = EXPECTED[algorithm];

  it('has the participant key spec and a fingerprint computed as the participant does', () => {
    const v = views[algorithm];
    expect(v.keySpec).toBe(keySpec);
    const spki = Buffer.from(v.publicKey, 'base64');
    expect(
      createPublicKey({ key: spki, format: 'der', type: 'spki' }).export({ type: 'spki', format: 'der' }),
    ).toEqual(spki);
    expect(v.fingerprint).toBe(independentFingerprint(algorithm, spki));
  });

  it('signs 32-byte hashes that node:crypto verifies (low-S DER for ECDSA)', async () => {
    const v = views[algorithm];
    const pub = createPublicKey({ key: Buffer.from(v.publicKey, 'base64'), format: 'der', type: 'spki' });
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 32, maxLength: 32 }), async (hash) => {
        const s = await signer.sign(v.fingerprint, hash);
        expect([s.format, s.signingAlgorithmSpec, s.signedBy]).toEqual([format, spec, v.fingerprint]);
        const sig = Buffer.from(s.signature, 'base64');
        expect(verify(digest, hash, { key: pub, dsaEncoding: 'der' }, sig)).toBe(true);
        if (algorithm === 'ed25519') expect(sig.length).toBe(64);
        else expect(derS(sig) <= ORDER[algorithm] / 2n).toBe(true);
        // a different message does not verify (the check can fail)
        const other = Uint8Array.from(hash);
        other[0] = other[0]! ^ 1;
        expect(verify(digest, other, { key: pub, dsaEncoding: 'der' }, sig)).toBe(false);
      }),
      { numRuns: 25 },
    );
  });

  it('signs the 34-byte topology multihash as is', async () => {
    const v = views[algorithm];
    const multiHash = Buffer.concat([Buffer.from([0x12, 0x20]), randomBytes(32)]);
    const s = await signer.sign(v.fingerprint, multiHash);
    const pub = createPublicKey({ key: Buffer.from(v.publicKey, 'base64'), format: 'der', type: 'spki' });
    expect(
      verify(digest, multiHash, { key: pub, dsaEncoding: 'der' }, Buffer.from(s.signature, 'base64')),
    ).toBe(true);
  });

  it('builds SPKI and fingerprints of node-generated keys exactly as node:crypto does', () => {
    for (let i = 0; i < 5; i++) {
      const { publicKey } =
        algorithm === 'ed25519'
          ? generateKeyPairSync('ed25519')
          : generateKeyPairSync('ec', { namedCurve: NODE_CURVE[algorithm] });
      const spki = publicKey.export({ type: 'spki', format: 'der' });
      const jwk = publicKey.export({ format: 'jwk' });
      const raw =
        algorithm === 'ed25519'
          ? Buffer.from(jwk.x as string, 'base64url')
          : Buffer.concat([
              Buffer.from([4]),
              Buffer.from(jwk.x as string, 'base64url'),
              Buffer.from(jwk.y as string, 'base64url'),
            ]);
      expect(Buffer.from(spkiOf(algorithm, raw))).toEqual(spki);
      expect(fingerprintOf(algorithm, spki)).toBe(independentFingerprint(algorithm, spki));
    }
  });

  it('the internal verifier rejects a signature with one flipped bit', async () => {
    const v = views[algorithm];
    const hash = randomBytes(32);
    const sig = Buffer.from((await signer.sign(v.fingerprint, hash)).signature, 'base64');
    const raw = createPublicKey({ key: Buffer.from(v.publicKey, 'base64'), format: 'der', type: 'spki' });
    const jwk = raw.export({ format: 'jwk' });
    const rawKey =
      algorithm === 'ed25519'
        ? Buffer.from(jwk.x as string, 'base64url')
        : Buffer.concat([
            Buffer.from([4]),
            Buffer.from(jwk.x as string, 'base64url'),
            Buffer.from(jwk.y as string, 'base64url'),
          ]);
    expect(verifySignature(algorithm, rawKey, hash, sig)).toBe(true);
    const bad = Buffer.from(sig);
    bad[bad.length - 1] = bad[bad.length - 1]! ^ 1;
    expect(verifySignature(algorithm, rawKey, hash, bad)).toBe(false);
  });
});

describe('fingerprintOf', () => {
  it('refuses an SPKI of another algorithm', () => {
    const spki = Buffer.from(views.p256.publicKey, 'base64');
    expect(() => fingerprintOf('ed25519', spki)).toThrow();
    expect(() => fingerprintOf('p384', spki)).toThrow();
  });
});

describe('verifyingSigner over the file key store', () => {
  it('signs only 32-byte hashes and 34-byte sha2-256 multihashes', async () => {
    const fp = views.ed25519.fingerprint;
    for (const bad of [
      new Uint8Array(0),
      new Uint8Array(31),
      new Uint8Array(33),
      new Uint8Array(34),
      new Uint8Array(64),
    ]) {
      await expect(signer.sign(fp, bad)).rejects.toMatchObject({ code: 'BAD_INPUT' });
    }
  });

  it('refuses unknown and malformed fingerprints', async () => {
    await expect(signer.sign(`1220${'0'.repeat(64)}`, new Uint8Array(32))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    await expect(signer.sign('../../etc/passwd', new Uint8Array(32))).rejects.toMatchObject({
      code: 'BAD_INPUT',
    });
  });
});
