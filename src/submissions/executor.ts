// One step of a submission's life in the worker. Written so that any step may run twice, concurrently or
// after a crash: the record only moves forward (store CAS), each attempt has a fresh submissionId and a dedup
// period reaching back to the first attempt, and an unknown outcome is settled by reconciliation.
import { randomUUID } from 'node:crypto';
import type { JsTransaction } from '@quill/canton/ledger';
import { StoreError } from '../redis/index.ts';
import { backoffDelay, type Classification, classifyError, deduplicationSeconds } from './classify.ts';
import { decide, mayStillCommit, recordDeadline } from './decide.ts';
import { Aborted } from './errors.ts';
import { checkSignatures, type SignaturePorts } from './executor-signatures.ts';
import type { PipelineMetrics } from './metrics.ts';
import { type ExecuteRequest, type LedgerPort, reconcile } from './reconcile.ts';
import { type Attempt, type ErrorInfo, isTerminal, type SubmissionRecord } from './record.ts';
import type { SubmissionStore, VersionedRecord } from './store/index.ts';
import { inSpan } from './tracing.ts';
import {
  awaitOutcome,
  commit as commitTransition,
  expire,
  finishAttempt,
  reject,
  startAttempt,
} from './transitions.ts';

export interface ExecutorConfig {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  dedup: { marginSeconds: number; maxSeconds: number };
  ledgerTimeoutMs: number;
  /** The synchronizer's preparation time tolerance: bounds records that have no `canCommitUntil`. */
  preparationToleranceMs: number;
  /** How long past `canCommitUntil` an unknown outcome is still watched (clock skew, ingestion lag). */
  settleGraceMs: number;
}

export interface ExecutorDeps {
  store: SubmissionStore;
  ledger: LedgerPort;
  config: ExecutorConfig;
  metrics?: PipelineMetrics;
  now?: () => number;
  /** A recent ledger end (see `recentLedgerEnd`); defaults to asking the ledger each time. */
  ledgerEnd?: () => Promise<number>;
  /** The parties' current signing sets and Quill's keys: rotated keys are dropped and Quill's current keys sign. */
  signatures?: SignaturePorts;
}

/** The ledger end, read at most every `maxAgeMs` and shared: always a value read before the caller asked. */
export function recentLedgerEnd(ledger: LedgerPort, maxAgeMs = 500): () => Promise<number> {
  let at = 0;
  let value: Promise<number> | undefined;
  return () => {
    if (!value || Date.now() - at > maxAgeMs) {
      at = Date.now();
      const v = ledger.ledgerEnd();
      value = v;
      v.catch(() => {
        if (value === v) value = undefined;
      });
    }
    return value;
  };
}

export type StepResult =
  /** `alreadyFinal`: the record was final before this step (a job run again after a crash or stall). */
  | { kind: 'done'; record?: SubmissionRecord; alreadyFinal?: boolean }
  /** Try again after `delayMs` (retryable or ambiguous). */
  | { kind: 'retry'; delayMs: number; reason: string }
  /** Nothing more to try: wait until the transaction can no longer commit, then settle. */
  | { kind: 'wait-until'; at: number };

/**
 * `keyFingerprint`: the key the job says the record names (its data, from when it was added): its flag is read
 * beside the record, in the same round trip, and used only if the record names that key.
 */
