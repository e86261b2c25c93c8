// Errors of party onboarding and the party registry. Messages name parties and keys, never secrets.
import { QuillError } from '@quill/canton/errors';

export type PartyErrorCode =
  /** Bad caller input: hint, fingerprint, synchronizer id. */
  | 'BAD_INPUT'
  /** The key is disabled (or otherwise unusable for onboarding). */
  | 'KEY_DISABLED'
  /** The participant answered with a party id, fingerprint or hash that is not ours: nothing was signed. */
  | 'MISMATCH'
  /** No synchronizer was given and none could be found. */
  | 'NO_SYNCHRONIZER'
  /** The registry already maps this party to another key or synchronizer. */
  | 'CONFLICT'
  /** A registry file is unreadable or malformed. */
  | 'CORRUPT';

export class PartyError extends QuillError<PartyErrorCode> {
  override readonly name = 'PartyError';
  constructor(code: PartyErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
