// The four signing algorithms the participant accepts for external parties (ledger-json-api.md §4.1).
// Signing runs on node:crypto (OpenSSL, much faster here); every signature is then verified by an independent
// implementation before anyone sees it (`keyVerifier`: libsodium for Ed25519, noble's arithmetic for ECDSA).
// Posted signatures are checked with noble (`verifySignature`). Keys are created with noble.
import { createPrivateKey, createPublicKey, type KeyObject, sign as nativeSign } from 'node:crypto';
import { inspect } from 'node:util';
import { ed25519 } from '@noble/curves/ed25519.js';
import { p256, p384 } from '@noble/curves/nist.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { bytesToNumberBE } from '@noble/curves/utils.js';
import { sha256, sha384 } from '@noble/hashes/sha2.js';
import { pkcs8FromSecret, rawFromSpki, spkiFromRaw } from './der.ts';
import { isKeyAlgorithm, KEY_ALGORITHMS, type KeyAlgorithm } from './key-algorithm.ts';
import { sodiumEd25519Verifier } from './sodium.ts';

export { isKeyAlgorithm, KEY_ALGORITHMS, type KeyAlgorithm };

export type KeySpec =
  | 'SIGNING_KEY_SPEC_EC_CURVE25519'
  | 'SIGNING_KEY_SPEC_EC_P256'
  | 'SIGNING_KEY_SPEC_EC_P384'
  | 'SIGNING_KEY_SPEC_EC_SECP256K1';
export type SigningAlgorithmSpec =
  | 'SIGNING_ALGORITHM_SPEC_ED25519'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384';
export type SignatureFormat = 'SIGNATURE_FORMAT_CONCAT' | 'SIGNATURE_FORMAT_DER';

export interface AlgorithmSpec {
  keySpec: KeySpec;
  signingAlgorithmSpec: SigningAlgorithmSpec;
  signatureFormat: SignatureFormat;
  /** Length of the secret (Ed25519 seed or EC scalar) and of the raw public key (EC: uncompressed point). */
  secretLength: number;
  rawPublicKeyLength: number;
  /** Digest node:crypto applies before ECDSA (Canton's "SHA256withECDSA" hashes the 32-byte hash again). */
  digest: 'sha256' | 'sha384' | null;
}

export const ALGORITHMS: Readonly<Record<KeyAlgorithm, AlgorithmSpec>> = {
  ed25519: {
    keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519',
    signatureFormat: 'SIGNATURE_FORMAT_CONCAT',
    secretLength: 32,
    rawPublicKeyLength: 32,
    digest: null,
  },
  p256: {
    keySpec: 'SIGNING_KEY_SPEC_EC_P256',
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
    signatureFormat: 'SIGNATURE_FORMAT_DER',
    secretLength: 32,
    rawPublicKeyLength: 65,
    digest: 'sha256',
  },
  p384: {
    keySpec: 'SIGNING_KEY_SPEC_EC_P384',
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
    signatureFormat: 'SIGNATURE_FORMAT_DER',
    secretLength: 48,
    rawPublicKeyLength: 97,
    digest: 'sha384',
  },
  secp256k1: {
    keySpec: 'SIGNING_KEY_SPEC_EC_SECP256K1',
    signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
    signatureFormat: 'SIGNATURE_FORMAT_DER',
    secretLength: 32,
    rawPublicKeyLength: 65,
    digest: 'sha256',
  },
};

const ECDSA_CURVES = { p256, p384, secp256k1 } as const;

/** A fresh secret from the CSPRNG (uniform in [1, n-1] for EC curves). */
export function randomSecret(algorithm: KeyAlgorithm): Uint8Array {
  return algorithm === 'ed25519'
    ? ed25519.utils.randomSecretKey()
    : ECDSA_CURVES[algorithm].utils.randomSecretKey();
}

