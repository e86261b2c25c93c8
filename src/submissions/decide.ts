// What to do next with a submission, decided from the record alone: no I/O, so every rule of the state machine
// can be tested as a table (test/unit/submissions/decide.test.ts). The executor carries the decision out.
import { type CommitDeadline, commitDeadline } from './deadline.ts';
import { type Attempt, type ErrorInfo, isTerminal, type SubmissionRecord } from './record.ts';

export interface DecisionConfig {
  maxAttempts: number;
  /** The synchronizer's preparation time tolerance: bounds records that have no `canCommitUntil`. */
  preparationToleranceMs: number;
  /** How long past `canCommitUntil` an unknown outcome is still watched (clock skew, ingestion lag). */
  settleGraceMs: number;
}

export type Decision =
  /** Final already (a job run again after a crash or stall): nothing to do. */
  | { kind: 'done' }
  /** Send a new attempt. */
  | { kind: 'attempt' }
  /** Whether the key was disabled decides between `attempt` and not sending: ask again with `keyDisabled`. */
  | { kind: 'needs-key-status' }
  /** An attempt may still commit: search the ledger for it, send nothing, look again later (until `deadline`). */
  | { kind: 'watch'; deadline: number }
  /** Nothing can commit any more: search once more (if anything was sent), then expire with this error. */
  | { kind: 'expire'; error: ErrorInfo }
  /** Quill will not send it and nothing sent can commit: reject with this error. */
  | { kind: 'reject'; error: ErrorInfo };

/** Outcomes after which the transaction may be, or may yet become, committed on the ledger. */
const MAY_COMMIT: ReadonlySet<Attempt['outcome']> = new Set(['pending', 'ambiguous', 'duplicate']);

/** Whether an attempt already made may be, or may yet become, committed on the ledger. */
export function mayStillCommit(rec: SubmissionRecord): boolean {
  return rec.attempts.some((a) => MAY_COMMIT.has(a.outcome));
}

/** When the ledger stops accepting this record's transaction, and the code to expire it with after that. */
export function recordDeadline(rec: SubmissionRecord, config: DecisionConfig): CommitDeadline {
  const maxRecordTime = rec.maxRecordTime ? Date.parse(rec.maxRecordTime) : undefined;
  if (rec.canCommitUntil) {
    const at = Date.parse(rec.canCommitUntil);
    return {
      at,
      code: at === maxRecordTime ? 'MAX_RECORD_TIME_PASSED' : 'PREPARATION_TIME_TOLERANCE_PASSED',
    };
  }
  // Records from before `canCommitUntil` existed: preparation happened before acceptance, so this bound is later.
  return commitDeadline(
    { maxRecordTime, preparedAt: Date.parse(rec.createdAt) },
    config.preparationToleranceMs,
  ) as CommitDeadline;
}

export function decide(input: {
  record: SubmissionRecord;
  now: number;
  config: DecisionConfig;
  /** From the store; undefined until `needs-key-status` asks for it (it costs a round trip). */
  keyDisabled?: boolean;
}): Decision {
  const { record: rec, now, config } = input;
  if (isTerminal(rec.status)) return { kind: 'done' };
  // An attempt whose answer never came may still commit until the deadline (with V2 nothing else bounds
  // it): such a submission is watched, never called expired, until the ledger can no longer accept it.
  const mayCommit = mayStillCommit(rec);
  const deadline = recordDeadline(rec, config);
  if (now > deadline.at) {
    if (mayCommit && now <= deadline.at + config.settleGraceMs)
      return { kind: 'watch', deadline: deadline.at };
    return {
      kind: 'expire',
      error: {
        code: deadline.code,
        message: 'the transaction can no longer commit: its commit deadline passed',
      },
    };
  }
  if (rec.attempts.length >= config.maxAttempts) {
    if (mayCommit) return { kind: 'watch', deadline: deadline.at };
    return {
      kind: 'expire',
      error: {
        code: 'ATTEMPTS_EXHAUSTED',
        message: `no attempt committed after ${rec.attempts.length} attempts`,
      },
    };
  }
  if (input.keyDisabled === undefined) return { kind: 'needs-key-status' };
  // A key disabled since signing (compromise, retirement): send nothing more with its signature.
  if (input.keyDisabled) {
    if (mayCommit) return { kind: 'watch', deadline: deadline.at };
    const sent = rec.attempts.length > 0 ? ' that could commit' : '';
    return {
      kind: 'reject',
      error: {
        code: 'KEY_DISABLED',
        message: `key ${rec.keyFingerprint} was disabled before this submission reached the ledger; nothing was sent${sent}`,
      },
    };
  }
  return { kind: 'attempt' };
}
