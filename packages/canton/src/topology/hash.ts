// Hashes and fingerprints of topology transactions and keys. The transaction and multi-hash live in
// ../transaction/topology.ts (see there why); this file adds the key fingerprint and speaks TopologyError.
import { TransactionError } from '../transaction/errors.ts';
import {
  topologyMultiHash as multiHash,
  multihashSha256,
  topologyTransactionHash as txHash,
} from '../transaction/topology.ts';
import { invalid } from './errors.ts';
import type { KeySpec } from './types.ts';

/** HashPurpose.PublicKeyFingerprint (crypto/HashPurpose.scala). */
const PUBLIC_KEY_FINGERPRINT = 12;

/** The DER SubjectPublicKeyInfo header of an Ed25519 key (RFC 8410): SEQUENCE, AlgorithmIdentifier 1.3.101.112, BIT STRING of 33. */
const ED25519_SPKI_PREFIX = Uint8Array.from([
  0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00,
]);

/** Lowercase hex, the form Canton prints fingerprints and hashes in. */
export function hex(bytes: Uint8Array): string {
  if (!(bytes instanceof Uint8Array)) invalid('hex needs bytes');
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** The 34-byte hash of one serialized topology transaction (HashPurpose 11, TopologyTransaction.scala). */
export function topologyTransactionHash(bytes: Uint8Array): Uint8Array {
  if (!(bytes instanceof Uint8Array)) invalid('a topology transaction must be bytes');
  return txHash(bytes);
}

/** The 34-byte multi-hash over serialized topology transactions (HashPurpose 55, TopologyTransactionSignature.scala). */
export function topologyMultiHash(transactions: Uint8Array[]): Uint8Array {
  try {
    return multiHash(transactions);
  } catch (err) {
    if (err instanceof TransactionError) invalid(err.message);
    throw err;
  }
}

/**
 * A signing key's Canton fingerprint, `1220` + hex. Ed25519 keys are hashed over the raw 32-byte key even
 * when sent as SPKI, every other key spec over the SPKI bytes as sent (crypto/Signing.scala
 * `getDataForFingerprint`, crypto/CryptoKeys.scala `Fingerprint.create`).
 */
export function keyFingerprint(spki: Uint8Array, keySpec: KeySpec): string {
  if (!(spki instanceof Uint8Array)) invalid('a public key must be bytes');
  const problem = spkiProblem(spki, keySpec);
  if (problem) invalid(problem);
  const data =
    keySpec === 'SIGNING_KEY_SPEC_EC_CURVE25519' ? spki.subarray(ED25519_SPKI_PREFIX.length) : spki;
  return hex(multihashSha256(PUBLIC_KEY_FINGERPRINT, data));
}

/**
 * Why these bytes cannot be a DER SPKI of this key spec, or undefined. Ed25519 is checked exactly (the
 * fingerprint cuts the raw key out of it); for EC keys only the outer DER SEQUENCE is checked, as the
 * fingerprint covers whatever bytes are sent.
 */
export function spkiProblem(spki: Uint8Array, keySpec: KeySpec): string | undefined {
  if (keySpec === 'SIGNING_KEY_SPEC_EC_CURVE25519') {
    if (spki.length !== 44 || !ED25519_SPKI_PREFIX.every((b, i) => spki[i] === b)) {
      return `an Ed25519 key must be the 44-byte SubjectPublicKeyInfo 302a300506032b6570032100 + 32 key bytes (got ${spki.length} bytes)`;
    }
    return undefined;
  }
  if (spki.length < 2 || spki[0] !== 0x30)
    return 'an EC public key must be a DER SubjectPublicKeyInfo SEQUENCE';
  const first = spki[1]!;
  let len = first;
  let header = 2;
  if (first & 0x80) {
    const n = first & 0x7f;
    if (n === 0 || n > 2 || spki.length < 2 + n) return 'an EC public key has a bad DER length';
    len = 0;
    for (let i = 0; i < n; i++) len = len * 256 + spki[2 + i]!;
    header = 2 + n;
  }
  if (header + len !== spki.length) return 'an EC public key DER length does not match its size';
  return undefined;
}
