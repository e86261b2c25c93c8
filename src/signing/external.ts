// Keys Quill does not hold: an external signer's public key (DER SPKI with its key spec), and the check of a
// signature its holder posts. The same independent verifier as `verifyingSigner`, with the same canonical forms,
// so a signature counted here is one the participant accepts.
import type { Signature } from '@quill/canton/ledger';
import {
  ALGORITHMS,
  canonicalSignature,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type KeySpec,
  rawPublicKeyFromSpki,
  verifySignature,
} from './algorithms.ts';
import { fingerprintOf } from './fingerprint.ts';

export interface ExternalKey {
  fingerprint: string;
  algorithm: KeyAlgorithm;
  keySpec: KeySpec;
  /** DER SPKI, standard base64 (as given, re-encoded). */
  publicKey: string;
  /**
   * The signature in the canonical form Quill sends (ECDSA: low-S DER), when it is this key's valid signature
   * over `message`; otherwise `{ problem }`, one line that never repeats the signature.
   */
  check(signature: Signature, message: Uint8Array): { signature: Signature } | { problem: string };
}

export function algorithmOfSpec(keySpec: string): KeyAlgorithm | undefined {
  return KEY_ALGORITHMS.find((a) => ALGORITHMS[a].keySpec === keySpec);
}

/** Reads an external public key; throws an Error with a one-line reason (never the key bytes) when unusable. */
export function externalKey(publicKeyBase64: string, keySpec: string): ExternalKey {
  const algorithm = algorithmOfSpec(keySpec);
  if (!algorithm) throw new Error(`unsupported key spec ${String(keySpec).slice(0, 40)}`);
  if (typeof publicKeyBase64 !== 'string' || !/^[A-Za-z0-9+/]+={0,2}$/.test(publicKeyBase64)) {
    throw new Error('the public key must be standard base64 (DER SubjectPublicKeyInfo)');
  }
  const spki = new Uint8Array(Buffer.from(publicKeyBase64, 'base64'));
  const raw = rawPublicKeyFromSpki(algorithm, spki);
  if (!raw) throw new Error(`the public key is not a ${keySpec} DER SubjectPublicKeyInfo`);
  const fingerprint = fingerprintOf(algorithm, spki);
  // Plain verification, no precomputed table: an external key verifies a few signatures, not thousands.
  const verify = (message: Uint8Array, signature: Uint8Array) =>
    verifySignature(algorithm, raw, message, signature);
  const spec = ALGORITHMS[algorithm];
  return {
    fingerprint,
    algorithm,
    keySpec: spec.keySpec,
    publicKey: Buffer.from(spki).toString('base64'),
    check(signature, message) {
      const refuse = (problem: string) => ({ problem });
      if (signature.signedBy !== fingerprint)
        return refuse(`signed by ${String(signature.signedBy).slice(0, 80)}, not ${fingerprint}`);
      if (signature.signingAlgorithmSpec !== spec.signingAlgorithmSpec) {
        return refuse(
          `a ${keySpec} key signs with ${spec.signingAlgorithmSpec}, not ${String(signature.signingAlgorithmSpec).slice(0, 60)}`,
        );
      }
      if (signature.format !== spec.signatureFormat) {
        return refuse(
          `a ${keySpec} signature has format ${spec.signatureFormat}, not ${String(signature.format).slice(0, 40)}`,
        );
      }
      if (
        typeof signature.signature !== 'string' ||
        signature.signature.length > 400 ||
        !/^[A-Za-z0-9+/]*={0,2}$/.test(signature.signature)
      ) {
        return refuse('the signature is not standard base64');
      }
      const canonical = canonicalSignature(
        algorithm,
        new Uint8Array(Buffer.from(signature.signature, 'base64')),
      );
      if (!canonical || !verify(message, canonical)) return refuse('the signature does not verify');
      return { signature: { ...signature, signature: Buffer.from(canonical).toString('base64') } };
    },
  };
}
