// Key fingerprints exactly as the participant computes them (ledger-json-api.md §4.2):
// "1220" + hex(sha256(0x0000000C || keyBytes)), keyBytes = raw 32-byte key for Ed25519, DER SPKI for EC keys.
import { FINGERPRINT_PATTERN } from '@quill/canton/ledger';
import { keyFingerprint } from '@quill/canton/topology';
import { ALGORITHMS, type KeyAlgorithm, rawPublicKeyFromSpki } from './algorithms.ts';

export { FINGERPRINT_PATTERN };

export function isFingerprint(value: unknown): value is string {
  return typeof value === 'string' && FINGERPRINT_PATTERN.test(value);
}

/**
 * Fingerprint of a public key given as DER SubjectPublicKeyInfo; throws if the SPKI is not of `algorithm`. The
 * hashing is the topology codec's (`keyFingerprint`), the one rule Quill has for it.
 */
export function fingerprintOf(algorithm: KeyAlgorithm, spki: Uint8Array): string {
  if (!rawPublicKeyFromSpki(algorithm, spki)) {
    throw new Error(
      algorithm === 'ed25519'
        ? 'not an Ed25519 SubjectPublicKeyInfo'
        : `not a ${algorithm} SubjectPublicKeyInfo with an uncompressed point`,
    );
  }
  return keyFingerprint(spki, ALGORITHMS[algorithm].keySpec);
}