/** noble's derivation of the raw public key; throws on an invalid secret. */
export function rawPublicKeyOf(algorithm: KeyAlgorithm, secret: Uint8Array): Uint8Array {
  return algorithm === 'ed25519'
    ? ed25519.getPublicKey(secret)
    : ECDSA_CURVES[algorithm].getPublicKey(secret, false);
}

export function spkiOf(algorithm: KeyAlgorithm, rawPublicKey: Uint8Array): Uint8Array {
  return spkiFromRaw(algorithm, rawPublicKey);
}

export function rawPublicKeyFromSpki(algorithm: KeyAlgorithm, spki: Uint8Array): Uint8Array | undefined {
  return rawFromSpki(algorithm, spki, ALGORITHMS[algorithm].rawPublicKeyLength);
}

/** Independent verification with noble: strict RFC 8032 for Ed25519, low-S DER ECDSA with the curve's hash. */
export function verifySignature(
  algorithm: KeyAlgorithm,
  rawPublicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): boolean {
  try {
    if (algorithm === 'ed25519') return ed25519.verify(signature, message, rawPublicKey, { zip215: false });
    return ECDSA_CURVES[algorithm].verify(signature, message, rawPublicKey, {
      format: 'der',
      lowS: true,
      prehash: true,
    });
  } catch {
    return false;
  }
}

export type KeyVerifier = (message: Uint8Array, signature: Uint8Array) => boolean;

// Window of the per-key wNAF table. 8 verifies ~12-20% faster than 6 but costs ~3x the table (6: ~0.2-0.4 MB
// per key, 8: ~0.6-1.1 MB) and the build (6: ~17-47 ms, 8: ~50-140 ms, blocking), and unlocked keys stay
// cached for the life of the process.
const KEY_TABLE_WINDOW = 6;

const rejectAll: KeyVerifier = () => false;

/**
 * The verifier of one public key that checks every signature before it leaves Quill, never OpenSSL's: Ed25519
 * by libsodium (sodium.ts: cofactorless, so it also refuses the torsion-R signatures noble accepts), ECDSA by
 * noble's point arithmetic with the public point decoded and checked once and its multiplication table built
 * on the first verification (not at unlock: `list()` unlocks every key), with `verifySignature`'s rules. An
 * invalid key rejects everything.
 */
export async function keyVerifier(algorithm: KeyAlgorithm, rawPublicKey: Uint8Array): Promise<KeyVerifier> {
  let check: KeyVerifier;
  if (algorithm === 'ed25519') {
    check = sodiumEd25519Verifier(rawPublicKey);
  } else {
    check = ecdsaVerifier(algorithm, rawPublicKey);
  }
  // Like verifySignature: anything unexpected is a rejection, never an escape.
  return (message, signature) => {
    try {
      return check(message, signature);
    } catch {
      return false;
    }
  };
}

/** noble's `verify(der, msg, pk, { format: 'der', lowS: true, prehash: true })` for one public key. */
function ecdsaVerifier(algorithm: Exclude<KeyAlgorithm, 'ed25519'>, rawPublicKey: Uint8Array): KeyVerifier {
  const curve = ECDSA_CURVES[algorithm];
  const { Point } = curve;
  const { Fn } = Point;
  const hash = ALGORITHMS[algorithm].digest === 'sha384' ? sha384 : sha256;
  let Q: InstanceType<typeof Point>;
  try {
    Q = Point.fromBytes(rawPublicKey); // checks the point is on the curve
  } catch {
    return rejectAll;
  }
  if (Q.is0()) return rejectAll;
  Q.precompute(KEY_TABLE_WINDOW); // lazy: the table is built by the first multiplication
  return (message, signature) => {
    let sig: InstanceType<typeof curve.Signature>;
    try {
      sig = curve.Signature.fromBytes(signature, 'der'); // strict DER; r and s in [1, n-1]
    } catch {
      return false;
    }
    if (sig.hasHighS()) return false;
    const { r, s } = sig;
    // noble's bits2int_modN: the leftmost Fn.BITS bits of the digest, mod n.
    const digest = hash(message);
    const excess = digest.length * 8 - Fn.BITS;
    const h = Fn.create(excess > 0 ? bytesToNumberBE(digest) >> BigInt(excess) : bytesToNumberBE(digest));
    const w = Fn.inv(s);
    const R = Point.BASE.multiplyUnsafe(Fn.create(h * w)).add(Q.multiplyUnsafe(Fn.create(r * w)));
    if (R.is0()) return false;
    return Fn.create(R.toAffine().x) === r;
  };
}