export async function executeStep(
  deps: ExecutorDeps,
  id: string,
  signal?: AbortSignal,
  job: { keyFingerprint?: string | undefined } = {},
): Promise<StepResult> {
  const now = deps.now ?? Date.now;
  const { store, ledger, config } = deps;
  const hint = job.keyFingerprint;
  const [cur, hintDisabled] = await Promise.all([
    store.get(id),
    hint !== undefined ? store.keyFlags.isDisabled(hint) : undefined,
  ]);
  if (!cur) return { kind: 'done' };
  let rec = cur.record;
  // Not released to the worker yet (a stray job): approvals or signatures are still awaited; nothing is sent.
  if (rec.status === 'awaiting_approval' || rec.status === 'awaiting_signatures')
    return { kind: 'done', record: rec };
  let decision = decide({ record: rec, now: now(), config });
  if (decision.kind === 'needs-key-status') {
    // A round's keys are checked one by one with its signatures (checkSignatures), not by the record's first key.
    const keyDisabled = rec.signatureRound
      ? false
      : hint === rec.keyFingerprint && hintDisabled !== undefined
        ? hintDisabled
        : await store.keyFlags.isDisabled(rec.keyFingerprint);
    decision = decide({ record: rec, now: now(), config, keyDisabled });
  }
  switch (decision.kind) {
    case 'done':
      return { kind: 'done', record: rec, alreadyFinal: true };
    case 'watch':
      return watch(deps, rec, decision.deadline);
    case 'expire':
      return settle(deps, rec, decision.error);
    case 'reject':
      return finalize(deps, rec.id, reject(decision.error));
    case 'needs-key-status':
    case 'attempt':
      break;
  }
  // Payloads are dropped only from final records, which never get here.
  const payload = cur.payload;
  if (!payload) throw new StoreError('CORRUPT', `submission ${id} has no payload to submit`);
  const everSubmitted = rec.attempts.length > 0;
  // Never fewer signatures than the party's current threshold: re-signed after a rotation, or not sent at all.
  const checked = await checkSignatures(deps, { ...cur, payload });
  if (checked.kind === 'again')
    return retryAfter(config, rec.attempts.length, 'record changed while re-signing');
  if (checked.kind === 'refuse') {
    if (mayStillCommit(rec)) return watch(deps, rec, recordDeadline(rec, config).at);
    return finalize(deps, rec.id, reject(checked.error));
  }

  // The ledger end before the first attempt bounds the reconciliation scan. Any value read earlier is a
  // valid (if wider) bound, so a worker may share one recent reading between submissions.
  let fromOffset: number;
  try {
    fromOffset = rec.reconcileFromOffset ?? (await (deps.ledgerEnd ?? (() => ledger.ledgerEnd()))());
  } catch (err) {
    // Nothing was sent yet: a ledger that refuses our credentials stops the submission here, as it would the
    // attempt, instead of a retry of the step until the job gives up.
    const c = classifyError(err);
    if (
      c.kind === 'rejected' &&
      (c.error.code === 'LEDGER_UNAUTHENTICATED' || c.error.code === 'LEDGER_PERMISSION_DENIED')
    )
      return finalize(deps, rec.id, reject(c.error));
    throw err;
  }

  // A new attempt: earlier unfinished attempts (crashed workers, lost locks) become "ambiguous".
  const submissionId = randomUUID();
  const first = rec.attempts[0]?.startedAt;
  const dedup = deduplicationSeconds({
    ...(first ? { firstAttemptAt: first } : {}),
    now: now(),
    marginSeconds: config.dedup.marginSeconds,
    maxSeconds: config.dedup.maxSeconds,
    ...(payload.deduplicationSeconds !== undefined ? { requestedSeconds: payload.deduplicationSeconds } : {}),
  });
  const attempt: Attempt = {
    submissionId,
    startedAt: new Date(now()).toISOString(),
    finishedAt: null,
    outcome: 'pending',
    deduplicationSeconds: dedup,
    error: null,
  };
  // Versions already held are passed on: each write then costs one round trip unless someone else wrote.
  const executing = await store.transition(id, startAttempt(attempt, fromOffset), checked.from ?? cur);
  rec = executing.record;
  if (isTerminal(rec.status)) return { kind: 'done', record: rec };
  if (signal?.aborted) throw new Aborted('lock lost before executing');

  const body: ExecuteRequest = {
    preparedTransaction: payload.preparedTransaction,
    partySignatures: checked.partySignatures,
    submissionId,
    hashingSchemeVersion: rec.hashingSchemeVersion,
    deduplicationPeriod: { DeduplicationDuration: { value: { seconds: dedup, nanos: 0 } } },
    userId: rec.userId,
    ...(payload.minLedgerTime !== undefined ? { minLedgerTime: payload.minLedgerTime } : {}),
    ...(payload.transactionFormat !== undefined ? { transactionFormat: payload.transactionFormat } : {}),
  };
  const started = now();
  let tx: JsTransaction;
  try {
    // The attempt's span; the ledger port's execute call is its child and sends its trace context (ledger.ts).
    tx = await inSpan(
      'quill.attempt',
      {
        'quill.submission.id': rec.id,
        'quill.attempt.number': rec.attempts.length,
        'quill.attempt.submission_id': submissionId,
      },
      () => ledger.execute(body, { timeoutMs: config.ledgerTimeoutMs }),
    );
  } catch (err) {
    const c = classifyError(err);
    deps.metrics?.attempts.inc({ outcome: c.kind });
    deps.metrics?.executeSeconds.observe({ outcome: c.kind }, (now() - started) / 1000);
    return afterFailure(deps, rec, submissionId, c, everSubmitted);
  }
  deps.metrics?.attempts.inc({ outcome: 'committed' });
  deps.metrics?.executeSeconds.observe({ outcome: 'committed' }, (now() - started) / 1000);
  return { kind: 'done', record: await commit(deps, id, tx, submissionId, 'committed', executing) };
}

