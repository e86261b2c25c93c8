// The accept step's checks that need no I/O: what the decoded transaction says against what the caller claims
// and may do, where and when it can commit, and the request's own fields. Each throws a SubmissionRefused naming
// the problem; nothing is signed before all of them passed.
import { createHash } from 'node:crypto';
import { echo } from '@quill/canton/errors';
import type { DeduplicationPeriod } from '@quill/canton/ledger';
import { logicalSynchronizerId } from '@quill/canton/transaction';
import type { Principal } from '../../auth/index.ts';
import { canonicalJson } from '../../json.ts';
import { commitDeadline } from '../deadline.ts';
import { SubmissionRefused } from '../errors.ts';
import type { SubmissionRecord } from '../record.ts';
import type { InspectedTransaction, SubmissionRequest } from './types.ts';

const HEX32 = /^[0-9a-fA-F]{64}$/;
const B64_32 = /^[A-Za-z0-9+/]{43}=$/;

/** A transaction hash as the participant gives it (base64) or as hex; lower-case hex. */
export function parseHash(text: string): string {
  const t = text.trim();
  if (HEX32.test(t)) return t.toLowerCase();
  if (B64_32.test(t)) return Buffer.from(t, 'base64').toString('hex');
  throw new SubmissionRefused(
    400,
    'INVALID_HASH',
    'preparedTransactionHash must be 32 bytes as base64 (as the participant returns it) or 64 hex digits',
  );
}

/** What an Idempotency-Key is bound to: the request, whatever the order of its keys. */
export function requestFingerprint(req: SubmissionRequest): string {
  // An estimate is informative, not what is signed: resending it changed is the same request.
  const { costEstimation: _, ...signed } = req;
  return createHash('sha256').update(canonicalJson(signed)).digest('hex');
}

/**
 * The acting party and the recomputed hash (hex), once the transaction is what the caller claims: the hash it
 * sent (if any) matches, it has exactly one actAs party, that party is the one the caller named (if any) and one
 * the caller's token may submit for.
 */
export function checkClaims(
  tx: InspectedTransaction,
  req: SubmissionRequest,
  who: Principal,
): { party: string; hashHex: string } {
  const hashHex = Buffer.from(tx.hash).toString('hex');
  if (req.preparedTransactionHash !== undefined && parseHash(req.preparedTransactionHash) !== hashHex) {
    throw new SubmissionRefused(
      422,
      'HASH_MISMATCH',
      `preparedTransactionHash does not match the hash recomputed from preparedTransaction (${hashHex})`,
    );
  }
  if (tx.actAs.length !== 1) {
    throw new SubmissionRefused(
      422,
      'UNSUPPORTED_ACT_AS',
      `exactly one actAs party is supported, the transaction has ${tx.actAs.length}`,
    );
  }
  const party = tx.actAs[0] as string;
  if (req.party !== undefined && req.party !== party) {
    throw new SubmissionRefused(
      422,
      'PARTY_MISMATCH',
      `party ${echo(req.party)} is not the transaction's actAs party`,
    );
  }
  if (who.party !== undefined && who.party !== party) {
    throw new SubmissionRefused(403, 'PARTY_NOT_ALLOWED', 'this token may not submit for that party');
  }
  return { party, hashHex };
}

/**
 * Where and when it can commit: an allowed synchronizer, before its max record time and inside the preparation
 * time window. Returns when it can commit until (undefined when the transaction names no bound).
 */
export function checkWindow(
  tx: InspectedTransaction,
  o: { allowedSynchronizers: readonly string[]; preparationToleranceMs: number; now: number },
): number | undefined {
  // Compared by logical id: either form may be configured, and the transaction names the physical one under
  // protocol version 35 (its serial changes with a synchronizer upgrade).
  const logical = logicalSynchronizerId(tx.synchronizerId);
  if (
    o.allowedSynchronizers.length > 0 &&
    !o.allowedSynchronizers.some((a) => logicalSynchronizerId(a) === logical)
  ) {
    throw new SubmissionRefused(
      422,
      'SYNCHRONIZER_NOT_ALLOWED',
      `synchronizer ${echo(tx.synchronizerId)} is not in ALLOWED_SYNCHRONIZERS`,
    );
  }
  if (tx.maxRecordTime && tx.maxRecordTime.getTime() <= o.now) {
    throw new SubmissionRefused(
      422,
      'TRANSACTION_EXPIRED',
      `max record time ${tx.maxRecordTime.toISOString()} has passed: prepare the transaction again`,
    );
  }
  const deadline = commitDeadline(
    { maxRecordTime: tx.maxRecordTime?.getTime(), preparedAt: tx.preparationTime?.getTime() },
    o.preparationToleranceMs,
  );
  if (deadline !== undefined && deadline.at <= o.now) {
    throw new SubmissionRefused(
      422,
      'TRANSACTION_EXPIRED',
      `prepared at ${tx.preparationTime?.toISOString()}, longer ago than the ledger's preparation time tolerance: prepare the transaction again`,
    );
  }
  // The participant's window is symmetric (|record time - preparation time| <= tolerance): a transaction
  // prepared further ahead cannot commit yet, and signing it now would hand out a signature valid later.
  if (tx.preparationTime && tx.preparationTime.getTime() - o.now > o.preparationToleranceMs) {
    throw new SubmissionRefused(
      422,
      'TRANSACTION_NOT_YET_VALID',
      `prepared at ${tx.preparationTime.toISOString()}, further in the future than the ledger's preparation time tolerance: check the preparing clock and prepare the transaction again`,
    );
  }
  return deadline?.at;
}

/** The caller's lower bound on the dedup period; an offset cannot cover attempts not made yet. */
export function requestedDedupSeconds(
  period: DeduplicationPeriod | undefined,
  maxSeconds: number,
): number | undefined {
  if (!period) return undefined;
  if ('Empty' in period) return maxSeconds;
  const d = 'DeduplicationDuration' in period ? period.DeduplicationDuration.value : undefined;
  if (d && d.seconds >= 0 && d.nanos >= 0) return Math.min(maxSeconds, d.seconds + (d.nanos > 0 ? 1 : 0));
  throw new SubmissionRefused(
    400,
    'INVALID_DEDUPLICATION_PERIOD',
    'deduplicationPeriod must be {"DeduplicationDuration":{"value":{"seconds":N,"nanos":0}}} (not negative) or {"Empty":{}}',
  );
}

/** Names the holder of the command id only to a caller who may see it (its party, or unscoped). */
export function commandIdInUse(
  who: Principal,
  commandId: string,
  holder: SubmissionRecord,
): SubmissionRefused {
  const visible = who.party === undefined || who.party === holder.party;
  return new SubmissionRefused(
    409,
    'COMMAND_ID_IN_USE',
    visible
      ? `command id ${commandId} belongs to submission ${holder.id} with another transaction`
      : `command id ${commandId} is already used by another transaction`,
  );
}
