// The per-key verifier that checks every signature before release (libsodium for Ed25519, noble's tabled point
// for ECDSA) must accept and reject exactly what noble's verifySignature does, except one case: libsodium is
// cofactorless, like node:crypto and the participant, so a torsion component in R is refused where noble accepts.
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { sha256, sha384, sha512 } from '@noble/hashes/sha2.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  ALGORITHMS,
  canonicalSignature,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  keyVerifier,
  randomSecret,
  rawPublicKeyOf,
  UnlockedKey,
  verifySignature,
} from '../../../src/signing/algorithms.ts';

type EcAlgorithm = Exclude<KeyAlgorithm, 'ed25519'>;
const EC_ALGORITHMS = ['p256', 'p384', 'secp256k1'] as const;
const NOBLE_EC = { p256, p384, secp256k1 } as const;
const JWK_CURVE = { p256: 'P-256', p384: 'P-384', secp256k1: 'secp256k1' } as const;
// Constants written out here rather than read from the code under test.
const ED_P = 2n ** 255n - 19n;
const ED_L = 2n ** 252n + 27742317777372353535851937790883648493n;
const EC_N: Record<EcAlgorithm, bigint> = {
  p256: 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n,
  p384: 0xffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973n,
  secp256k1: 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n,
};
// A point of order 8 on edwards25519 (one of the well-known small-order encodings).
const ORDER_8 = Buffer.from('c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a', 'hex');

interface TestKey {
  algorithm: KeyAlgorithm;
  secret: Uint8Array;
  raw: Uint8Array;
  priv: KeyObject;
  pub: KeyObject;
  ours: (message: Uint8Array, signature: Uint8Array) => boolean;
}

const b64u = (b: Uint8Array) => Buffer.from(b).toString('base64url');

/** A key pair: noble derives the public key, node:crypto holds the same secret (imported as JWK). */
async function testKey(algorithm: KeyAlgorithm): Promise<TestKey> {
  const secret = randomSecret(algorithm);
  const raw = rawPublicKeyOf(algorithm, secret);
  let jwk: Record<string, string>;
  if (algorithm === 'ed25519') {
    jwk = { kty: 'OKP', crv: 'Ed25519', d: b64u(secret), x: b64u(raw) };
  } else {
    const len = (raw.length - 1) / 2;
    jwk = {
      kty: 'EC',
      crv: JWK_CURVE[algorithm],
      d: b64u(secret),
      x: b64u(raw.subarray(1, 1 + len)),
      y: b64u(raw.subarray(1 + len)),
    };
  }
  const priv = createPrivateKey({ key: jwk, format: 'jwk' });
  return {
    algorithm,
    secret,
    raw,
    priv,
    pub: createPublicKey(priv),
    ours: await keyVerifier(algorithm, raw),
  };
}

/** Two keys of each algorithm, made before the suites (their verifiers load asynchronously). */
const keysOf = async () =>
  Object.fromEntries(
    await Promise.all(KEY_ALGORITHMS.map(async (a) => [a, await testKey(a)] as const)),
  ) as Record<KeyAlgorithm, TestKey>;
const [FIRST, SECOND] = [await keysOf(), await keysOf()];

function nodeVerify(key: TestKey, message: Uint8Array, signature: Uint8Array): boolean {
  try {
    return verify(ALGORITHMS[key.algorithm].digest, message, { key: key.pub, dsaEncoding: 'der' }, signature);
  } catch {
    return false;
  }
}

/** DER INTEGER / SEQUENCE, written here so crafted signatures do not depend on noble's encoder. */
function derInt(n: bigint): Buffer {
  let hex = n.toString(16);
  if (hex.length % 2) hex = `0${hex}`;
  let body = Buffer.from(hex, 'hex');
  if (body[0]! & 0x80) body = Buffer.concat([Buffer.from([0]), body]);
  return Buffer.concat([Buffer.from([0x02, body.length]), body]);
}
function derSig(r: bigint, s: bigint): Buffer {
  const body = Buffer.concat([derInt(r), derInt(s)]);
  expect(body.length).toBeLessThan(128);
  return Buffer.concat([Buffer.from([0x30, body.length]), body]);
}

function leBytes(n: bigint, len = 32): Uint8Array {
  const out = new Uint8Array(len);
  for (let i = 0; i < len; i++) out[i] = Number((n >> BigInt(8 * i)) & 0xffn);
  return out;
}
const leNumber = (b: Uint8Array) => BigInt(`0x${Buffer.from(b).reverse().toString('hex') || '0'}`);

/** A node:crypto signature; ECDSA normalised to low S (what UnlockedKey hands out). */
function nodeSign(key: TestKey, message: Uint8Array): Uint8Array {
  if (key.algorithm === 'ed25519') return sign(null, message, key.priv);
  const der = sign(ALGORITHMS[key.algorithm].digest, message, { key: key.priv, dsaEncoding: 'der' });
  const sig = NOBLE_EC[key.algorithm].Signature.fromBytes(der, 'der');
  const n = EC_N[key.algorithm];
  return sig.s > n / 2n ? derSig(sig.r, n - sig.s) : der;
}

