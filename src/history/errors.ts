// The history index's errors: Redis away, or a page cursor it did not hand out.
import { QuillError } from '@quill/canton/errors';

export type HistoryErrorCode = 'UNAVAILABLE' | 'INVALID_CURSOR';

export class HistoryError extends QuillError<HistoryErrorCode> {
  override readonly name = 'HistoryError';
}
