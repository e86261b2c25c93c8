// The pipeline's errors: a refusal at accept (an HTTP status and a stable code), and a step stopped because its
// job lock was lost.
import { QuillError } from '@quill/canton/errors';

export type RefusalStatus = 400 | 403 | 404 | 409 | 413 | 422 | 502 | 503;

/** A request Quill refuses; nothing was signed for it. `message` is one line and holds no secret. */
export class SubmissionRefused extends QuillError {
  override readonly name = 'SubmissionRefused';
  constructor(
    readonly status: RefusalStatus,
    code: string,
    message: string,
  ) {
    super(code, message);
  }
}

export class Aborted extends Error {
  override readonly name = 'Aborted';
}
