// Accepting a submission, synchronously: decode strictly, recompute the hash, apply policy, then (and only
// then) sign, record the signature in the audit log, store the record and enqueue it.
import { createHash } from 'node:crypto';
import { echo } from '@quill/canton/errors';
import type { DeduplicationPeriod, MinLedgerTime, Signature, TransactionFormat } from '@quill/canton/ledger';
import { idempotencyScope, type Principal } from '../auth/index.ts';
import type { Log } from '../log.ts';
import {
  evaluatePolicy,
  type PolicyDecision,
  type PolicyDocument,
  type TransactionFacts,
  type VelocityLookup,
} from '../policy/index.ts';
import { SubmissionRefused } from './errors.ts';
import type { PipelineMetrics } from './metrics.ts';
import type { HashingSchemeVersion, SubmissionRecord } from './record.ts';
import { newSubmissionId, type SubmissionStore } from './store/index.ts';
import { queue } from './transitions.ts';

/** What the accept path needs to know about a prepared transaction (from src/transaction). */
export interface InspectedTransaction {
  hash: Uint8Array;
  actAs: string[];
  commandId: string;
  synchronizerId: string;
  maxRecordTime?: Date;
  /** Signed in every scheme; the ledger refuses the transaction once record time is this far past it. */
  preparationTime?: Date;
  /** What the transaction does, for the approval policy (computed on demand: it walks every node). */
  facts?: () => TransactionFacts;
}

/** The approval policy in force (issue 15): the current document and the party's recent activity. */
export interface PolicyPort {
  current(): Promise<{ document: PolicyDocument; version: number | null } | undefined>;
  velocity?: VelocityLookup;
}

/** Adapters over src/transaction, src/signing and src/parties (see src/server/adapters.ts). */
export interface AcceptPorts {
  /**
   * Throws (or rejects with) an error with `code` and a one-line `message` on bytes that are not a valid
   * PreparedTransaction; a `SubmissionRefused` (busy, too large to decode) passes through as it is.
   */
  inspect(
    preparedTransactionBase64: string,
    scheme: HashingSchemeVersion,
  ): InspectedTransaction | Promise<InspectedTransaction>;
  /** The key that controls the party, if this wallet holds it. */
  partyKey(party: string): Promise<string | undefined>;
  /**
   * Signs the 32-byte hash and verifies the signature before returning it. A disabled or missing key is a
   * SubmissionRefused (KEY_DISABLED / UNKNOWN_KEY): the key's status is checked where it is used.
   */
  sign(fingerprint: string, hash: Uint8Array): Promise<Signature>;
}

export interface SubmissionRequest {
  preparedTransaction: string;
  hashingSchemeVersion: HashingSchemeVersion;
  preparedTransactionHash?: string | undefined;
  party?: string | undefined;
  deduplicationPeriod?: DeduplicationPeriod | undefined;
  userId?: string | undefined;
  minLedgerTime?: MinLedgerTime | undefined;
  transactionFormat?: TransactionFormat | undefined;
}

export interface AcceptDeps {
  store: SubmissionStore;
  ports: AcceptPorts;
  enqueue: (record: SubmissionRecord) => Promise<void>;
  allowedSynchronizers: string[];
  defaultUserId: string;
  dedupMaxSeconds: number;
  /** The synchronizer's preparationTimeRecordTimeTolerance (Canton's default: 24 h). */
  preparationToleranceMs: number;
  metrics?: PipelineMetrics;
  /** The approval policy; none means every transaction that passes the checks is signed. */
  policy?: PolicyPort;
  /** One line per new submission, naming the key that signed it (the audit stream has every signature). */
  log?: Log;
  now?: () => number;
  /**
   * Replica acknowledgement (REDIS_MIN_REPLICAS_ACK). `mark()` before the store's writes names the connection
   * they travel on; `confirm(mark)` resolves once they reached enough replicas through that same connection and
   * server, and throws a StoreError UNAVAILABLE (503, retry with the same Idempotency-Key) when they did not or
   * when the connection was re-established in between (a failover: the writes may be on the lost master only).
   * Absent: no wait.
   */
  durable?: { mark(): Promise<unknown>; confirm(mark: unknown): Promise<void> };
}

