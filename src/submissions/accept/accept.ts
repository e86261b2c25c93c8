// Accepting a submission, synchronously: inspect (decode strictly and recompute the hash, inline or on the pool),
// check (checks.ts), apply the policy in force, then (and only then) sign, store the record with the signature's
// audit entry in one step, and enqueue it.
import { echo } from '@quill/canton/errors';
import { typeRefs } from '@quill/canton/ledger';
import { idempotencyScope, type Principal } from '../../auth/index.ts';
import {
  describeMovements,
  evaluatePolicy,
  type PolicyDecision,
  type PolicyDocument,
  type TransactionFacts,
} from '../../policy/index.ts';
import { SubmissionRefused } from '../errors.ts';
import type { SubmissionRecord } from '../record.ts';
import { distinctSigners, newRound, quillKeys, signingSetFor, usesRound } from '../round.ts';
import { type QuillSigned, signWithQuillKeys } from '../round-sign.ts';
import { newSubmissionId } from '../store/index.ts';
import { inSpan } from '../tracing.ts';
import {
  checkClaims,
  checkWindow,
  commandIdInUse,
  requestedDedupSeconds,
  requestFingerprint,
} from './checks.ts';
import type {
  AcceptDeps,
  AcceptPorts,
  AcceptResult,
  InspectedTransaction,
  IntentCheck,
  PolicyPort,
  SubmissionRequest,
} from './types.ts';

/** `intent`: the transaction was prepared by Quill from an intent (src/intents), which it must do exactly. */
export async function acceptSubmission(
  deps: AcceptDeps,
  req: SubmissionRequest,
  who: Principal,
  idempotencyKey?: string,
  intent?: IntentCheck,
): Promise<AcceptResult> {
  // The accept span is active while the record is enqueued: the job carries it to the worker (queue.ts).
  return inSpan('quill.accept', { 'quill.intent': intent !== undefined }, async (span) => {
    const mark = await deps.durable?.mark();
    const result = await accept(deps, req, who, idempotencyKey, intent);
    // New or replayed, the record is only promised (202/200) once enough replicas hold it.
    await deps.durable?.confirm(mark);
    span.setAttributes({
      'quill.submission.id': result.record.id,
      'quill.command_id': result.record.commandId,
      'quill.submission.created': result.created,
      'quill.submission.status': result.record.status,
    });
    return result;
  });
}

