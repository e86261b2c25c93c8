/**
 * `POST /v2/interactive-submission/prepare`: interprets the command for the coin templates (or a generic
 * template), builds a real PreparedTransaction (node seeds, metadata, input contracts, ledger-time bounds,
 * max record time) and returns it with its hash under the requested scheme (default V2).
 */

import type { JsPrepareSubmissionRequest } from '@quill/canton/ledger';
import {
  encodePreparedTransaction,
  type HashingSchemeVersion,
  hashPreparedTransaction,
  TransactionError,
} from '@quill/canton/transaction';
import { buildPreparedTransaction } from './build/index.ts';
import { disclosedContracts } from './disclosed.ts';
import { err } from './errors.ts';
import { interpret } from './interpret.ts';
import { isoFromMicros } from './lfjson.ts';
import type { SandboxState } from './state/index.ts';
import {
  CONFIRMATION_RESPONSE_COST,
  confirmationRequestCost,
  signatureBytes,
  trafficCost,
} from './traffic.ts';

export function micros(iso: string): bigint {
  const m = /^(.*?)(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/.exec(iso);
  const ms = Date.parse(`${m?.[1] ?? iso}${m?.[3] ?? ''}`);
  if (!Number.isFinite(ms)) throw err.invalidField('timestamp', `invalid timestamp ${iso}`);
  return BigInt(ms) * 1000n + BigInt((m?.[2] ?? '').padEnd(6, '0').slice(0, 6) || '0');
}

export function durationMicros(d: { seconds: number; nanos: number }): bigint {
  return BigInt(d.seconds) * 1_000_000n + BigInt(Math.trunc(d.nanos / 1000));
}

function schemeOf(v: string | null | undefined, fallback: HashingSchemeVersion): HashingSchemeVersion {
  if (v === 'HASHING_SCHEME_VERSION_V2' || v === 'HASHING_SCHEME_VERSION_V3') return v;
  return fallback;
}

/**
 * The sandbox runs V3 hashing as protocol version 35 and V2 as 34. Protocol 35 names the physical synchronizer,
 * `<logical>::35-<serial>`, in what is signed; 34 the logical one (PhysicalSynchronizerId.forExternalTransactionHashing).
 * The sandbox's synchronizers keep serial 0.
 */
export function synchronizerIdForHashing(logical: string, scheme: HashingSchemeVersion): string {
  return scheme === 'HASHING_SCHEME_VERSION_V3' ? `${logical}::35-0` : logical;
}

export function prepare(state: SandboxState, req: JsPrepareSubmissionRequest) {
  if (req.commands.length === 0) throw err.missingField('commands');
  if (req.actAs.length === 0) throw err.missingField('act_as');
  for (const p of [...req.actAs, ...(req.readAs ?? [])]) {
    if (!state.parties.has(p)) throw err.partyNotFound(p);
  }
  const synchronizerId = req.synchronizerId === '' ? state.defaultSynchronizer : req.synchronizerId;
  if (!state.synchronizers.some((s) => s.id === synchronizerId)) {
    throw err.invalidField('synchronizer_id', `unknown synchronizer ${synchronizerId}`);
  }
  if (req.hashingSchemeVersion === 'UNRECOGNIZED')
    throw err.invalidField('hashing_scheme_version', 'unrecognized');
  const scheme = schemeOf(req.hashingSchemeVersion, 'HASHING_SCHEME_VERSION_V2');
  const disclosed = disclosedContracts(state, req.disclosedContracts ?? []);
  const now = state.nowMicros();
  const draft = interpret(state, req.commands, req.actAs, {
    disclosed: new Set(disclosed.map((c) => c.contractId)),
    now,
  });
  // The input contracts are every contract the transaction uses, and the disclosed ones.
  const inputs = new Map(draft.inputs.map((c) => [c.contractId, c]));
  for (const c of disclosed) inputs.set(c.contractId, c);
  const time = req.minLedgerTime?.time;
  let minLet: bigint | undefined;
  if (time && 'MinLedgerTimeAbs' in time) minLet = micros(time.MinLedgerTimeAbs.value);
  if (time && 'MinLedgerTimeRel' in time) minLet = now + durationMicros(time.MinLedgerTimeRel.value);
  for (const c of inputs.values()) {
    // Ledger time may not precede the creation of any input contract.
    if (minLet === undefined || c.createdAtMicros > minLet) minLet = c.createdAtMicros;
  }
  try {
    const tx = buildPreparedTransaction({
      roots: draft.roots,
      actAs: [...req.actAs],
      commandId: req.commandId,
      synchronizerId: synchronizerIdForHashing(synchronizerId, scheme),
      preparationTime: now,
      inputContracts: [...inputs.values()].map((c) => ({
        contract: {
          contractId: c.contractId,
          packageName: c.packageName,
          templateId: c.templateId,
          argument: c.argument,
          signatories: c.signatories,
          stakeholders: c.stakeholders,
        },
        createdAt: c.createdAtMicros,
      })),
      minLedgerEffectiveTime: minLet,
      maxRecordTime: req.maxRecordTime ? micros(req.maxRecordTime) : undefined,
    });
    const bytes = encodePreparedTransaction(tx);
    const hash = hashPreparedTransaction(tx, scheme);
    // Signatures as the hints say, else one per actAs party with its first key (Ed25519 for the sandbox's keys).
    const expected = req.estimateTrafficCost?.expectedSignatures ?? [];
    const signatures =
      expected.length > 0
        ? expected.reduce((n, alg) => n + signatureBytes(alg), 0)
        : req.actAs.length * signatureBytes(undefined);
    const estimate = req.estimateTrafficCost?.disabled
      ? null
      : {
          estimationTimestamp: isoFromMicros(now),
          confirmationRequestTrafficCostEstimation: confirmationRequestCost(bytes.length, signatures),
          confirmationResponseTrafficCostEstimation: CONFIRMATION_RESPONSE_COST,
          totalTrafficCostEstimation: trafficCost(bytes.length, signatures),
        };
    return {
      preparedTransaction: Buffer.from(bytes).toString('base64'),
      preparedTransactionHash: Buffer.from(hash).toString('base64'),
      hashingSchemeVersion: scheme,
      hashingDetails: req.verboseHashing
        ? `hash=${Buffer.from(hash).toString('hex')} scheme=${scheme}`
        : null,
      costEstimation: estimate,
    };
  } catch (e) {
    if (e instanceof TransactionError) throw err.prepareFailed(e.message);
    throw e;
  }
}
