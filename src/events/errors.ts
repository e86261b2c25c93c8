// The errors of what Quill tells others: the event log (Redis away, a malformed event id) and webhooks.
import { QuillError } from '@quill/canton/errors';

export class EventLogError extends QuillError<'UNAVAILABLE' | 'INVALID_ID'> {
  override readonly name = 'EventLogError';
}

export class WebhookError extends QuillError<'NOT_FOUND' | 'UNAVAILABLE'> {
  override readonly name = 'WebhookError';
}
