// Public surface of the submission pipeline: record, store, accept path, worker, waiter, metrics.

export type { PolicyPort } from './accept.ts';
export {
  type AcceptDeps,
  type AcceptPorts,
  type AcceptResult,
  acceptSubmission,
  type InspectedTransaction,
  parseHash,
  type SubmissionRequest,
} from './accept.ts';
export {
  type ApprovalDeps,
  type ApprovalInput,
  type ApprovalResult,
  decideApproval,
  listAwaiting,
} from './approvals.ts';
export {
  backoffDelay,
  type Classification,
  classifyError,
  deduplicationSeconds,
} from './classify.ts';
export { commitDeadline, type Decision, type DecisionConfig, decide } from './decide.ts';
export { SubmissionRefused } from './errors.ts';
export {
  type ExecutorConfig,
  type ExecutorDeps,
  executeStep,
  recentLedgerEnd,
  type StepResult,
} from './executor.ts';
export { inspectPrepared } from './inspect/inspect.ts';
export { InspectPool, type InspectPoolOptions } from './inspect/pool.ts';
export { ledgerPort } from './ledger.ts';
export { createMetrics, type PipelineMetrics, watchBacklog } from './metrics.ts';
export {
  closeWorker,
  createQueue,
  enqueue,
  type JobData,
  jobIdFor,
  requeueStranded,
  startWorker,
} from './queue.ts';
export { type ExecuteRequest, type LedgerPort, type ReconcileResult, reconcile } from './reconcile.ts';
export * from './record.ts';
export {
  decodeOutboxEntry,
  newSubmissionId,
  Outbox,
  type OutboxEntry,
  type StoredSubmission,
  SubmissionStore,
  type VersionedRecord,
} from './store/index.ts';
export { OutcomeWaiter } from './waiter.ts';
