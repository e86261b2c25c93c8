/**
 * Execution of an externally signed PreparedTransaction, like the real participant: the hash is recomputed
 * from the submitted bytes, every actAs party's signatures are verified against the keys and threshold of
 * its active PartyToParticipant (party-signatures.ts, node:crypto), the change id (userId, commandId, actAs) is deduplicated within the requested period,
 * inputs must still be active and the max record time not passed; then the transaction commits atomically
 * with `externalTransactionHash` = hex of the signed hash, and its activities are appended.
 */

import { randomUUID } from 'node:crypto';
import { type JsExecuteSubmissionRequest, ledgerStringProblem } from '@quill/canton/ledger';
import {
  decodePreparedTransactionBase64,
  type HashingSchemeVersion,
  hashPreparedTransaction,
  logicalSynchronizerId,
  type PreparedTransaction,
  TransactionError,
  validatePreparedTransaction,
} from '@quill/canton/transaction';
import { activitiesOf } from './activities.ts';
import { checkConformance } from './conformance.ts';
import { changeIdText, err, javaDuration } from './errors.ts';
import { isoFromMicros } from './lfjson.ts';
import { verifyPartySignatures } from './party-signatures.ts';
import { durationMicros, micros, synchronizerIdForHashing } from './prepare.ts';
import {
  type CommittedNode,
  type Contract,
  type DedupEntry,
  newContract,
  type SandboxState,
  type TransactionUpdate,
} from './state/index.ts';
import { signatureBytes, trafficCost } from './traffic.ts';

/** The deduplication period as CommandsValidator.validateExecuteDeduplicationPeriod leaves it. */
export type DedupPeriod =
  | { kind: 'duration'; micros: bigint; text: string }
  | { kind: 'offset'; offset: number; text: string };

export interface ExecutionPlan {
  tx: PreparedTransaction;
  hashHex: string;
  /** The hashing scheme the signatures are over; V3 is protocol 35, V2 protocol 34. */
  scheme: HashingSchemeVersion;
  changeKey: string;
  /** The change id as the participant prints it in error context (`ChangeId(user,cmd,Set(p))`). */
  changeId: string;
  commandId: string;
  actAs: string[];
  userId: string;
  submissionId: string;
  synchronizerId: string;
  dedup: DedupPeriod;
  /** The ledger time the request asks for at the least: `minLedgerTime`, absolute or relative to now. */
  minLedgerTime: { abs: bigint } | { rel: bigint } | undefined;
  /** Sizes the traffic cost is computed from (traffic.ts). */
  transactionBytes: number;
  signatureBytes: number;
}

/** The latest instant a Daml timestamp can hold (9999-12-31T23:59:59.999999Z). */
const MAX_DAML_MICROS = 253402300799999999n;

/**
 * CommandsValidator.validateExecuteDeduplicationPeriod: `Empty` is the participant's maximum; only a negative
 * duration (DeduplicationPeriodValidator) or a negative offset is refused here. There is no check against the
 * maximum (a longer period is decided by CommandDeduplicator, against the last pruning).
 */
function validateDedupPeriod(state: SandboxState, d: JsExecuteSubmissionRequest['deduplicationPeriod']) {
  if ('DeduplicationOffset' in d) {
    const offset = d.DeduplicationOffset.value;
    if (offset < 0)
      throw err.negativeOffset(
        'deduplication_period',
        offset,
        `the deduplication offset has to be a non-negative integer and not ${offset}`,
      );
    return {
      kind: 'offset',
      offset,
      text: `DeduplicationOffset(${offset === 0 ? 'None' : `Some(Offset(${offset}))`})`,
    };
  }
  const period =
    'DeduplicationDuration' in d
      ? durationMicros(d.DeduplicationDuration.value)
      : BigInt(state.maxDeduplicationSeconds) * 1_000_000n;
  if (period < 0n) throw err.invalidField('deduplication_period', 'Duration must be positive');
  return { kind: 'duration', micros: period, text: `DeduplicationDuration(${javaDuration(period)})` };
}

/**
 * SubmitRequestValidator.validateExecute: submission id, deduplication period, hashing scheme and ledger time,
 * before the hash.
 */
