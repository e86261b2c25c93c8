// The Signer seam: callers (submissions, onboarding, API) ask a Signer for a wire `Signature` by key
// fingerprint and never see key material. LocalSigner signs with the encrypted key store.
//
// Extension point for a KMS/HSM driver: implement `Signer` (sign remotely, return the same wire shape,
// with `signedBy` = the participant fingerprint of the key) and `KeyCatalog` (public views, so onboarding
// can send the public key). Wire it where LocalSigner/KeyStore are constructed; no caller changes.
import type { PartySignatures, Signature } from '../ledger/index.ts';
import { ALGORITHMS } from './algorithms.ts';
import { KeyStoreError } from './errors.ts';
import type { KeyStore, KeyView } from './keystore.ts';

export interface Signer {
  /**
   * Signs `message` with the key `keyFingerprint`: a raw 32-byte transaction hash, or the 34-byte
   * topology multi-hash (`0x12 0x20` + 32 bytes) when onboarding. The result has been verified.
   * Throws KeyStoreError: NOT_FOUND, DISABLED, BAD_INPUT, WRONG_PASSPHRASE, TAMPERED, UNREADABLE.
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

export class LocalSigner implements Signer {
  constructor(private readonly keys: KeyStore) {}

  async sign(keyFingerprint: string, message: Uint8Array): Promise<Signature> {
    const problem = messageProblem(message);
    if (problem) throw new KeyStoreError('BAD_INPUT', problem);
    const { view, key } = await this.keys.signingKey(keyFingerprint);
    let bytes: Uint8Array;
    try {
      bytes = key.sign(message);
    } catch {
      throw new KeyStoreError(
        'SIGNING_FAILED',
        `signing with key ${view.fingerprint} failed its own verification`,
      );
    }
    const spec = ALGORITHMS[view.algorithm];
    return {
      format: spec.signatureFormat,
      signature: Buffer.from(bytes).toString('base64'),
      signedBy: view.fingerprint,
      signingAlgorithmSpec: spec.signingAlgorithmSpec,
    };
  }
}

/** `PartySignatures` for the single submitting party (the only case the participant supports). */
export function partySignatures(party: string, signatures: Signature[]): PartySignatures {
  if (typeof party !== 'string' || party.length === 0)
    throw new KeyStoreError('BAD_INPUT', 'party must be non-empty');
  if (signatures.length === 0) throw new KeyStoreError('BAD_INPUT', 'at least one signature is needed');
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
