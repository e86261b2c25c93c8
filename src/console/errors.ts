// The console's errors: a page that cannot be shown, a sign-in link or an OpenID sign-in refused.
import { QuillError } from '@quill/canton/errors';

export class LinkError extends QuillError<'INVALID_LINK' | 'USED_LINK'> {
  override readonly name = 'LinkError';
}

export class OidcError extends QuillError<'OIDC_REFUSED' | 'OIDC_UNAVAILABLE'> {
  override readonly name = 'OidcError';
}

/** A page that cannot be shown: rendered as an HTML page with this status and message. */
export class PageError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 503,
    message: string,
  ) {
    super(message);
  }
}
