// Every change a submission record goes through, named, in one place: each is a pure function from the current
// record to the next one, which the store applies with compare-and-set (so it may be applied to a fresher
// record than the one it was planned from, and must stay correct when it is).

import type { JsTransaction } from '@quill/canton/ledger';
import type { Attempt, ErrorInfo, SubmissionRecord } from './record.ts';

type Change = (r: SubmissionRecord) => SubmissionRecord;

/** accepted → queued, once its job is enqueued (no change for a record already further on). */
export const queue = (r: SubmissionRecord): SubmissionRecord | undefined =>
  r.status === 'accepted' ? { ...r, status: 'queued' } : undefined;

/** A new attempt starts; earlier unfinished ones (crashed workers, lost locks) become "ambiguous". */
export function startAttempt(attempt: Attempt, reconcileFromOffset: number): Change {
  return (r) => ({
    ...r,
    status: 'executing',
    reconcileFromOffset: r.reconcileFromOffset ?? reconcileFromOffset,
    attempts: [...r.attempts.map(pendingToAmbiguous), attempt],
  });
}

/** Records how an attempt ended (without changing the status). */
export function finishAttempt(
  submissionId: string,
  outcome: Attempt['outcome'],
  error: ErrorInfo | null,
  at: string,
): Change {
  return (r) => ({
    ...r,
    attempts: r.attempts.map((a) =>
      a.submissionId === submissionId ? { ...a, outcome, error, finishedAt: at } : a,
    ),
  });
}

/** Final: the transaction is on the ledger. `submissionId` is the attempt that found it ('' for a search). */
export function commit(
  tx: JsTransaction,
  submissionId: string,
  outcome: 'committed' | 'duplicate',
  at: string,
  /** What the attempt was answered, when the transaction was found on the ledger after a refusal. */
  answered?: ErrorInfo,
): Change {
  return (r) => ({
    ...r,
    status: 'committed',
    updateId: tx.updateId,
    completionOffset: tx.offset,
    transaction: tx,
    ...(tx.paidTrafficCost != null ? { paidTrafficCost: tx.paidTrafficCost } : {}),
    error: null,
    attempts: r.attempts.map((a) =>
      a.submissionId === submissionId
        ? { ...a, outcome, finishedAt: at, ...(answered ? { error: answered } : {}) }
        : a,
    ),
  });
}

/** Final: the ledger refused it, or Quill will not send it (key disabled, command id taken by another). */
export function reject(error: ErrorInfo): Change {
  return (r) => ({ ...r, status: 'rejected', error });
}

/** Final: it can no longer commit, and it is not on the ledger. */
export function expire(error: ErrorInfo): Change {
  return (r) => ({ ...r, status: 'expired', error });
}

/**
 * No further attempt will be sent, but one may still commit: the record says so, and how far the ledger was
 * already searched (the next search starts there).
 */
export function awaitOutcome(searchedThrough: number | undefined, until: string, at: string): Change {
  return (r) => ({
    ...searched(searchedThrough, at)(r),
    status: 'executing',
    attempts: r.attempts.map(pendingToAmbiguous),
    error: {
      code: 'OUTCOME_UNKNOWN',
      message: `no further attempt will be sent and whether one of the ${r.attempts.length} made committed is not known yet: the ledger is searched until ${until}, when the transaction can no longer commit`,
    },
  });
}

/** The ledger was searched for the transaction at `at`, through `through` (undefined: not known how far). */
export function searched(through: number | undefined, at: string): Change {
  return (r) => ({
    ...r,
    reconciledThroughOffset:
      through === undefined ? r.reconciledThroughOffset : Math.max(through, r.reconciledThroughOffset ?? 0),
    searchedAt: at,
  });
}

function pendingToAmbiguous(a: Attempt): Attempt {
  return a.outcome === 'pending' ? { ...a, outcome: 'ambiguous' } : a;
}
