// The one error type of the signing seam (every backend, the key catalog and the verifying signer). Messages
// name files, slots and fingerprints, never secrets or PINs.
import { QuillError } from '@quill/canton/errors';

export type SigningErrorCode =
  /** Bad caller input (unknown algorithm or backend, malformed fingerprint, bad label, bad message length). */
  | 'BAD_INPUT'
  /** Bad configuration: no passphrase, a PKCS#11 module that does not load, a backend that is not configured. */
  | 'CONFIG'
  | 'NOT_FOUND'
  /** The key exists but is disabled: it never signs again. */
  | 'DISABLED'
  /** The passphrase does not open the file (or the file's kdf fields were altered). */
  | 'WRONG_PASSPHRASE'
  /** The token refused the PIN. */
  | 'WRONG_PIN'
  /** The file (or a key's public metadata) was altered, or the token holds something else under the key's id. */
  | 'TAMPERED'
  /** The file cannot be read (permissions, I/O). */
  | 'UNREADABLE'
  /** The token is missing, or a session failed: try again once it is back. */
  | 'UNAVAILABLE'
  /** The token lacks a mechanism the algorithm needs (a token without EdDSA, for Ed25519 keys only). */
  | 'UNSUPPORTED'
  /** A signature failed its own verification (never handed out). */
  | 'SIGNING_FAILED';

export class SigningError extends QuillError<SigningErrorCode> {
  override readonly name = 'SigningError';
  constructor(
    code: SigningErrorCode,
    message: string,
    /** The key file concerned, when there is one. */
    readonly file?: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
