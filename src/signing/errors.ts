// One error type for the key store and signer. Messages name files and fingerprints, never secrets.
import { QuillError } from '../errors.ts';

export type KeyStoreErrorCode =
  /** Bad caller input (unknown algorithm, malformed fingerprint, bad label, bad message length). */
  | 'BAD_INPUT'
  /** No passphrase, or both passphrase variables, or an unreadable passphrase file. */
  | 'CONFIG'
  | 'NOT_FOUND'
  /** The key exists but is disabled: it never signs again. */
  | 'DISABLED'
  /** The passphrase does not open the file (or the file's kdf fields were altered). */
  | 'WRONG_PASSPHRASE'
  /** The file was altered: structure, canonical form, name, metadata or ciphertext. */
  | 'TAMPERED'
  /** The file cannot be read (permissions, I/O). */
  | 'UNREADABLE'
  /** A signature failed its own verification (never handed out). */
  | 'SIGNING_FAILED';

export class KeyStoreError extends QuillError<KeyStoreErrorCode> {
  override readonly name = 'KeyStoreError';
  constructor(
    code: KeyStoreErrorCode,
    message: string,
    /** The key file concerned, when there is one. */
    readonly file?: string,
    options?: { cause?: unknown },
  ) {
    super(code, message, options);
  }
}