function validateExecuteFields(state: SandboxState, body: JsExecuteSubmissionRequest) {
  // FieldValidator.validateSubmissionId: empty means "generate one"; otherwise a Daml-LF ledger string.
  if (body.submissionId !== '') {
    const problem = ledgerStringProblem(body.submissionId);
    if (problem) throw err.invalidField('submission_id', problem);
  }
  const submissionId = body.submissionId === '' ? randomUUID() : body.submissionId;
  const dedup = validateDedupPeriod(state, body.deduplicationPeriod) as DedupPeriod;
  const scheme = body.hashingSchemeVersion;
  if (scheme === 'HASHING_SCHEME_VERSION_UNSPECIFIED')
    throw err.invalidField('hashing_scheme_version', 'Unspecified version');
  if (scheme === 'UNRECOGNIZED') throw err.invalidField('hashing_scheme_version', 'Unrecognized version -1');
  const time = body.minLedgerTime?.time;
  let minLedgerTime: ExecutionPlan['minLedgerTime'];
  if (time && 'MinLedgerTimeAbs' in time) minLedgerTime = { abs: micros(time.MinLedgerTimeAbs.value) };
  if (time && 'MinLedgerTimeRel' in time) {
    const rel = durationMicros(time.MinLedgerTimeRel.value);
    // CommandsValidator.validateLedgerTime: now + rel must be a Daml timestamp.
    if (rel > MAX_DAML_MICROS)
      throw err.invalidArgument(`Can not represent command ledger time now + ${rel}µs as a Daml timestamp`);
    minLedgerTime = { rel };
  }
  return { submissionId, dedup, scheme: scheme as HashingSchemeVersion, minLedgerTime };
}

/** Synchronous checks that do not depend on ledger state changes: decode, hash, signatures. */
export function planExecution(
  state: SandboxState,
  body: JsExecuteSubmissionRequest,
  userId: string,
): ExecutionPlan {
  const { submissionId, dedup, scheme, minLedgerTime } = validateExecuteFields(state, body);
  let tx: PreparedTransaction;
  let hash: Uint8Array;
  try {
    tx = decodePreparedTransactionBase64(body.preparedTransaction);
    hash = hashPreparedTransaction(tx, scheme);
  } catch (e) {
    if (e instanceof TransactionError) throw err.executeFailed(`Invalid prepared transaction: ${e.message}`);
    throw e;
  }
  const meta = tx.metadata!;
  const actAs = meta.submitterInfo?.actAs ?? [];
  const commandId = meta.submitterInfo?.commandId ?? '';
  const synchronizerId = logicalSynchronizerId(meta.synchronizerId);
  if (!state.synchronizers.some((s) => s.id === synchronizerId)) {
    throw err.executeFailed(`Unknown synchronizer ${meta.synchronizerId}`);
  }
  // The form the synchronizer's protocol version signs (ExternalTransactionProcessor, checked up front).
  const expected = synchronizerIdForHashing(synchronizerId, scheme);
  if (meta.synchronizerId !== expected) {
    const v35 = scheme === 'HASHING_SCHEME_VERSION_V3';
    throw err.executeFailed(
      `The selected synchronizer ${synchronizerId}::${v35 ? 35 : 34}-0 is on Protocol Version ${v35 ? 35 : 34}. ` +
        (v35
          ? 'Please use a Physical Synchronizer ID in the prepared transaction metadata on PVs > 34'
          : 'Please use a Logical Synchronizer ID in the prepared transaction metadata on PVs <= 34'),
    );
  }
  const hashHex = Buffer.from(hash).toString('hex');
  // INTERFACE.md 2 (PartySignatures) and 8: only single-party submissions are supported in execution.
  const signers = new Set(body.partySignatures.signatures.map((s) => s.party));
  if (signers.size > 1)
    throw err.invalidArgument(
      `only single-party submissions are supported: partySignatures carries signatures of ${signers.size} parties`,
    );
  verifyPartySignatures(state, {
    actAs,
    signatures: body.partySignatures.signatures,
    hash,
    synchronizerId,
    pv35: scheme === 'HASHING_SCHEME_VERSION_V3',
  });
  const changeKey = JSON.stringify([userId, commandId, [...actAs].sort()]);
  return {
    tx,
    hashHex,
    scheme,
    changeKey,
    changeId: changeIdText(userId, commandId, actAs),
    commandId,
    actAs,
    userId,
    submissionId,
    synchronizerId,
    dedup,
    minLedgerTime,
    transactionBytes: Buffer.from(body.preparedTransaction, 'base64').length,
    signatureBytes: body.partySignatures.signatures
      .flatMap((s) => s.signatures)
      .reduce((n, sig) => n + signatureBytes(sig.signingAlgorithmSpec), 0),
  };
}

/** CantonTimestamp.MinValue (0001-01-01T00:00:00Z) in microseconds since the epoch. */
const MIN_TIMESTAMP_MICROS = -62135596800n * 1_000_000n;

