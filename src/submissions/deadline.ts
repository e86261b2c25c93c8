// When the ledger stops accepting a transaction: its max record time, or its preparation time plus the
// synchronizer's tolerance (Canton's TimeValidator checks both against the sequencing time), whichever is first.
// Accept computes it from the transaction and stores it (`canCommitUntil`); the worker decides by it.

export interface CommitDeadline {
  at: number;
  /** The code a submission that could not commit in time expires with. */
  code: 'MAX_RECORD_TIME_PASSED' | 'PREPARATION_TIME_TOLERANCE_PASSED';
}

/** Times in ms; undefined when neither bound is known. */
export function commitDeadline(
  bounds: { maxRecordTime?: number | undefined; preparedAt?: number | undefined },
  preparationToleranceMs: number,
): CommitDeadline | undefined {
  const { maxRecordTime, preparedAt } = bounds;
  const tolerated = preparedAt === undefined ? undefined : preparedAt + preparationToleranceMs;
  if (maxRecordTime !== undefined && (tolerated === undefined || maxRecordTime <= tolerated))
    return { at: maxRecordTime, code: 'MAX_RECORD_TIME_PASSED' };
  return tolerated === undefined ? undefined : { at: tolerated, code: 'PREPARATION_TIME_TOLERANCE_PASSED' };
}