/** ECDSA `r || s` (what PKCS#11's CKM_ECDSA returns) as DER; undefined when the length or values are wrong. */
export function derFromRawEcdsa(
  algorithm: Exclude<KeyAlgorithm, 'ed25519'>,
  raw: Uint8Array,
): Uint8Array | undefined {
  try {
    return ECDSA_CURVES[algorithm].Signature.fromBytes(raw, 'compact').toBytes('der');
  } catch {
    return undefined;
  }
}

/**
 * The form a signature leaves Quill in: Ed25519 as it is (64 bytes), ECDSA as strict DER with the low S (OpenSSL
 * and tokens pick either S). Undefined when the bytes are not a signature of that shape.
 */
export function canonicalSignature(algorithm: KeyAlgorithm, signature: Uint8Array): Uint8Array | undefined {
  if (algorithm === 'ed25519') return signature.length === 64 ? Uint8Array.from(signature) : undefined;
  const curve = ECDSA_CURVES[algorithm];
  try {
    const sig = curve.Signature.fromBytes(signature, 'der');
    const low = sig.hasHighS() ? new curve.Signature(sig.r, curve.Point.Fn.ORDER - sig.s) : sig;
    return low.toBytes('der');
  } catch {
    return undefined;
  }
}

/**
 * An unlocked private key. The secret lives only inside an OpenSSL KeyObject held in a private field:
 * it is not enumerable, not serialisable, and prints as a placeholder.
 */
export class UnlockedKey {
  readonly #key: KeyObject;

  private constructor(
    readonly algorithm: KeyAlgorithm,
    readonly rawPublicKey: Uint8Array,
    readonly spki: Uint8Array,
    key: KeyObject,
  ) {
    this.#key = key;
  }

  /**
   * Imports a secret, checking that noble and OpenSSL derive the same public key and that it is the
   * expected one. Returns undefined on any mismatch (the caller names the file).
   */
  static fromSecret(
    algorithm: KeyAlgorithm,
    secret: Uint8Array,
    expectedSpki?: Uint8Array,
  ): UnlockedKey | undefined {
    if (secret.length !== ALGORITHMS[algorithm].secretLength) return undefined;
    let raw: Uint8Array;
    let key: KeyObject;
    const pkcs8 = Buffer.from(pkcs8FromSecret(algorithm, secret));
    try {
      raw = rawPublicKeyOf(algorithm, secret);
      key = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' });
    } catch {
      return undefined;
    } finally {
      pkcs8.fill(0);
    }
    const spki = spkiOf(algorithm, raw);
    const opensslSpki = createPublicKey(key).export({ type: 'spki', format: 'der' });
    if (!Buffer.from(spki).equals(opensslSpki)) return undefined;
    if (expectedSpki && !Buffer.from(spki).equals(Buffer.from(expectedSpki))) return undefined;
    return new UnlockedKey(algorithm, raw, spki, key);
  }

  /** The raw signature (ECDSA: DER, either S); `verifyingSigner` canonicalises and verifies it. */
  sign(message: Uint8Array): Uint8Array {
    const spec = ALGORITHMS[this.algorithm];
    return Uint8Array.from(
      spec.digest === null
        ? nativeSign(null, message, this.#key)
        : nativeSign(spec.digest, message, { key: this.#key, dsaEncoding: 'der' }),
    );
  }

  toJSON(): string {
    return `[UnlockedKey ${this.algorithm}]`;
  }

  [inspect.custom](): string {
    return this.toJSON();
  }
}