/**
 * CommandDeduplicator.checkDuplication: against the change id's latest acceptance when there is one
 * (DUPLICATE_COMMAND when it lies within the period), otherwise against the last pruning
 * (`checkAgainstPruning`: INVALID_DEDUPLICATION_PERIOD with `earliest_offset`). A duration reaching before the
 * first timestamp is too early with `longest_duration`. The participant never prunes an offset published
 * within the maximum deduplication duration (FirstUnsafeOffsetComputation), so only a longer duration can
 * start before its last pruning; the sandbox's pruning has no such bound, so shorter ones are not checked.
 */
export function checkDeduplication(state: SandboxState, plan: ExecutionPlan, now: bigint): void {
  const d = plan.dedup;
  const entry = state.dedup.get(plan.changeKey);
  const duplicate = (e: DedupEntry) =>
    err.duplicateCommand(e.completionOffset, e.submissionId, plan.changeId);
  const pruned = state.log.prunedUpTo;
  if (d.kind === 'offset') {
    if (entry) {
      if (d.offset === 0 || entry.completionOffset > d.offset) throw duplicate(entry);
    } else if (pruned > 0 && d.offset < pruned) {
      throw err.dedupStartsTooEarly(plan.changeId, d.text, pruned);
    }
    return;
  }
  const start = now - d.micros;
  if (start < MIN_TIMESTAMP_MICROS)
    throw err.dedupStartsTooEarlyDuration(plan.changeId, d.text, javaDuration(now - MIN_TIMESTAMP_MICROS));
  if (entry) {
    if (entry.recordTimeMicros >= start) throw duplicate(entry);
    return;
  }
  const max = BigInt(state.maxDeduplicationSeconds) * 1_000_000n;
  const prunedAt = state.prunedPublicationMicros;
  if (d.micros > max && pruned > 0 && prunedAt !== undefined && start <= prunedAt)
    throw err.dedupStartsTooEarly(plan.changeId, d.text, pruned);
}

/**
 * Re-checks deduplication, time and inputs, then commits. Runs in one synchronous turn (atomic). The time
 * checks follow the protocol the hashing scheme implies: on protocol 34 (V2) a passed max record time is
 * never sequenced (NOT_SEQUENCED_TIMEOUT); on 35 (V3) it is sequenced and refused by TimeValidator after the
 * ledger-time and preparation-time checks (LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED).
 */
export function commitExecution(
  state: SandboxState,
  plan: ExecutionPlan,
  traceparent?: string,
): TransactionUpdate {
  const now = state.nowMicros();
  const meta = plan.tx.metadata!;
  // Deduplication is decided before sequencing, so a late retry of a committed command is a duplicate.
  checkDeduplication(state, plan, now);
  const passed = meta.maxRecordTime !== undefined && now > meta.maxRecordTime;
  if (passed && plan.scheme !== 'HASHING_SCHEME_VERSION_V3') throw err.notSequencedTimeout();
  // TimeValidator.checkTimestamps: ledger time, then preparation time, then the max record time. The window
  // around the record time is symmetric, so a preparation time too far in the future is refused too.
  const effective = ledgerEffectiveTime(state, plan, now);
  const tolerance = BigInt(state.preparationTimeToleranceSeconds) * 1_000_000n;
  const delta = now - meta.preparationTime;
  if (delta > tolerance || -delta > tolerance) {
    throw err.preparationTimeOutOfBound(
      isoFromMicros(meta.preparationTime),
      isoFromMicros(now),
      `PT${state.preparationTimeToleranceSeconds}S`,
    );
  }
  if (passed) throw err.maxRecordTimeExceeded(isoFromMicros(now), isoFromMicros(meta.maxRecordTime!));
  const inactive = meta.inputContracts
    .map((ic) => (ic.contract.oneofKind === 'v1' ? ic.contract.v1.contractId : ''))
    .filter((cid) => !state.isActive(cid));
  if (inactive.length > 0) throw err.inactiveContracts(inactive);
  checkConformance(state, plan.tx, validatePreparedTransaction(plan.tx), effective);
  const nodes = committedNodes(state, plan, effective);
  const updateId = state.newUpdateId();
  const draft = {
    updateId,
    commandId: plan.commandId,
    workflowId: '',
    userId: plan.userId,
    submissionId: plan.submissionId,
    actAs: plan.actAs,
    effectiveAt: isoFromMicros(effective),
    recordTime: isoFromMicros(now),
    synchronizerId: plan.synchronizerId,
    nodes,
    externalTransactionHash: plan.hashHex,
    traceparent,
    paidTrafficCost: trafficCost(plan.transactionBytes, plan.signatureBytes),
  };
  return state.commit(draft, plan.changeKey, (offset) => activitiesOf(state, draft, offset));
}

