/**
 * The token standard's V1 types the registries' choices take and return (splice
 * `token-standard/splice-api-token-transfer-instruction-v1/daml/Splice/Api/Token/TransferInstructionV1.daml`,
 * `…-holding-v1/…/HoldingV1.daml`): `Transfer`, `TransferInstructionResult`, the views, and the choice arguments read
 * from their JSON API encoding.
 */
import { TOKEN_STANDARD_PACKAGES } from '@quill/canton/token';
import type { Value } from '@quill/canton/transaction';
import { type Ctx, fail } from '../daml.ts';
import {
  amountOf,
  cidOf,
  extraArgsOf,
  ident,
  listOf,
  metaOf,
  metaValue,
  obj,
  partyOf,
  str,
  timeOf,
  v,
} from './values.ts';

const TI = TOKEN_STANDARD_PACKAGES.find((p) => p.name === 'splice-api-token-transfer-instruction-v1')!;
/** A record type of the transfer-instruction API package (package-id form). */
export const tiType = (entity: string) => ident(`${TI.packageId}:${TI.module}:${entity}`);

export interface InstrumentId {
  admin: string;
  id: string;
}

/** `Transfer` (TransferInstructionV1), amounts in units of 1e-10, times in microseconds. */
export interface Transfer {
  sender: string;
  receiver: string;
  amount: bigint;
  instrumentId: InstrumentId;
  requestedAt: bigint;
  executeBefore: bigint;
  inputHoldingCids: string[];
  meta: Record<string, string>;
}

/** Reads a known party: Daml would accept any party, the sandbox's synchronizer knows only its own. */
function knownParty(ctx: Ctx | undefined, x: unknown, what: string): string {
  const p = partyOf(x, what);
  if (ctx && !ctx.state.parties.has(p)) throw fail.preprocessing(`${what} ${p} is not a known party`);
  return p;
}

export function transferOf(x: unknown, what: string, ctx?: Ctx): Transfer {
  const o = obj(x, what);
  const i = obj(o.instrumentId, `${what}.instrumentId`);
  return {
    sender: knownParty(ctx, o.sender, `${what}.sender`),
    receiver: knownParty(ctx, o.receiver, `${what}.receiver`),
    amount: amountOf(o.amount, `${what}.amount`),
    instrumentId: {
      admin: partyOf(i.admin, `${what}.instrumentId.admin`),
      id: str(i.id, `${what}.instrumentId.id`),
    },
    requestedAt: timeOf(o.requestedAt, `${what}.requestedAt`),
    executeBefore: timeOf(o.executeBefore, `${what}.executeBefore`),
    inputHoldingCids: listOf(o.inputHoldingCids, `${what}.inputHoldingCids`, cidOf),
    meta: metaOf(o.meta, `${what}.meta`),
  };
}

export function transferValue(t: Transfer): Value {
  return v.record({
    sender: v.party(t.sender),
    receiver: v.party(t.receiver),
    amount: v.numeric(t.amount),
    instrumentId: v.record({ admin: v.party(t.instrumentId.admin), id: v.text(t.instrumentId.id) }),
    requestedAt: v.time(t.requestedAt),
    executeBefore: v.time(t.executeBefore),
    inputHoldingCids: v.list(t.inputHoldingCids.map(v.cid)),
    meta: metaValue(t.meta),
  });
}

/** `TransferFactory_Transfer { expectedAdmin, transfer, extraArgs }`. */
export function factoryTransferArgs(x: unknown, ctx?: Ctx) {
  const o = obj(x, 'choiceArgument');
  const expectedAdmin = partyOf(o.expectedAdmin, 'expectedAdmin');
  const transfer = transferOf(o.transfer, 'transfer', ctx);
  const extra = extraArgsOf(o.extraArgs, 'extraArgs');
  const value = v.record(
    { expectedAdmin: v.party(expectedAdmin), transfer: transferValue(transfer), extraArgs: extra.value },
    tiType('TransferFactory_Transfer'),
  );
  return { expectedAdmin, transfer, extra, value };
}

/** `TransferInstruction_Accept|Reject|Withdraw { extraArgs }`. */
export function instructionArgs(choice: string, x: unknown) {
  const extra = extraArgsOf(obj(x, 'choiceArgument').extraArgs, 'extraArgs');
  return { extra, value: v.record({ extraArgs: extra.value }, tiType(choice)) };
}

/** `TransferFactory_PublicFetch { expectedAdmin, actor }`. */
export function publicFetchArgs(x: unknown) {
  const o = obj(x, 'choiceArgument');
  const expectedAdmin = partyOf(o.expectedAdmin, 'expectedAdmin');
  const actor = partyOf(o.actor, 'actor');
  return {
    expectedAdmin,
    actor,
    value: v.record(
      { expectedAdmin: v.party(expectedAdmin), actor: v.party(actor) },
      tiType('TransferFactory_PublicFetch'),
    ),
  };
}

export type Output =
  | { tag: 'TransferInstructionResult_Pending'; transferInstructionCid: string }
  | { tag: 'TransferInstructionResult_Completed'; receiverHoldingCids: string[] }
  | { tag: 'TransferInstructionResult_Failed' };

/** `TransferInstructionResult { output, senderChangeCids, meta }`. */
export function resultValue(output: Output, senderChangeCids: string[], meta: Record<string, string>): Value {
  const payload =
    output.tag === 'TransferInstructionResult_Pending'
      ? v.record({ transferInstructionCid: v.cid(output.transferInstructionCid) })
      : output.tag === 'TransferInstructionResult_Completed'
        ? v.record({ receiverHoldingCids: v.list(output.receiverHoldingCids.map(v.cid)) })
        : v.record({});
  return v.record(
    {
      output: v.variant(output.tag, payload),
      senderChangeCids: v.list(senderChangeCids.map(v.cid)),
      meta: metaValue(meta),
    },
    tiType('TransferInstructionResult'),
  );
}

/** `TransferInstructionView` of a pending instruction (V1: no original, pending the receiver's acceptance). */
export function instructionView(transfer: unknown) {
  return {
    originalInstructionCid: null,
    transfer,
    status: { tag: 'TransferPendingReceiverAcceptance', value: {} },
    meta: { values: {} },
  };
}
