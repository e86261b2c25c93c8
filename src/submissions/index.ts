// Public surface of the submission pipeline: record, store, accept path, worker, waiter, metrics.

export type { PolicyPort } from './accept.ts';
export {
  type AcceptDeps,
  type AcceptPorts,
  type AcceptResult,
  acceptSubmission,
  type InspectedTransaction,
  idempotencyScope,
  type Principal,
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
  auditCanonical,
  auditHash,
  type ChainEntry,
  type ChainVerdict,
  GENESIS,
  verifyAuditChain,
} from './audit.ts';
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
export { createMetrics, type PipelineMetrics, watchBacklog } from './metrics.ts';
export { PolicyStore, type PolicyVersion } from './policy-store.ts';
export {
  closeWorker,
  createQueue,
  enqueue,
  type JobData,
  jobIdFor,
  type RedisTarget,
  redisConnection,
  requeueStranded,
  startWorker,
} from './queue.ts';
export { type ExecuteRequest, type LedgerPort, type ReconcileResult, reconcile } from './reconcile.ts';
export * from './record.ts';
export { type LuaScript, runScript } from './scripts.ts';
export {
  type AuditEntry,
  newSubmissionId,
  type StoredSubmission,
  StoreError,
  type StoreErrorCode,
  SubmissionStore,
  type VersionedRecord,
} from './store.ts';
export { storeVelocity } from './velocity.ts';
export { OutcomeWaiter } from './waiter.ts';