/**
 * The ledger effective time as the participant chooses it: now, or later as `minLedgerTime` asks
 * (CommandsValidator.validateLedgerTime), moved into the prepared transaction's [min, max] ledger time bounds
 * (PreparedTransactionDecoder.adjustLedgerTimeToBounds); refused when it is further from the record time than
 * the synchronizer's ledgerTimeRecordTimeTolerance (TimeValidator).
 */
function ledgerEffectiveTime(state: SandboxState, plan: ExecutionPlan, now: bigint): bigint {
  const meta = plan.tx.metadata!;
  const asked = plan.minLedgerTime;
  let time =
    asked === undefined ? now : 'abs' in asked ? (asked.abs > now ? asked.abs : now) : now + asked.rel;
  if (meta.minLedgerEffectiveTime !== undefined && time < meta.minLedgerEffectiveTime)
    time = meta.minLedgerEffectiveTime;
  if (meta.maxLedgerEffectiveTime !== undefined && time > meta.maxLedgerEffectiveTime)
    time = meta.maxLedgerEffectiveTime;
  const tolerance = BigInt(state.ledgerTimeToleranceSeconds) * 1_000_000n;
  if (time - now > tolerance || now - time > tolerance) {
    throw err.ledgerTimeOutOfBound(
      isoFromMicros(time),
      isoFromMicros(now),
      `PT${state.ledgerTimeToleranceSeconds}S`,
    );
  }
  return time;
}

/** The decoded node tree as committed nodes in pre-order (node ids as in the transaction). */
function committedNodes(state: SandboxState, plan: ExecutionPlan, effective: bigint): CommittedNode[] {
  const index = validatePreparedTransaction(plan.tx);
  const local = new Map<string, Contract>();
  const out: CommittedNode[] = [];
  const inputs = new Set(
    plan.tx.metadata!.inputContracts.map((ic) =>
      ic.contract.oneofKind === 'v1' ? ic.contract.v1.contractId : '',
    ),
  );
  const visit = (id: string): number => {
    const entry = index.nodes.get(id)!;
    const type = entry.node.nodeType;
    const nodeId = Number(id);
    if (type.oneofKind === 'create') {
      const c = type.create;
      if (state.contracts.has(c.contractId) || local.has(c.contractId)) {
        throw err.executeFailed(`Contract id ${c.contractId} is already in use`);
      }
      const t = c.templateId!;
      const content = {
        contractId: c.contractId,
        templateId: `${t.packageId}:${t.moduleName}:${t.entityName}`,
        packageId: t.packageId,
        packageName: c.packageName,
        argument: c.argument!,
        signatories: c.signatories,
        stakeholders: c.stakeholders,
      };
      const contract = newContract(content, nodeId, effective, plan.synchronizerId);
      local.set(c.contractId, contract);
      out.push({ kind: 'create', nodeId, contract });
      return nodeId;
    }
    if (type.oneofKind === 'exercise') {
      const e = type.exercise;
      const contract = local.get(e.contractId) ?? state.contracts.get(e.contractId);
      if (!contract || (!local.has(e.contractId) && !inputs.has(e.contractId))) {
        throw err.executeFailed(
          `Exercised contract ${e.contractId} is neither created in the transaction nor an input`,
        );
      }
      const node: CommittedNode = {
        kind: 'exercise',
        nodeId,
        contract,
        choice: e.choiceId,
        choiceArgument: e.chosenValue!,
        interfaceId: e.interfaceId
          ? `${e.interfaceId.packageId}:${e.interfaceId.moduleName}:${e.interfaceId.entityName}`
          : undefined,
        actingParties: e.actingParties,
        consuming: e.consuming,
        lastDescendantNodeId: nodeId,
        result: e.exerciseResult,
      };
      out.push(node);
      let last = nodeId;
      for (const child of e.children) last = Math.max(last, visit(child));
      node.lastDescendantNodeId = last;
      return last;
    }
    if (type.oneofKind === 'rollback') {
      let last = nodeId;
      for (const child of type.rollback.children) last = Math.max(last, visit(child));
      return last;
    }
    return nodeId;
  };
  for (const root of plan.tx.transaction!.roots) visit(root);
  return out;
}