export interface AcceptResult {
  record: SubmissionRecord;
  /** False when an earlier identical request's record was returned. */
  created: boolean;
}

const HEX32 = /^[0-9a-fA-F]{64}$/;
const B64_32 = /^[A-Za-z0-9+/]{43}=$/;

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

/** Canonical JSON (keys sorted at every level, undefined dropped) so key order never changes the fingerprint. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const entries = Object.entries(v as Record<string, unknown>)
      .filter(([, x]) => x !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, x]) => `${JSON.stringify(k)}:${canonical(x)}`).join(',')}}`;
  }
  return JSON.stringify(v) ?? 'null';
}

function requestFingerprint(req: SubmissionRequest): string {
  return createHash('sha256').update(canonical(req)).digest('hex');
}

/** The caller's lower bound on the dedup period; an offset cannot cover attempts not made yet. */
function requestedDedupSeconds(
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

export async function acceptSubmission(
  deps: AcceptDeps,
  req: SubmissionRequest,
  who: Principal,
  idempotencyKey?: string,
): Promise<AcceptResult> {
  const mark = await deps.durable?.mark();
  const result = await accept(deps, req, who, idempotencyKey);
  // New or replayed, the record is only promised (202/200) once enough replicas hold it.
  await deps.durable?.confirm(mark);
  return result;
}

async function accept(
  deps: AcceptDeps,
  req: SubmissionRequest,
  who: Principal,
  idempotencyKey?: string,
): Promise<AcceptResult> {
  const { store, ports } = deps;
  const now = deps.now ?? Date.now;
  let tx: InspectedTransaction;
  try {
    tx = await ports.inspect(req.preparedTransaction, req.hashingSchemeVersion);
  } catch (err) {
    if (err instanceof SubmissionRefused) throw err;
    const e = err as { code?: unknown; message?: unknown };
    const detail = typeof e.message === 'string' ? e.message.split('\n')[0] : 'cannot decode';
    throw new SubmissionRefused(400, 'INVALID_PREPARED_TRANSACTION', `preparedTransaction: ${detail}`);
  }
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

  const scope = idempotencyScope(who);
  const fingerprint = requestFingerprint(req);
  // The three reads are independent: sent together, they cost one round trip of waiting, not three.
  const [seen, earlier, policy] = await Promise.all([
    idempotencyKey !== undefined ? store.idempotency(scope, idempotencyKey) : undefined,
    store.byCommandId(tx.commandId),
    deps.policy?.current(),
  ]);
  if (idempotencyKey !== undefined) {
    if (seen && seen.fingerprint !== fingerprint) {
      throw new SubmissionRefused(
        422,
        'IDEMPOTENCY_KEY_REUSED',
        'this Idempotency-Key was used with a different request body',
      );
    }
    const rec = seen ? await store.getRecord(seen.id) : undefined;
    if (rec) return replay(deps, rec);
  }
  const userId = req.userId ?? deps.defaultUserId;
  if (earlier && earlier.preparedTransactionHash === hashHex && earlier.userId === userId) {
    return replay(deps, earlier);
  }
  if (earlier && earlier.status !== 'rejected' && earlier.status !== 'expired') {
    throw commandIdInUse(who, tx.commandId, earlier);
  }

  const keyFingerprint = await ports.partyKey(party);
  if (!keyFingerprint) {
    throw new SubmissionRefused(422, 'UNKNOWN_PARTY', `party ${echo(party)} is not held by this wallet`);
  }
  if (deps.allowedSynchronizers.length > 0 && !deps.allowedSynchronizers.includes(tx.synchronizerId)) {
    throw new SubmissionRefused(
      422,
      'SYNCHRONIZER_NOT_ALLOWED',
      `synchronizer ${echo(tx.synchronizerId)} is not in ALLOWED_SYNCHRONIZERS`,
    );
  }
  if (tx.maxRecordTime && tx.maxRecordTime.getTime() <= now()) {
    throw new SubmissionRefused(
      422,
      'TRANSACTION_EXPIRED',
      `max record time ${tx.maxRecordTime.toISOString()} has passed: prepare the transaction again`,
    );
  }
  const canCommitUntil = commitDeadline(tx, deps.preparationToleranceMs);
  if (canCommitUntil !== undefined && canCommitUntil <= now()) {
    throw new SubmissionRefused(
      422,
      'TRANSACTION_EXPIRED',
      `prepared at ${tx.preparationTime?.toISOString()}, longer ago than the ledger's preparation time tolerance: prepare the transaction again`,
    );
  }
  // The participant's window is symmetric (|record time - preparation time| <= tolerance): a transaction
  // prepared further ahead cannot commit yet, and signing it now would hand out a signature valid later.
  if (tx.preparationTime && tx.preparationTime.getTime() - now() > deps.preparationToleranceMs) {
    throw new SubmissionRefused(
      422,
      'TRANSACTION_NOT_YET_VALID',
      `prepared at ${tx.preparationTime.toISOString()}, further in the future than the ledger's preparation time tolerance: check the preparing clock and prepare the transaction again`,
    );
  }
  const dedupSeconds = requestedDedupSeconds(req.deduplicationPeriod, deps.dedupMaxSeconds);

  const verdict = await applyPolicy(deps, tx, policy);
  if (verdict?.decision.outcome.action === 'deny') {
    throw new SubmissionRefused(
      422,
      'POLICY_DENIED',
      `denied by the approval policy${verdict.decision.rule !== null ? ` (rule ${verdict.decision.rule})` : ''}: ${verdict.decision.outcome.reason}`,
    );
  }
  const waits = verdict?.decision.outcome.action === 'approve' ? verdict.decision.outcome : undefined;

  // Policy passed: sign (unless approvers must decide first). The signature is logged (audit stream) in the
  // same script that stores the record.
  const signature = waits ? undefined : await ports.sign(keyFingerprint, tx.hash);
  if (signature) deps.metrics?.signed.inc({ algorithm: signature.signingAlgorithmSpec });
  const at = new Date(now()).toISOString();
  const id = newSubmissionId();
  const approvalDeadline = waits
    ? Math.min(
        waits.ttlSeconds !== null ? now() + waits.ttlSeconds * 1000 : Number.POSITIVE_INFINITY,
        canCommitUntil ?? Number.POSITIVE_INFINITY,
      )
    : undefined;
  const record: SubmissionRecord = {
    id,
    status: waits ? 'awaiting_approval' : 'accepted',
    party,
    commandId: tx.commandId,
    userId,
    synchronizerId: tx.synchronizerId,
    keyFingerprint,
    preparedTransactionHash: hashHex,
    hashingSchemeVersion: req.hashingSchemeVersion,
    maxRecordTime: tx.maxRecordTime ? tx.maxRecordTime.toISOString() : null,
    canCommitUntil: canCommitUntil !== undefined ? new Date(canCommitUntil).toISOString() : null,
    requestedBy: who.subject,
    createdAt: at,
    updatedAt: at,
    attempts: [],
    updateId: null,
    completionOffset: null,
    transaction: null,
    error: null,
    reconcileFromOffset: null,
    reconciledThroughOffset: null,
    ...(verdict ? { amount: verdict.decision.amount } : {}),
    ...(waits && verdict
      ? {
          approval: {
            rule: verdict.decision.rule,
            policyVersion: verdict.version,
            quorum: waits.quorum,
            group: waits.group,
            approvers: waits.approvers,
            deadline:
              approvalDeadline !== undefined && Number.isFinite(approvalDeadline)
                ? new Date(approvalDeadline).toISOString()
                : null,
          },
          approvals: [],
        }
      : {}),
  };
  const stored = await store.create(
    record,
    {
      preparedTransaction: req.preparedTransaction,
      partySignatures: { signatures: signature ? [{ party, signatures: [signature] }] : [] },
      ...(dedupSeconds !== undefined ? { deduplicationSeconds: dedupSeconds } : {}),
      ...(req.minLedgerTime !== undefined ? { minLedgerTime: req.minLedgerTime } : {}),
      ...(req.transactionFormat !== undefined ? { transactionFormat: req.transactionFormat } : {}),
    },
    idempotencyKey !== undefined ? { scope, key: idempotencyKey, fingerprint } : undefined,
    signature
      ? {
          at,
          actor: who.subject,
          party,
          keyFingerprint,
          hash: hashHex,
          commandId: tx.commandId,
          submission: id,
        }
      : undefined,
  );
  if (!stored.created) {
    // Lost a race for the command id: a replay only if the holder has this very transaction (so this party's).
    const other = stored.record;
    if (other.preparedTransactionHash !== hashHex || other.party !== party) {
      throw commandIdInUse(who, tx.commandId, other);
    }
    return replay(deps, other);
  }
  if (waits) {
    deps.metrics?.accepted.inc({ outcome: 'new' });
    deps.log?.('info', 'awaiting approval', {
      submission: id,
      commandId: tx.commandId,
      party,
      hash: hashHex,
      rule: verdict?.decision.rule ?? null,
      quorum: waits.quorum,
      requestedBy: who.subject,
    });
    return { record: stored.record, created: true };
  }
  await deps.enqueue(stored.record);
  const queued = await store.transition(id, queue, stored);
  deps.metrics?.accepted.inc({ outcome: 'new' });
  deps.log?.('info', 'accepted', {
    submission: id,
    commandId: tx.commandId,
    party,
    keyFingerprint,
    hash: hashHex,
    requestedBy: who.subject,
  });
  return { record: queued.record, created: true };
}

/** The decision of the policy in force (`current`, read by the caller) for an inspected transaction. */
async function applyPolicy(
  deps: AcceptDeps,
  tx: InspectedTransaction,
  current: Awaited<ReturnType<PolicyPort['current']>>,
): Promise<{ decision: PolicyDecision; version: number | null } | undefined> {
  if (!current) return undefined;
  if (!tx.facts) throw new Error('the approval policy needs the transaction facts (inspect port)');
  let facts: TransactionFacts;
  try {
    facts = tx.facts();
  } catch (err) {
    const detail = err instanceof Error ? (err.message.split('\n')[0] ?? '') : 'cannot decode';
    throw new SubmissionRefused(400, 'INVALID_PREPARED_TRANSACTION', `preparedTransaction: ${detail}`);
  }
  return {
    decision: await evaluatePolicy(current.document, facts, deps.policy?.velocity),
    version: current.version,
  };
}

/**
 * When the ledger stops accepting the transaction: its max record time, or its preparation time plus the
 * synchronizer's tolerance (Canton's TimeValidator checks both against the sequencing time), whichever is first.
 */
function commitDeadline(tx: InspectedTransaction, preparationToleranceMs: number): number | undefined {
  const limits = [
    tx.maxRecordTime?.getTime(),
    tx.preparationTime ? tx.preparationTime.getTime() + preparationToleranceMs : undefined,
  ].filter((t): t is number => t !== undefined);
  return limits.length > 0 ? Math.min(...limits) : undefined;
}

/** Names the holder of the command id only to a caller who may see it (its party, or unscoped). */
function commandIdInUse(who: Principal, commandId: string, holder: SubmissionRecord): SubmissionRefused {
  const visible = who.party === undefined || who.party === holder.party;
  return new SubmissionRefused(
    409,
    'COMMAND_ID_IN_USE',
    visible
      ? `command id ${commandId} belongs to submission ${holder.id} with another transaction`
      : `command id ${commandId} is already used by another transaction`,
  );
}

function replay(deps: AcceptDeps, record: SubmissionRecord): AcceptResult {
  deps.metrics?.accepted.inc({ outcome: 'replay' });
  return { record, created: false };
}