async function accept(
  deps: AcceptDeps,
  req: SubmissionRequest,
  who: Principal,
  idempotencyKey?: string,
  intent?: IntentCheck,
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
  const { party, hashHex } = checkClaims(tx, req, who);
  // The facts walk every node: computed at most once, for the intent's check and the policy.
  if (tx.facts) {
    const compute = tx.facts;
    let memo: TransactionFacts | undefined;
    tx = { ...tx, facts: () => (memo ??= compute()) };
  }

  const scope = idempotencyScope(who);
  const fingerprint = intent?.fingerprint ?? requestFingerprint(req);
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

  const set = await signingSetFor(ports, party);
  if (!set) {
    throw new SubmissionRefused(422, 'UNKNOWN_PARTY', `party ${echo(party)} is not held by this wallet`);
  }
  // M of N: the record names the first key Quill signs with (a single-key party: its one key, as before).
  const round = usesRound(set);
  const keyFingerprint = quillKeys(set)[0] ?? (set.keys[0]?.fingerprint as string);
  await checkPackageNames(ports, req);
  const canCommitUntil = checkWindow(tx, {
    allowedSynchronizers: deps.allowedSynchronizers,
    preparationToleranceMs: deps.preparationToleranceMs,
    now: now(),
  });
  const dedupSeconds = requestedDedupSeconds(req.deduplicationPeriod, deps.dedupMaxSeconds);
  if (intent) intent.verify(factsOf(tx));

  // The policy decision and the record are one step per party when a velocity rule counts what is stored: a
  // request or batch item of the same party waits, so it counts this one (F1: concurrent batches passed a limit).
  const decideAndStore = async () => {
    const verdict = await inSpan('quill.policy', {}, async (span) => {
      const v = await applyPolicy(deps, tx, policy);
      span.setAttributes({
        'quill.policy.version': v?.version ?? -1,
        'quill.policy.action': v?.decision.outcome.action ?? 'none',
      });
      return v;
    });
    if (verdict?.decision.outcome.action === 'deny') {
      throw new SubmissionRefused(
        422,
        'POLICY_DENIED',
        `denied by the approval policy${verdict.decision.rule !== null ? ` (rule ${verdict.decision.rule})` : ''}: ${verdict.decision.outcome.reason}`,
      );
    }
    const waits = verdict?.decision.outcome.action === 'approve' ? verdict.decision.outcome : undefined;

    // Policy passed: sign with every key Quill holds in the party's set (unless approvers must decide first).
    // The signatures are logged (audit stream) in the same script that stores the record.
    const signed: QuillSigned | undefined = waits
      ? undefined
      : await signWithQuillKeys(ports.sign, quillKeys(set), tx.hash);
    const signatures = signed?.signatures ?? [];
    for (const sig of signatures) deps.metrics?.signed.inc({ algorithm: sig.signingAlgorithmSpec });
    const signers = distinctSigners(signatures, (fp) => set.keys.some((k) => k.fingerprint === fp));
    if (signed && signers.length < set.threshold) {
      // Short of M: a round waits for the external holders, unless even all of them could not make it up.
      const external = set.keys.filter((k) => k.holder === 'external').length;
      if (!round || signers.length + external < set.threshold) {
        throw (
          signed.refusals[0] ??
          new SubmissionRefused(
            422,
            'SIGNATURES_UNAVAILABLE',
            `party ${echo(party)} needs ${set.threshold} signatures and only ${signers.length + external} of its keys can sign`,
          )
        );
      }
    }
    // Signed in full, the record is stored `queued` and its job added next, not stored `accepted` and moved on in a
    // second write: if the job is never added (a crash, Redis away), the recovery sweep adds it (requeueStranded).
    const status: SubmissionRecord['status'] = waits
      ? 'awaiting_approval'
      : signers.length >= set.threshold
        ? 'queued'
        : 'awaiting_signatures';
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
      status,
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
      ...(req.costEstimation ? { costEstimation: req.costEstimation } : {}),
      ...(intent ? { intent: intent.intent } : {}),
      ...(intent?.reprepareOf ? { reprepareOf: intent.reprepareOf } : {}),
      ...(verdict ? { outflows: verdict.decision.outflows } : {}),
      ...(verdict?.decision.outflows.length === 1 ? { amount: verdict.decision.outflows[0]?.amount } : {}),
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
              summary: verdict.summary,
            },
            approvals: [],
          }
        : {}),
      ...(round
        ? {
            signatureRound: newRound(
              set,
              canCommitUntil !== undefined ? new Date(canCommitUntil).toISOString() : null,
              signers,
              at,
            ),
          }
        : {}),
    };
    const stored = await store.create(
      record,
      {
        preparedTransaction: req.preparedTransaction,
        partySignatures: { signatures: signatures.length > 0 ? [{ party, signatures }] : [] },
        ...(dedupSeconds !== undefined ? { deduplicationSeconds: dedupSeconds } : {}),
        ...(req.minLedgerTime !== undefined ? { minLedgerTime: req.minLedgerTime } : {}),
        ...(req.transactionFormat !== undefined ? { transactionFormat: req.transactionFormat } : {}),
      },
      idempotencyKey !== undefined ? { scope, key: idempotencyKey, fingerprint } : undefined,
      signatures.map((sig) => ({
        at,
        actor: who.subject,
        party,
        keyFingerprint: sig.signedBy,
        hash: hashHex,
        commandId: tx.commandId,
        submission: id,
      })),
      // The command index as read above: the store's step checks it has not changed since.
      earlier?.id ?? '',
    );
    return { verdict, waits, id, stored };
  };
  const { verdict, waits, id, stored } =
    policy && deps.policy?.serialize && countsVelocity(policy.document)
      ? await deps.policy.serialize(party, decideAndStore)
      : await decideAndStore();
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
  if (stored.record.status === 'awaiting_signatures') {
    deps.metrics?.accepted.inc({ outcome: 'new' });
    deps.log?.('info', 'awaiting signatures', {
      submission: id,
      commandId: tx.commandId,
      party,
      hash: hashHex,
      threshold: set.threshold,
      signed: stored.record.signatureRound?.keys.filter((k) => k.signedAt !== null).length ?? 0,
      requestedBy: who.subject,
    });
    return { record: stored.record, created: true };
  }
  await deps.enqueue(stored.record);
  deps.metrics?.accepted.inc({ outcome: 'new' });
  deps.log?.('info', 'accepted', {
    submission: id,
    commandId: tx.commandId,
    party,
    keyFingerprint,
    hash: hashHex,
    requestedBy: who.subject,
  });
  return { record: stored.record, created: true };
}

