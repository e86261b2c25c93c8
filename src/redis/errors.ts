// The failures of a Redis-backed store: Redis away (retry later), a write that lost every compare-and-set, a
// missing or unreadable value, a cursor this store did not hand out. Every store of the wallet throws these.
import { QuillError } from '@quill/canton/errors';

export type StoreErrorCode =
  /** Redis refused or failed a command, or the connection is down: try again later. */
  | 'UNAVAILABLE'
  /** Too many concurrent writers on one record. */
  | 'CONFLICT'
  | 'NOT_FOUND'
  /** An index points at a record that is not there, or a stored value cannot be read. */
  | 'CORRUPT'
  /** A list cursor this store did not hand out. */
  | 'INVALID_CURSOR';

export class StoreError extends QuillError<StoreErrorCode> {
  override readonly name = 'StoreError';
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Wraps whatever a Redis command threw (connection closed, retries spent, an error reply). */
export function redisFailed(err: unknown): never {
  if (err instanceof StoreError) throw err;
  throw new StoreError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
}
