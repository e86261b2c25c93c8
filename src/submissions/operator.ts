// An operator's two actions on a record that waits on the ledger (issue 30 item 6), for when the worker's own
// schedule is not soon enough or the worker is not running: search the ledger now, and mark expired once the
// transaction can no longer commit. Both run the worker's own search and transitions, so they may race the
// worker (or each other) safely: the record only moves forward, and a transaction found on the ledger always
// wins over an expiry.
import { StoreError } from '../redis/index.ts';
import { mayStillCommit, recordDeadline } from './decide.ts';
import { SubmissionRefused } from './errors.ts';
import { commit, type ExecutorDeps, searchLedger } from './executor.ts';
import { isTerminal, type SubmissionRecord } from './record.ts';
import { expire, searched } from './transitions.ts';

export interface OperatorResult {
  record: SubmissionRecord;
  /** Whether the search found the transaction on the ledger (the record is then committed). */
  found: boolean;
}

/** The record, or why an operator action does not apply to it. */
async function open(deps: ExecutorDeps, id: string): Promise<SubmissionRecord> {
  const rec = await deps.store.getRecord(id);
  if (!rec) throw new StoreError('NOT_FOUND', `no submission ${id}`);
  if (isTerminal(rec.status))
    throw new SubmissionRefused(
      409,
      'ALREADY_FINAL',
      `submission ${id} is ${rec.status} already: it never changes`,
    );
  if (rec.status === 'awaiting_approval')
    throw new SubmissionRefused(
      409,
      'AWAITING_APPROVAL',
      `submission ${id} awaits approval: nothing was signed or sent (approvers decide it, or its deadline ends it)`,
    );
  return rec;
}

/** What a search found: the record committed, or how far the ledger was searched (recorded on the record). */
async function search(deps: ExecutorDeps, rec: SubmissionRecord, at: string): Promise<OperatorResult> {
  const found = await searchLedger(deps, rec);
  if (found.found === 'ours')
    return { record: await commit(deps, rec.id, found.transaction, '', 'duplicate'), found: true };
  const through = found.found === 'none' ? found.searchedThrough : undefined;
  return { record: await deps.store.update(rec.id, searched(through, at)), found: false };
}

/**
 * "Search the ledger now": looks for the transaction after what earlier searches covered (the watcher's index
 * first); commits the record when it is there, else records how far and when it looked. Sends nothing.
 */
export async function searchNow(deps: ExecutorDeps, id: string): Promise<OperatorResult> {
  const rec = await open(deps, id);
  if (rec.attempts.length === 0)
    throw new SubmissionRefused(
      409,
      'NOT_SENT',
      `nothing of submission ${id} was sent to the ledger yet: there is nothing to find`,
    );
  return search(deps, rec, new Date((deps.now ?? Date.now)()).toISOString());
}

/**
 * "Mark expired": only once the ledger can no longer commit the transaction (`canCommitUntil`, plus
 * SETTLE_GRACE_SECONDS when an attempt may have reached it). A last search comes first: a transaction found
 * there commits the record instead. The expiry names who asked and why (an audit entry, `submission.expire`).
 */
export async function expireNow(
  deps: ExecutorDeps,
  id: string,
  who: { subject: string; reason: string },
): Promise<OperatorResult> {
  const now = deps.now ?? Date.now;
  const rec = await open(deps, id);
  const deadline = recordDeadline(rec, deps.config);
  const until = new Date(deadline.at).toISOString();
  if (now() <= deadline.at)
    throw new SubmissionRefused(
      409,
      'STILL_COMMITTABLE',
      `submission ${id} can still commit until ${until}: it cannot be marked expired before then`,
    );
  const sent = mayStillCommit(rec);
  const settled = deadline.at + deps.config.settleGraceMs;
  if (sent && now() <= settled)
    throw new SubmissionRefused(
      409,
      'STILL_SETTLING',
      `an attempt of submission ${id} may have been sequenced before ${until}, and the ledger may show it until ${new Date(settled).toISOString()} (SETTLE_GRACE_SECONDS): mark it expired after that`,
    );
  const at = new Date(now()).toISOString();
  if (rec.attempts.length > 0) {
    const found = await search(deps, rec, at);
    if (found.found || isTerminal(found.record.status)) return found;
  }
  const error = {
    code: deadline.code,
    message: `marked expired by ${who.subject} (${who.reason}): the transaction can no longer commit (its deadline ${until} passed)${rec.attempts.length > 0 ? ', and the ledger does not hold it' : ''}`,
  };
  const { record } = await deps.store.transition(id, expire(error), undefined, (next) => ({
    kind: 'submission.expire',
    at,
    actor: who.subject,
    party: next.party,
    submission: next.id,
    hash: next.preparedTransactionHash,
    reason: who.reason,
  }));
  if (record.status === 'expired') deps.metrics?.expired.inc();
  return { record, found: false };
}
