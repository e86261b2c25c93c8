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
  | 'CORRUPT'
  /** Keys Quill does not hold must first sign the topology (proof of possession): their hash is in the message. */
  | 'SIGNATURES_NEEDED'
  /** A host name that LEDGER_HOSTS does not configure. */
  | 'UNKNOWN_HOST'
  /** Allocated, but not yet hosted everywhere within the wait: calling again resumes (same bytes, same party). */
  | 'ALLOCATION_PENDING'
  /** A topology change needs the participant's admin API, and none is configured. */
  | 'ADMIN_API_UNAVAILABLE'
  /** The namespace key must sign this change and is not in a key backend now (kept cold). */
  | 'NAMESPACE_KEY_OFFLINE'
  /** The participant's topology of the party is not what Quill last wrote (changed elsewhere, or meanwhile). */
  | 'TOPOLOGY_CHANGED';

export class PartyError extends QuillError<PartyErrorCode> {
  override readonly name = 'PartyError';
  constructor(code: PartyErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
