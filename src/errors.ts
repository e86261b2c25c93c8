// The wallet's process-level errors: bad input or usage (exit code 2) and a command that ran but failed (exit 1).
// Every boundary's own errors extend the same base (`QuillError` from @quill/canton/errors).
import { QuillError } from '@quill/canton/errors';

/** Bad input or usage: printed as one line on stderr, exit code 2. */
export class UsageError extends QuillError<'USAGE'> {
  override readonly name = 'UsageError';
  constructor(message: string, options?: { cause?: unknown }) {
    super('USAGE', message, options);
  }
}

/** A command that ran but failed: printed as one line on stderr, exit code 1. */
export class CommandFailure extends QuillError<'FAILED'> {
  override readonly name = 'CommandFailure';
  constructor(message: string, options?: { cause?: unknown }) {
    super('FAILED', message, options);
  }
}
