// Key fingerprints exactly as the participant computes them (ledger-json-api.md §4.2):
// "1220" + hex(sha256(0x0000000C || keyBytes)), keyBytes = raw 32-byte key for Ed25519, DER SPKI for EC keys.
import { sha256 } from '@noble/hashes/sha2.js';
import { FINGERPRINT_PATTERN } from '@quill/canton/ledger';
import { type KeyAlgorithm, rawPublicKeyFromSpki } from './algorithms.ts';

/** HashPurpose.PublicKeyFingerprint = 12, as a 4-byte big-endian prefix. */
const PURPOSE_PUBLIC_KEY_FINGERPRINT = Uint8Array.of(0, 0, 0, 12);

export { FINGERPRINT_PATTERN };

export function isFingerprint(value: unknown): value is string {
  return typeof value === 'string' && FINGERPRINT_PATTERN.test(value);
}

/** Fingerprint of a public key given as DER SubjectPublicKeyInfo; throws if the SPKI is not of `algorithm`. */
export function fingerprintOf(algorithm: KeyAlgorithm, spki: Uint8Array): string {
  let keyBytes = spki;
  if (algorithm === 'ed25519') {
    const raw = rawPublicKeyFromSpki(algorithm, spki);
    if (!raw) throw new Error('not an Ed25519 SubjectPublicKeyInfo');
    keyBytes = raw; // the participant's backwards-compatible rule: raw key even when sent as SPKI
  } else if (!rawPublicKeyFromSpki(algorithm, spki)) {
    throw new Error(`not a ${algorithm} SubjectPublicKeyInfo with an uncompressed point`);
  }
  const input = new Uint8Array(PURPOSE_PUBLIC_KEY_FINGERPRINT.length + keyBytes.length);
  input.set(PURPOSE_PUBLIC_KEY_FINGERPRINT, 0);
  input.set(keyBytes, PURPOSE_PUBLIC_KEY_FINGERPRINT.length);
  return `1220${Buffer.from(sha256(input)).toString('hex')}`;
}
