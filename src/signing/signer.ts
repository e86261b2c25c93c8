// The Signer seam, shaped like viem's accounts: callers (submissions, onboarding, API) ask a `Signer` for a wire
// `Signature` by key fingerprint and never see key material. A backend (encrypted files, a PKCS#11 token, later
// a cloud KMS) only produces raw signature bytes (`RawSigner`); `verifyingSigner` puts every one of them in
// canonical form and verifies it with an implementation other than OpenSSL's (algorithms.ts keyVerifier) before
// it leaves, whatever the backend, so a faulty token or driver can never hand out a signature the participant
// would refuse.
import type { PartySignatures, Signature } from '@quill/canton/ledger';
import {
  ALGORITHMS,
  canonicalSignature,
  type KeyVerifier,
  keyVerifier,
  rawPublicKeyFromSpki,
} from './algorithms.ts';
import { SigningError } from './errors.ts';
import type { KeyView, RawSigner } from './keys.ts';

export type { RawSigner };

export interface Signer {
  /**
   * Signs `message` with the key `keyFingerprint`: a raw 32-byte transaction hash, or the 34-byte
   * topology multi-hash (`0x12 0x20` + 32 bytes) when onboarding. The result has been verified.
   * Throws SigningError: NOT_FOUND, DISABLED, BAD_INPUT, SIGNING_FAILED, or the backend's own codes
   * (WRONG_PASSPHRASE, TAMPERED, UNREADABLE, WRONG_PIN, UNAVAILABLE, UNSUPPORTED).
   */
  sign(keyFingerprint: string, message: Uint8Array): Promise<Signature>;
}

/** Only the two payloads the ledger asks for are signed: this is not a general signing oracle. */
export function messageProblem(message: Uint8Array): string | undefined {
  if (!(message instanceof Uint8Array)) return 'the message to sign must be bytes';
  if (message.length === 32) return undefined;
  if (message.length === 34 && message[0] === 0x12 && message[1] === 0x20) return undefined;
  return 'only a 32-byte hash or a 34-byte sha2-256 multihash is signed';
}

/**
 * The one way a signature leaves Quill: the message is checked, the backend signs, ECDSA signatures are put in
 * low-S DER form, and the result is verified against the key's public key (one verifier per key, its table
 * built once) before it is returned.
 */
export function verifyingSigner(backend: RawSigner): Signer {
  const verifiers = new Map<string, Promise<KeyVerifier>>();
  const verifierOf = (view: KeyView): Promise<KeyVerifier> => {
    const id = `${view.fingerprint}:${view.publicKey}`;
    let verify = verifiers.get(id);
    if (!verify) {
      const raw = rawPublicKeyFromSpki(view.algorithm, Buffer.from(view.publicKey, 'base64'));
      verify = raw ? keyVerifier(view.algorithm, raw) : Promise.resolve(() => false);
      verifiers.set(id, verify);
    }
    return verify;
  };
  return {
    async sign(keyFingerprint, message) {
      const problem = messageProblem(message);
      if (problem) throw new SigningError('BAD_INPUT', problem);
      const { view, signature } = await backend.signBytes(keyFingerprint, message);
      if (view.status !== 'active') throw new SigningError('DISABLED', `key ${view.fingerprint} is disabled`);
      const canonical = canonicalSignature(view.algorithm, signature);
      if (!canonical || !(await verifierOf(view))(message, canonical)) {
        throw new SigningError(
          'SIGNING_FAILED',
          `signing with key ${view.fingerprint} (${view.backend}) failed its own verification; nothing was returned`,
        );
      }
      const spec = ALGORITHMS[view.algorithm];
      return {
        format: spec.signatureFormat,
        signature: Buffer.from(canonical).toString('base64'),
        signedBy: view.fingerprint,
        signingAlgorithmSpec: spec.signingAlgorithmSpec,
      };
    },
  };
}

/** `PartySignatures` for the single submitting party (the only case the participant supports). */
export function partySignatures(party: string, signatures: Signature[]): PartySignatures {
  if (typeof party !== 'string' || party.length === 0)
    throw new SigningError('BAD_INPUT', 'party must be non-empty');
  if (signatures.length === 0) throw new SigningError('BAD_INPUT', 'at least one signature is needed');
  return { signatures: [{ party, signatures: [...signatures] }] };
}

/** The `publicKey` of generate-topology for a key: DER SPKI with its key spec. */
export function signingPublicKey(view: Pick<KeyView, 'publicKey' | 'keySpec'>): {
  format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO';
  keyData: string;
  keySpec: KeyView['keySpec'];
} {
  return {
    format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
    keyData: view.publicKey,
    keySpec: view.keySpec,
  };
}