/** Our verdict, checked to equal noble's verifySignature; returned with node:crypto's for the caller. */
function verdicts(
  key: TestKey,
  message: Uint8Array,
  signature: Uint8Array,
): { ours: boolean; node: boolean } {
  const ours = key.ours(message, signature);
  expect(ours).toBe(verifySignature(key.algorithm, key.raw, message, signature));
  return { ours, node: nodeVerify(key, message, signature) };
}

const messages = fc.uint8Array({ maxLength: 200 });

describe.each(KEY_ALGORITHMS)('%s per-key verifier', (algorithm) => {
  const key = FIRST[algorithm];
  const other = SECOND[algorithm];

  it('accepts valid signatures of random messages, as noble and node:crypto do', () => {
    fc.assert(
      fc.property(messages, (message) => {
        expect(verdicts(key, message, nodeSign(key, message))).toEqual({ ours: true, node: true });
      }),
      { numRuns: 25 },
    );
  });

  it('rejects a signature with any single bit flipped, as noble and node:crypto do', () => {
    fc.assert(
      fc.property(messages, fc.nat(), (message, bit) => {
        const signature = Buffer.from(nodeSign(key, message));
        const at = bit % (signature.length * 8);
        signature[at >> 3] = signature[at >> 3]! ^ (1 << (at & 7));
        expect(verdicts(key, message, signature)).toEqual({ ours: false, node: false });
      }),
      { numRuns: 40 },
    );
  });

  it('rejects signatures by another key and on another message', () => {
    fc.assert(
      fc.property(messages, (message) => {
        expect(verdicts(key, message, nodeSign(other, message))).toEqual({ ours: false, node: false });
        const changed = Uint8Array.from([...message, 0]);
        expect(verdicts(key, changed, nodeSign(key, message))).toEqual({ ours: false, node: false });
      }),
      { numRuns: 15 },
    );
  });

  it('accepts what UnlockedKey.sign returns, in canonical (low-S) form', () => {
    const unlocked = UnlockedKey.fromSecret(algorithm, key.secret);
    expect(unlocked).toBeDefined();
    const message = new Uint8Array(32).fill(7);
    const signature = canonicalSignature(algorithm, unlocked!.sign(message));
    expect(verdicts(key, message, signature!)).toEqual({ ours: true, node: true });
  });

  it('rejects everything for a public key that does not decode', async () => {
    let bad: Uint8Array;
    if (algorithm === 'ed25519') {
      bad = leBytes(ED_P); // y = p: a non-canonical encoding
    } else {
      bad = Uint8Array.from(key.raw);
      bad[bad.length - 1] = bad[bad.length - 1]! ^ 1; // y changed: off the curve
    }
    expect(() => (algorithm === 'ed25519' ? ed25519 : NOBLE_EC[algorithm]).Point.fromBytes(bad)).toThrow();
    const message = new Uint8Array(32);
    const sig = nodeSign(key, message);
    expect((await keyVerifier(algorithm, bad))(message, sig)).toBe(false);
    expect(verifySignature(algorithm, bad, message, sig)).toBe(false);
  });
});

