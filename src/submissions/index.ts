// Public surface of the submission pipeline: record, store, accept path, worker, waiter, metrics.
export { acceptSubmission } from './accept/accept.ts';
export { parseHash } from './accept/checks.ts';
export { inspectPrepared, type ParsedBody, type StoredPreview } from './accept/inspect.ts';
export { Inspector, type InspectorOptions } from './accept/inspector.ts';
export { InspectPool, type InspectPoolOptions } from './accept/pool.ts';
export type {
  AcceptDeps,
  AcceptPorts,
  AcceptResult,
  InspectedTransaction,
  IntentCheck,
  PolicyPort,
  SubmissionRequest,
} from './accept/types.ts';
export {
  type ApprovalDeps,
  type ApprovalInput,
  type ApprovalResult,
  type AwaitingReview,
  decideApproval,
  decisionRefusal,
  expireIfOverdue,
  expireOverdueApprovals,
  listAwaiting,
  reviewAwaiting,
} from './approvals.ts';
export {
  backoffDelay,
  type Classification,
  classifyError,
  deduplicationSeconds,
} from './classify.ts';
export { type CommitDeadline, commitDeadline } from './deadline.ts';
export { type Decision, type DecisionConfig, decide, mayStillCommit, recordDeadline } from './decide.ts';
export { SubmissionRefused } from './errors.ts';
export {
  type ExecutorConfig,
  type ExecutorDeps,
  executeStep,
  recentLedgerEnd,
  type StepResult,
} from './executor.ts';
export { checkSignatures, type SignatureCheck, type SignaturePorts } from './executor-signatures.ts';
export { type Explanation, explain, spentInputs } from './explain.ts';
export { ledgerPort } from './ledger.ts';
export { createMetrics, type PipelineMetrics, watchBacklog } from './metrics.ts';
export { expireNow, type OperatorResult, searchNow } from './operator.ts';
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
  awaitedKeys,
  keyName,
  type SetKey,
  type SigningSet,
  signedCount,
  usesRound,
} from './round.ts';
export {
  addToRound,
  expireOverdueRounds,
  expireRoundIfOverdue,
  type PostedSignature,
  postSignature,
  type SignatureDeps,
  type SignatureRequest,
  type SignatureResult,
  signatureRequest,
} from './signatures.ts';
export {
  compareIds,
  decodeOutboxEntry,
  dropRecords,
  newSubmissionId,
  Outbox,
  type OutboxEntry,
  outboxStats,
  type StoredSubmission,
  SubmissionStore,
  trimOutbox,
  type VersionedRecord,
} from './store/index.ts';
export { type TimelineStep, timeline } from './timeline.ts';
export { contextFrom, currentTraceContext, inSpan, type TraceContext } from './tracing.ts';
export { OutcomeWaiter } from './waiter.ts';
