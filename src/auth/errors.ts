// Authentication's errors: no usable token (401), a token that may not do this (403), a bad setting or ttl.
import { QuillError } from '@quill/canton/errors';

export type AuthErrorCode =
  /** No usable token: missing, invalid, expired, or without a quill role (401). */
  | 'UNAUTHENTICATED'
  /** A valid token that may not do this (403). */
  | 'FORBIDDEN'
  /** Neither a secret nor a JWKS URL: a start-up problem, never a request's. */
  | 'CONFIG'
  /** A bad ttl for a token to issue. */
  | 'BAD_INPUT';

export class AuthError extends QuillError<AuthErrorCode> {
  override readonly name = 'AuthError';
  constructor(code: AuthErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