async function afterFailure(
  deps: ExecutorDeps,
  rec: SubmissionRecord,
  submissionId: string,
  c: Classification,
  earlierAttempts: boolean,
): Promise<StepResult> {
  const { store, ledger, config } = deps;
  const finish = (outcome: Attempt['outcome'], error: ErrorInfo | null) =>
    store.update(rec.id, finishAttempt(submissionId, outcome, error, new Date().toISOString()));
  const reconcileOpts = {
    party: rec.party,
    hashHex: rec.preparedTransactionHash,
    commandId: rec.commandId,
    fromOffset: rec.reconcileFromOffset ?? 0,
  };
  if (c.kind === 'duplicate') {
    const found = await tracedReconcile(ledger, {
      ...reconcileOpts,
      ...(c.completionOffset !== undefined ? { completionOffset: c.completionOffset } : {}),
    });
    if (found.found === 'ours') {
      return {
        kind: 'done',
        record: await commit(deps, rec.id, found.transaction, submissionId, 'duplicate'),
      };
    }
    if (found.found === 'other') {
      await finish('duplicate', c.error);
      return finalize(
        deps,
        rec.id,
        reject({
          code: 'DUPLICATE_COMMAND',
          message: `another transaction with command id ${rec.commandId} committed as update ${found.transaction.updateId}`,
        }),
      );
    }
    // The earlier attempt may still be in flight: look again later.
    await finish('duplicate', c.error);
    return retryAfter(config, rec.attempts.length, 'duplicate not yet visible');
  }
  if (c.kind === 'rejected' || c.kind === 'refused') {
    // A refusal that can follow a commit, or an earlier attempt with an unknown outcome that may be the reason
    // for this rejection: look for the transaction before ending the record rejected.
    if (c.kind === 'refused' || earlierAttempts) {
      const found = await tracedReconcile(ledger, reconcileOpts);
      if (found.found === 'ours') {
        return {
          kind: 'done',
          record: await commit(
            deps,
            rec.id,
            found.transaction,
            submissionId,
            'duplicate',
            undefined,
            c.error,
          ),
        };
      }
    }
    await finish('rejected', c.error);
    return finalize(deps, rec.id, reject(c.error));
  }
  await finish(c.kind, c.error);
  return retryAfter(config, rec.attempts.length, c.error.code);
}

