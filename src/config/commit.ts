// When and where a transaction can commit, as the ledger decides it: the synchronizer's preparation-time
// window, the deduplication period each attempt asks for, and the synchronizers a submission may name. Both
// roles read it: the API refuses what cannot commit, the worker stops waiting for what no longer can.
import { intIn, list } from './env.ts';
import { section } from './section.ts';

export const commit = section({
  summary:
    'When and where a transaction can commit: the preparation-time window, deduplication periods, allowed ' +
    'synchronizers (API and worker roles).',
  vars: {
    DEDUP_MARGIN_SECONDS: intIn(1, 86_400, 120).describe(
      "margin of each attempt's deduplication period (time since the first attempt + margin)",
    ),
    DEDUP_MAX_SECONDS: intIn(60, 30 * 86_400, 7 * 86_400 - 3600).describe(
      'cap of that deduplication period, and of one a request asks for',
    ),
    PREPARATION_TIME_TOLERANCE_SECONDS: intIn(1, 30 * 86_400, 86_400).describe(
      "the synchronizer's `preparationTimeRecordTimeTolerance`: a transaction prepared longer ago can no " +
        "longer commit (Canton's default); the window is symmetric, so one prepared further in the future " +
        'is refused at accept (`422 TRANSACTION_NOT_YET_VALID`, unsigned)',
    ),
    SETTLE_GRACE_SECONDS: intIn(0, 86_400, 60).describe(
      'how long past `canCommitUntil` an unknown outcome is still searched for (clock skew, participant lag)',
    ),
    ALLOWED_SYNCHRONIZERS: list.describe(
      'synchronizer ids a prepared transaction may name, comma-separated, logical (as connected-synchronizers ' +
        'lists them) or physical (`<logical>::35-<serial>`), compared by logical id; empty = any',
    ),
  },
  outputs: { dedup: true, commitWindow: true, allowedSynchronizers: true },
  build: (e) => ({
    dedup: { marginSeconds: e.DEDUP_MARGIN_SECONDS, maxSeconds: e.DEDUP_MAX_SECONDS },
    /**
     * When a transaction can no longer commit: `preparationToleranceMs` after its preparation time (the
     * synchronizer's preparationTimeRecordTimeTolerance), and how long past that (clock skew, ingestion lag)
     * a submission with an unknown outcome is still watched before it is called expired.
     */
    commitWindow: {
      preparationToleranceMs: e.PREPARATION_TIME_TOLERANCE_SECONDS * 1000,
      settleGraceMs: e.SETTLE_GRACE_SECONDS * 1000,
    },
    allowedSynchronizers: e.ALLOWED_SYNCHRONIZERS,
  }),
});
