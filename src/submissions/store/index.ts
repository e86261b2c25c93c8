// The submission store: records and their indexes (records.ts), the outbox (outbox.ts) and disabled-key flags
// (key-flags.ts), all in Redis under one prefix.
export { KeyFlags } from './key-flags.ts';
export { decodeOutboxEntry, Outbox, type OutboxEntry } from './outbox.ts';
export {
  type IdempotencyEntry,
  type ListQuery,
  newSubmissionId,
  type StoredSubmission,
  SubmissionStore,
  type VersionedRecord,
} from './records.ts';
export { compareIds, dropRecords, outboxStats, trimOutbox } from './retention.ts';