/** `reconcile` in a span of its own, saying what it found. */
function tracedReconcile(ledger: LedgerPort, opts: Parameters<typeof reconcile>[1]) {
  return inSpan('quill.reconcile', { 'quill.command_id': opts.commandId }, async (span) => {
    const found = await reconcile(ledger, opts);
    span.setAttribute('quill.reconcile.found', found.found);
    return found;
  });
}

function retryAfter(config: ExecutorConfig, attempts: number, reason: string): StepResult {
  return { kind: 'retry', delayMs: backoffDelay(attempts, config.baseDelayMs, config.maxDelayMs), reason };
}

export async function commit(
  deps: ExecutorDeps,
  id: string,
  tx: JsTransaction,
  submissionId: string,
  outcome: 'committed' | 'duplicate',
  from?: VersionedRecord,
  answered?: ErrorInfo,
): Promise<SubmissionRecord> {
  const change = commitTransition(tx, submissionId, outcome, new Date().toISOString(), answered);
  // The record this call wrote, if its write is the one that stuck (a try may lose to another writer).
  let proposed: SubmissionRecord | undefined;
  const { record: rec } = await deps.store.transition(
    id,
    (r) => {
      proposed = change(r);
      return proposed;
    },
    from,
  );
  if (rec === proposed) {
    deps.metrics?.committed.inc();
    deps.metrics?.commitLatencySeconds.observe((Date.now() - Date.parse(rec.createdAt)) / 1000);
  }
  return rec;
}

/** Applies a final `reject` or `expire` transition; the metric counts only the write that stuck. */
async function finalize(
  deps: ExecutorDeps,
  id: string,
  change: (r: SubmissionRecord) => SubmissionRecord,
): Promise<StepResult> {
  let proposed: SubmissionRecord | undefined;
  const rec = await deps.store.update(id, (r) => {
    proposed = change(r);
    return proposed;
  });
  if (rec === proposed) (rec.status === 'rejected' ? deps.metrics?.rejected : deps.metrics?.expired)?.inc();
  return { kind: 'done', record: rec };
}

/** Searches the ledger for this transaction's commit, after what earlier searches already covered. */
export function searchLedger(deps: ExecutorDeps, rec: SubmissionRecord) {
  return tracedReconcile(deps.ledger, {
    party: rec.party,
    hashHex: rec.preparedTransactionHash,
    commandId: rec.commandId,
    fromOffset: rec.reconciledThroughOffset ?? rec.reconcileFromOffset ?? 0,
  });
}

/**
 * No more attempts, but one may still commit: look for it on the ledger now and again every
 * `maxDelayMs` until the deadline (plus grace) has passed; only then may the record expire.
 */
async function watch(deps: ExecutorDeps, rec: SubmissionRecord, deadline: number): Promise<StepResult> {
  const now = deps.now ?? Date.now;
  const found = await searchLedger(deps, rec);
  if (found.found === 'ours') {
    return { kind: 'done', record: await commit(deps, rec.id, found.transaction, '', 'duplicate') };
  }
  const until = new Date(deadline).toISOString();
  const searched = found.found === 'none' ? found.searchedThrough : undefined;
  const updated = await deps.store.update(
    rec.id,
    awaitOutcome(searched, until, new Date(now()).toISOString()),
  );
  if (isTerminal(updated.status)) return { kind: 'done', record: updated };
  const settleAt = deadline + deps.config.settleGraceMs + 1;
  return { kind: 'wait-until', at: Math.min(settleAt, now() + deps.config.maxDelayMs) };
}

/** Nothing more will be tried: an earlier attempt may still have committed, so look before expiring. */
async function settle(deps: ExecutorDeps, rec: SubmissionRecord, error: ErrorInfo): Promise<StepResult> {
  if (rec.attempts.length > 0) {
    const found = await searchLedger(deps, rec);
    if (found.found === 'ours') {
      return { kind: 'done', record: await commit(deps, rec.id, found.transaction, '', 'duplicate') };
    }
  }
  return finalize(deps, rec.id, expire(error));
}
