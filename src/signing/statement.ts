// Signatures over Quill's own statements (an audit checkpoint), not the ledger's: the message is a
// domain-separated text, never the 32-byte hash or 34-byte multihash the ledger has a party sign, so a statement's
// signature can never pass for a transaction's (`messageProblem` keeps the party signer to those two). Verified
// with noble before it leaves, as every signature of the party signer is; checked again by `verifyStatement`.
import {
  ALGORITHMS,
  canonicalSignature,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  rawPublicKeyFromSpki,
  spkiOf,
  verifySignature,
} from './algorithms.ts';
import { SigningError } from './errors.ts';
import { fingerprintOf } from './fingerprint.ts';
import type { KeyView, RawSigner } from './keys.ts';
import { messageProblem } from './signer.ts';

/** A public key as a verifier needs it: its algorithm and DER SubjectPublicKeyInfo (standard base64). */
export type PublicKeyView = Pick<KeyView, 'fingerprint' | 'algorithm' | 'publicKey'>;

/** Signs `message` (a statement, not a ledger payload) with an active key; the signature is verified first. */
export async function signStatement(
  backend: RawSigner,
  fingerprint: string,
  message: Uint8Array,
): Promise<{ view: KeyView; signature: Uint8Array }> {
  if (messageProblem(message) === undefined)
    throw new SigningError('BAD_INPUT', 'a statement must not look like a ledger hash');
  const { view, signature } = await backend.signBytes(fingerprint, message);
  if (view.status !== 'active') throw new SigningError('DISABLED', `key ${view.fingerprint} is disabled`);
  const canonical = canonicalSignature(view.algorithm, signature);
  if (!canonical || !verifyStatement(view, message, canonical))
    throw new SigningError(
      'SIGNING_FAILED',
      `signing with key ${view.fingerprint} (${view.backend}) failed its own verification`,
    );
  return { view, signature: canonical };
}

/** Whether `signature` is `key`'s over `message` (Ed25519 strict, ECDSA low-S DER over the curve's hash). */
export function verifyStatement(key: PublicKeyView, message: Uint8Array, signature: Uint8Array): boolean {
  const raw = rawPublicKeyFromSpki(key.algorithm, Buffer.from(key.publicKey, 'base64'));
  return raw !== undefined && verifySignature(key.algorithm, raw, message, signature);
}

/**
 * A public key given by hand: DER SPKI (PEM, base64 or hex), a raw 32-byte Ed25519 key (base64 or hex), or the
 * JSON of `quill keys show --json`. Throws SigningError BAD_INPUT when it is none of these.
 */
export function parsePublicKey(text: string): PublicKeyView {
  const t = text.trim();
  if (t.startsWith('{')) {
    let v: { publicKey?: unknown };
    try {
      v = JSON.parse(t);
    } catch {
      throw new SigningError('BAD_INPUT', 'not a public key: JSON that does not parse');
    }
    if (typeof v.publicKey !== 'string')
      throw new SigningError('BAD_INPUT', 'not a public key: JSON without a "publicKey"');
    return parsePublicKey(v.publicKey);
  }
  const body = t.replace(/-----(BEGIN|END) PUBLIC KEY-----/g, '').replace(/\s+/g, '');
  const bytes = /^([0-9a-fA-F]{2})+$/.test(body)
    ? Buffer.from(body, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(body)
      ? Buffer.from(body, 'base64')
      : undefined;
  if (!bytes || bytes.length === 0)
    throw new SigningError('BAD_INPUT', 'not a public key: expected PEM, base64 or hex');
  const spki = bytes.length === ALGORITHMS.ed25519.rawPublicKeyLength ? spkiOf('ed25519', bytes) : bytes;
  const algorithm = KEY_ALGORITHMS.find((a: KeyAlgorithm) => rawPublicKeyFromSpki(a, spki) !== undefined);
  if (!algorithm)
    throw new SigningError(
      'BAD_INPUT',
      `not a public key of ${KEY_ALGORITHMS.join(', ')} (a DER SubjectPublicKeyInfo or a raw Ed25519 key)`,
    );
  return {
    algorithm,
    publicKey: Buffer.from(spki).toString('base64'),
    fingerprint: fingerprintOf(algorithm, spki),
  };
}