describe('Ed25519 known-bad and edge cases (each would pass a verifier missing one rule)', () => {
  const key = FIRST.ed25519;
  const { scalar: a } = ed25519.utils.getExtendedPublicKey(key.secret);
  const { Point } = ed25519;
  const message = Uint8Array.from(Buffer.from('quill precomputed verify'));
  const challenge = (R: Uint8Array, A: Uint8Array, m: Uint8Array) =>
    leNumber(sha512(Buffer.concat([R, A, m]))) % ED_L;

  it('rejects a non-canonical s (s + L): the range check', () => {
    fc.assert(
      fc.property(messages, (m) => {
        const sig = nodeSign(key, m);
        const s = leNumber(sig.subarray(32));
        const malleated = Buffer.concat([sig.subarray(0, 32), leBytes(s + ED_L)]);
        expect(verdicts(key, m, malleated)).toEqual({ ours: false, node: false });
      }),
      { numRuns: 15 },
    );
  });

  it('rejects a non-canonical R encoding (y = p + 1) that the relaxed ZIP-215 rules accept', () => {
    const rBytes = leBytes(ED_P + 1n); // the identity, encoded with y >= p
    const s = (challenge(rBytes, key.raw, message) * a) % ED_L; // O + kA - sB = O
    const sig = Buffer.concat([rBytes, leBytes(s)]);
    expect(ed25519.verify(sig, message, key.raw, { zip215: true })).toBe(true); // the case is live
    expect(verdicts(key, message, sig)).toEqual({ ours: false, node: false });
  });

  it('rejects small-order public keys, whose forged signatures satisfy the equation', async () => {
    const T = Point.fromBytes(ORDER_8);
    expect(T.is0() || T.double().double().is0()).toBe(false);
    expect(T.clearCofactor().is0()).toBe(true);
    const identity = leBytes(1n);
    for (const A of [identity, Uint8Array.from(ORDER_8)]) {
      const s = 12345n;
      const sig = Buffer.concat([Point.BASE.multiply(s).toBytes(), leBytes(s)]); // R = sB
      expect(ed25519.verify(sig, message, A, { zip215: true })).toBe(true); // the case is live
      expect((await keyVerifier('ed25519', A))(message, sig)).toBe(false);
      expect(verifySignature('ed25519', A, message, sig)).toBe(false);
    }
  });

  it('refuses a torsion component in R, as node:crypto does (cofactorless); noble, cofactored, accepts it', () => {
    const T = Point.fromBytes(ORDER_8);
    const r = 987654321987654321n;
    const rBytes = Point.BASE.multiply(r).add(T).toBytes();
    const s = (r + challenge(rBytes, key.raw, message) * a) % ED_L;
    const sig = Buffer.concat([rBytes, leBytes(s)]);
    expect(key.ours(message, sig)).toBe(false);
    expect(verifySignature('ed25519', key.raw, message, sig)).toBe(true);
    expect(nodeVerify(key, message, sig)).toBe(false);
    // ...and the same construction without the torsion point is an ordinary valid signature.
    const plainR = Point.BASE.multiply(r).toBytes();
    const plain = Buffer.concat([plainR, leBytes((r + challenge(plainR, key.raw, message) * a) % ED_L)]);
    expect(verdicts(key, message, plain)).toEqual({ ours: true, node: true });
  });

  it('hashes the exact R bytes: a valid signature with R replaced by -R fails', () => {
    const sig = Buffer.from(nodeSign(key, message));
    sig[31] = sig[31]! ^ 0x80;
    expect(verdicts(key, message, sig)).toEqual({ ours: false, node: false });
  });

  it('rejects signatures of the wrong length', () => {
    const sig = nodeSign(key, message);
    for (const bad of [sig.subarray(0, 63), Buffer.concat([sig, Buffer.from([0])]), new Uint8Array(0)]) {
      expect(verdicts(key, message, bad)).toEqual({ ours: false, node: false });
    }
  });
});

describe.each(EC_ALGORITHMS)('%s known-bad and edge cases', (algorithm) => {
  const key = FIRST[algorithm];
  const curve = NOBLE_EC[algorithm];
  const n = EC_N[algorithm];
  const message = Uint8Array.from(Buffer.from('quill precomputed verify'));
  const parts = (der: Uint8Array) => curve.Signature.fromBytes(der, 'der');

  it('rejects the high-S twin of a valid signature, which node:crypto accepts', () => {
    fc.assert(
      fc.property(messages, (m) => {
        const { r, s } = parts(nodeSign(key, m));
        expect(s <= n / 2n).toBe(true);
        expect(verdicts(key, m, derSig(r, n - s))).toEqual({ ours: false, node: true });
      }),
      { numRuns: 15 },
    );
  });

  it('rejects r + n (same x mod n) and r or s of 0 or n', () => {
    const { r, s } = parts(nodeSign(key, message));
    for (const [badR, badS] of [
      [r + n, s],
      [0n, s],
      [r, 0n],
      [n, s],
      [r, n],
    ] as const) {
      expect(verdicts(key, message, derSig(badR, badS))).toEqual({ ours: false, node: false });
    }
  });

  it('rejects non-minimal DER for a valid (r, s)', () => {
    const { r, s } = parts(nodeSign(key, message));
    const rInt = derInt(r);
    const padded = Buffer.concat([Buffer.from([0x02, rInt[1]! + 1, 0]), rInt.subarray(2)]); // extra 00
    const body = Buffer.concat([padded, derInt(s)]);
    const der = Buffer.concat([Buffer.from([0x30, body.length]), body]);
    expect(verdicts(key, message, der)).toEqual({ ours: false, node: false });
    const trailing = Buffer.concat([derSig(r, s), Buffer.from([0])]);
    expect(verdicts(key, message, trailing)).toEqual({ ours: false, node: false });
  });

  it('hashes the message with the curve digest: signatures over other digests are rejected', () => {
    const right = ALGORITHMS[algorithm].digest === 'sha384' ? sha384 : sha256;
    const wrong = right === sha256 ? sha384 : sha256;
    // Signed over the message itself (no hash), over the wrong digest, and over a double hash.
    for (const signed of [message, wrong(message), right(right(message))]) {
      const sig = curve.sign(signed, key.secret, { prehash: false, lowS: true, format: 'der' });
      expect(curve.verify(sig, signed, key.raw, { prehash: false, format: 'der' })).toBe(true); // live
      expect(verdicts(key, message, sig)).toEqual({ ours: false, node: false });
    }
    // ...while the same construction over the right digest verifies.
    const good = curve.sign(right(message), key.secret, { prehash: false, lowS: true, format: 'der' });
    expect(verdicts(key, message, good)).toEqual({ ours: true, node: true });
  });
});
