// A signature an external key holder posts, checked against the public key registered in the party's signing
// set (never against anything the poster sends), over the 32-byte hash, with noble (independent of the
// OpenSSL signer). ECDSA is accepted in either S and kept low-S DER, as Quill's own signer leaves it.
import type { Signature } from '@quill/canton/ledger';
import {
  ALGORITHMS,
  canonicalSignature,
  type KeyAlgorithm,
  rawPublicKeyFromSpki,
  verifySignature,
} from '../signing/index.ts';
import type { SetKey } from './round.ts';

const BY_SPEC: Readonly<Record<string, KeyAlgorithm>> = {
  SIGNING_KEY_SPEC_EC_CURVE25519: 'ed25519',
  SIGNING_KEY_SPEC_EC_P256: 'p256',
  SIGNING_KEY_SPEC_EC_P384: 'p384',
  SIGNING_KEY_SPEC_EC_SECP256K1: 'secp256k1',
};

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The signature as it is stored and sent (canonical form), or undefined when it does not verify. */
export function verifyPosted(key: SetKey, hash: Uint8Array, posted: Signature): Signature | undefined {
  const algorithm = key.keySpec ? BY_SPEC[key.keySpec] : undefined;
  if (!algorithm || !key.publicKey) return undefined;
  const spec = ALGORITHMS[algorithm];
  if (posted.signingAlgorithmSpec !== spec.signingAlgorithmSpec) return undefined;
  if (posted.format !== spec.signatureFormat) return undefined;
  if (!BASE64.test(posted.signature) || posted.signature.length > 400) return undefined;
  const raw = rawPublicKeyFromSpki(algorithm, Buffer.from(key.publicKey, 'base64'));
  const canonical = canonicalSignature(algorithm, Buffer.from(posted.signature, 'base64'));
  if (!raw || !canonical || !verifySignature(algorithm, raw, hash, canonical)) return undefined;
  return {
    format: spec.signatureFormat,
    signature: Buffer.from(canonical).toString('base64'),
    signedBy: key.fingerprint,
    signingAlgorithmSpec: spec.signingAlgorithmSpec,
  };
}
