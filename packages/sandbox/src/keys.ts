/**
 * Public keys, fingerprints and signature verification with node:crypto: the sandbox plays the participant
 * and is the independent verifier of signatures the wallet makes with @noble (ledger-json-api.md §4.1–4.2).
 */
import { createHash, createPublicKey, type KeyObject, verify } from 'node:crypto';
import type { Signature } from '@quill/canton/ledger';

export type KeySpec =
  | 'SIGNING_KEY_SPEC_EC_CURVE25519'
  | 'SIGNING_KEY_SPEC_EC_P256'
  | 'SIGNING_KEY_SPEC_EC_P384'
  | 'SIGNING_KEY_SPEC_EC_SECP256K1';

export interface RegisteredKey {
  fingerprint: string;
  keySpec: KeySpec;
  /** DER SubjectPublicKeyInfo. */
  spki: Uint8Array;
  /** What the fingerprint is computed over (raw 32 bytes for Ed25519, SPKI for EC keys). */
  fingerprintBytes: Uint8Array;
  key: KeyObject;
}

const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const CURVES: Record<string, KeySpec> = {
  prime256v1: 'SIGNING_KEY_SPEC_EC_P256',
  secp384r1: 'SIGNING_KEY_SPEC_EC_P384',
  secp256k1: 'SIGNING_KEY_SPEC_EC_SECP256K1',
};

/** `1220` + hex(sha256(0x0000000C || keyBytes)) (HashPurpose.PublicKeyFingerprint = 12). */
export function fingerprintOf(keyBytes: Uint8Array): string {
  const h = createHash('sha256')
    .update(Buffer.from([0, 0, 0, 12]))
    .update(keyBytes)
    .digest('hex');
  return `1220${h}`;
}

/**
 * Reads a `SigningPublicKey` (`format`, base64 `keyData`, `keySpec`). Throws an Error with a one-line reason
 * when the key is malformed or does not match its declared spec.
 */
export function parsePublicKey(format: string, keyData: Uint8Array, keySpec: string): RegisteredKey {
  let key: KeyObject;
  if (format === 'CRYPTO_KEY_FORMAT_RAW') {
    if (keySpec !== 'SIGNING_KEY_SPEC_EC_CURVE25519' || keyData.length !== 32) {
      throw new Error('raw keys are only supported for 32-byte Ed25519 keys');
    }
    key = createPublicKey({
      key: Buffer.concat([ED25519_SPKI_PREFIX, keyData]),
      format: 'der',
      type: 'spki',
    });
  } else if (
    format === 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO' ||
    format === 'CRYPTO_KEY_FORMAT_DER'
  ) {
    try {
      key = createPublicKey({ key: Buffer.from(keyData), format: 'der', type: 'spki' });
    } catch {
      throw new Error('key data is not a DER SubjectPublicKeyInfo');
    }
  } else {
    throw new Error(`unsupported key format ${format}`);
  }
  const actual = specOf(key);
  if (actual === undefined) throw new Error('unsupported key type');
  if (actual !== keySpec) throw new Error(`key is ${actual} but ${keySpec} was declared`);
  const spki = new Uint8Array(key.export({ format: 'der', type: 'spki' }));
  const fingerprintBytes = actual === 'SIGNING_KEY_SPEC_EC_CURVE25519' ? spki.slice(12) : spki;
  return { fingerprint: fingerprintOf(fingerprintBytes), keySpec: actual, spki, fingerprintBytes, key };
}

function specOf(key: KeyObject): KeySpec | undefined {
  if (key.asymmetricKeyType === 'ed25519') return 'SIGNING_KEY_SPEC_EC_CURVE25519';
  if (key.asymmetricKeyType === 'ec') return CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''];
  return undefined;
}

/** Which key specs an algorithm may be used with (Signing.scala). */
const ALGORITHMS: Record<string, readonly KeySpec[]> = {
  SIGNING_ALGORITHM_SPEC_ED25519: ['SIGNING_KEY_SPEC_EC_CURVE25519'],
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256: ['SIGNING_KEY_SPEC_EC_P256', 'SIGNING_KEY_SPEC_EC_SECP256K1'],
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384: ['SIGNING_KEY_SPEC_EC_P384'],
};

/**
 * Verifies one signature over `message` (the raw 32-byte transaction hash, or the 34-byte topology
 * multi-hash). Returns a reason string when invalid, undefined when valid. Ed25519 takes CONCAT (RAW is
 * migrated to CONCAT); ECDSA takes DER (RAW is migrated to DER) and hashes the message again (SHAxxxwithECDSA).
 */
export function checkSignature(
  key: RegisteredKey,
  sig: Pick<Signature, 'format' | 'signature' | 'signedBy' | 'signingAlgorithmSpec'>,
  message: Uint8Array,
): string | undefined {
  const allowed = ALGORITHMS[sig.signingAlgorithmSpec];
  if (!allowed) return `unsupported signing algorithm ${sig.signingAlgorithmSpec}`;
  if (!allowed.includes(key.keySpec)) {
    return `signing algorithm ${sig.signingAlgorithmSpec} cannot be used with a ${key.keySpec} key`;
  }
  const bytes = Buffer.from(sig.signature, 'base64');
  const ed = key.keySpec === 'SIGNING_KEY_SPEC_EC_CURVE25519';
  const formatOk = ed
    ? sig.format === 'SIGNATURE_FORMAT_CONCAT' || sig.format === 'SIGNATURE_FORMAT_RAW'
    : sig.format === 'SIGNATURE_FORMAT_DER' || sig.format === 'SIGNATURE_FORMAT_RAW';
  if (!formatOk) return `signature format ${sig.format} is not allowed for ${sig.signingAlgorithmSpec}`;
  try {
    const ok = ed
      ? bytes.length === 64 && verify(null, message, key.key, bytes)
      : verify(
          sig.signingAlgorithmSpec === 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384' ? 'sha384' : 'sha256',
          message,
          { key: key.key, dsaEncoding: 'der' },
          bytes,
        );
    return ok ? undefined : 'invalid signature';
  } catch {
    return 'malformed signature';
  }
}