/** Distinct package names a `transactionFormat` may filter by (all checked in one ledger request). */
const MAX_FORMAT_PACKAGE_NAMES = 100;

/**
 * The package names the caller's `transactionFormat` filters by exist on the participant. The participant reads
 * the transaction with that format only after it committed, and answers 404 PACKAGE_NAMES_NOT_FOUND then: refused
 * here, before anything is signed. (Their form, `#name:Module:Entity`, was checked with the request's schema.)
 */
async function checkPackageNames(ports: AcceptPorts, req: SubmissionRequest): Promise<void> {
  if (!req.transactionFormat || !ports.unknownPackageNames) return;
  const names = [
    ...new Set(typeRefs(req.transactionFormat.eventFormat).map((r) => r.id.split(':')[0]!.slice(1))),
  ];
  if (names.length === 0) return;
  // One listing request carries them all: bounded, as the ledger's own requests are.
  if (names.length > MAX_FORMAT_PACKAGE_NAMES) {
    throw new SubmissionRefused(
      400,
      'INVALID_REQUEST',
      `transactionFormat: its filters name ${names.length} packages, at most ${MAX_FORMAT_PACKAGE_NAMES}`,
    );
  }
  let unknown: string[];
  try {
    unknown = await ports.unknownPackageNames(names);
  } catch {
    throw new SubmissionRefused(
      503,
      'UNAVAILABLE',
      "the ledger did not answer the check of transactionFormat's package names: retry",
    );
  }
  if (unknown.length > 0) {
    throw new SubmissionRefused(
      422,
      'UNKNOWN_PACKAGE_NAME',
      `transactionFormat filters by package names the participant does not have: ${unknown.map((n) => echo(n)).join(', ')}`,
    );
  }
}

/** Whether a rule of the document counts the party's stored submissions (a velocity condition). */
function countsVelocity(doc: PolicyDocument): boolean {
  return doc.rules.some((r) => r.match.velocity !== undefined);
}

/** The decision of the policy in force (`current`, read by the caller) for an inspected transaction. */
async function applyPolicy(
  deps: AcceptDeps,
  tx: InspectedTransaction,
  current: Awaited<ReturnType<PolicyPort['current']>>,
): Promise<{ decision: PolicyDecision; version: number | null; summary: string[] } | undefined> {
  if (!current) return undefined;
  const facts = factsOf(tx);
  return {
    decision: await evaluatePolicy(current.document, facts, deps.policy?.velocity),
    version: current.version,
    summary: describeMovements(facts.movements),
  };
}

/** The inspected transaction's facts; a transaction they cannot be read from is refused. */
function factsOf(tx: InspectedTransaction): TransactionFacts {
  if (!tx.facts) throw new Error('the approval policy needs the transaction facts (inspect port)');
  try {
    return tx.facts();
  } catch (err) {
    const detail = err instanceof Error ? (err.message.split('\n')[0] ?? '') : 'cannot decode';
    throw new SubmissionRefused(400, 'INVALID_PREPARED_TRANSACTION', `preparedTransaction: ${detail}`);
  }
}

function replay(deps: AcceptDeps, record: SubmissionRecord): AcceptResult {
  deps.metrics?.accepted.inc({ outcome: 'replay' });
  return { record, created: false };
}
