/**
 * The token standard's transfer choices, shared by the sandbox's registries (what splice's Amulet implements in
 * `daml/splice-amulet/daml/Splice/ExternalPartyAmuletRules.daml` and `Splice/AmuletTransferInstruction.daml`, and the
 * standard requires in `TransferInstructionV1.daml`):
 * - `TransferFactory_Transfer` (nonconsuming, controller sender): self → merge-split, Completed; a receiver
 *   pre-approval in the choice context → direct, Completed; otherwise → the amount locked for the admin until
 *   `executeBefore` and an instruction for the receiver, Pending. Inputs are fetched through the Holding interface,
 *   then archived; change goes back to the sender.
 * - `TransferInstruction_Accept|Reject|Withdraw` (consuming; receiver, receiver, sender): the locked holding is
 *   archived and its amount goes to the receiver (Completed) or back to the sender (Failed).
 * - `TransferFactory_PublicFetch`: the factory's view.
 * Ledger time is the context's `now`; registries charge no fees.
 */
import { HOLDING_INTERFACE, META_KEYS } from '@quill/canton/token';
import type { BuildCreate, BuildNode } from '../build/index.ts';
import {
  activeContract,
  archiveNode,
  type Ctx,
  fail,
  fetchNode,
  type Outcome,
  requireActor,
} from '../daml.ts';
import { formatAmount } from '../decimal.ts';
import type { Contract } from '../state/index.ts';
import type { HoldingFacts, Registry } from './model.ts';
import {
  factoryTransferArgs,
  instructionArgs,
  type Output,
  publicFetchArgs,
  resultValue,
  type Transfer,
} from './standard.ts';
import { iso, v } from './values.ts';

const transferMeta = (sender: string) => ({ [META_KEYS.txKind]: 'transfer', [META_KEYS.sender]: sender });

/** A Daml `require`: the engine's DAML_FAILURE with the failed condition. */
function require(ok: boolean, why: string): void {
  if (!ok) throw fail.failure(why);
}

/**
 * The standard's preconditions on a transfer (TransferInstructionV1.daml, §1.4 of the reference; Amulet's
 * ExternalPartyAmuletRules checks the same): the admin the caller expects, the instrument, a positive amount,
 * `requestedAt` not in the future, `executeBefore` in the future, and Amulet's cap on the lifetime.
 */
function checkTransfer(ctx: Ctx, reg: Registry, expectedAdmin: string, t: Transfer): void {
  const admin = reg.admin(ctx.state);
  require(expectedAdmin ===
    admin, `expectedAdmin ${expectedAdmin} does not match the registry admin ${admin}`);
  require(t.instrumentId.admin === admin &&
    t.instrumentId.id ===
      reg.instrument
        .id, `unknown instrument ${t.instrumentId.admin}/${t.instrumentId.id}: this factory transfers ${admin}/${reg.instrument.id}`);
  require(t.amount > 0n, `amount must be positive: ${formatAmount(t.amount)}`);
  require(t.requestedAt <=
    ctx.now, `requestedAt ${iso(t.requestedAt)} must be in the past (now ${iso(ctx.now)})`);
  require(t.executeBefore >
    ctx.now, `executeBefore ${iso(t.executeBefore)} must be in the future (now ${iso(ctx.now)})`);
  if (reg.maxTtlMicros !== undefined)
    require(t.executeBefore - t.requestedAt <=
      reg.maxTtlMicros, 'executeBefore - requestedAt exceeds the maximum transfer lifetime');
}

/**
 * The sender's inputs: each fetched through the Holding interface and checked (the sender's, of this instrument,
 * unlocked or with an expired lock), then archived — all of them, as the standard requires. Returns their total.
 */
function consumeInputs(ctx: Ctx, reg: Registry, t: Transfer) {
  require(t.inputHoldingCids.length > 0, 'at least one input holding is required');
  require(new Set(t.inputHoldingCids).size === t.inputHoldingCids.length, 'input holdings must be distinct');
  const fetches: BuildNode[] = [];
  const archives: BuildNode[] = [];
  let total = 0n;
  for (const cid of t.inputHoldingCids) {
    const c = activeContract(ctx, cid);
    const h: HoldingFacts | undefined = reg.holdingOf(c);
    require(h !== undefined, `input ${cid} is not a holding of ${reg.instrument.id}`);
    const facts = h as HoldingFacts;
    require(facts.owner ===
      t.sender, `input ${cid} is owned by ${facts.owner}, not by the sender ${t.sender}`);
    require(facts.admin === t.instrumentId.admin &&
      facts.instrument === t.instrumentId.id, `input ${cid} is of another instrument`);
    // HoldingV1: holdings whose lock has expired are usable as inputs (the registry unlocks them on the way).
    require(facts.lock === undefined ||
      (facts.lock.expiresAt !== undefined && facts.lock.expiresAt <= ctx.now), `input ${cid} is locked`);
    fetches.push(fetchNode(ctx, c, HOLDING_INTERFACE));
    archives.push(archiveNode(ctx, c, c.signatories));
    total += facts.amount;
  }
  require(total >= t.amount, `insufficient funds: ${formatAmount(total)} < ${formatAmount(t.amount)}`);
  return { fetches, archives, total };
}

/** The contracts the choice context names, fetched (they must be disclosed to the submitter). */
function contextContract(ctx: Ctx, cids: Record<string, string>, key: string) {
  const cid = cids[key];
  return cid === undefined ? undefined : activeContract(ctx, cid);
}

export function factoryTransfer(ctx: Ctx, reg: Registry, arg: unknown): Outcome {
  const { expectedAdmin, transfer: t, extra, value } = factoryTransferArgs(arg, ctx);
  requireActor(ctx, t.sender, 'TransferFactory_Transfer');
  checkTransfer(ctx, reg, expectedAdmin, t);
  const reference: BuildNode[] = [];
  for (const key of reg.requiredContext) {
    const c = contextContract(ctx, extra.contextCids, key);
    require(c !== undefined, `missing ${key} in the choice context`);
    reference.push(fetchNode(ctx, c!));
  }
  const { fetches, archives, total } = consumeInputs(ctx, reg, t);
  const change = (): BuildCreate[] =>
    total > t.amount ? [reg.holding(ctx, t.sender, total - t.amount)] : [];
  const preapproval = contextContract(ctx, extra.contextCids, 'transfer-preapproval');
  let children: BuildNode[];
  let output: Output;
  let changeCids: string[];
  let meta = transferMeta(t.sender);
  if (t.receiver === t.sender) {
    // Self transfer: a merge/split of the sender's holdings, completed at once.
    const out = reg.holding(ctx, t.sender, t.amount);
    const rest = change();
    children = [...reference, ...fetches, ...archives, out, ...rest];
    output = { tag: 'TransferInstructionResult_Completed', receiverHoldingCids: [out.contractId] };
    changeCids = rest.map((c) => c.contractId);
    meta = { [META_KEYS.txKind]: 'merge-split', [META_KEYS.sender]: t.sender };
  } else if (preapproval !== undefined) {
    require(reg.isPreapprovalFor(
      preapproval,
      t.receiver,
    ), `transfer-preapproval ${preapproval.contractId} is not the receiver's`);
    const out = reg.holding(ctx, t.receiver, t.amount);
    const rest = change();
    const send = reg.sendViaPreapproval?.(ctx, preapproval, t, [...archives, out, ...rest], {
      received: out.contractId,
      change: rest[0]?.contractId,
    });
    children = [
      ...reference,
      fetchNode(ctx, preapproval),
      ...fetches,
      ...(send ? [send] : [...archives, out, ...rest]),
    ];
    output = { tag: 'TransferInstructionResult_Completed', receiverHoldingCids: [out.contractId] };
    changeCids = rest.map((c) => c.contractId);
  } else {
    // Two steps: lock the amount for the admin until executeBefore, and offer it to the receiver.
    const admin = reg.admin(ctx.state);
    const locked = reg.lockedHolding(ctx, t.sender, t.amount, {
      holders: [admin],
      expiresAt: t.executeBefore,
      context: `transfer to '${t.receiver}'`,
    });
    const rest = change();
    const instruction = reg.instruction(
      ctx,
      { ...t, inputHoldingCids: [locked.contractId] },
      locked.contractId,
    );
    children = [...reference, ...fetches, ...archives, locked, ...rest, instruction];
    output = { tag: 'TransferInstructionResult_Pending', transferInstructionCid: instruction.contractId };
    changeCids = rest.map((c) => c.contractId);
  }
  return { children, consuming: false, choiceArgument: value, result: resultValue(output, changeCids, meta) };
}

const CONTROLLER = {
  TransferInstruction_Accept: 'receiver',
  TransferInstruction_Reject: 'receiver',
  TransferInstruction_Withdraw: 'sender',
} as const;

export function instructionChoice(
  ctx: Ctx,
  reg: Registry,
  instruction: Contract,
  choice: string,
  arg: unknown,
): Outcome | undefined {
  if (!(choice in CONTROLLER)) return undefined;
  const { value } = instructionArgs(choice, arg);
  const facts = reg.instructionOf(instruction);
  if (!facts) throw fail.preprocessing(`contract ${instruction.contractId} is not a transfer instruction`);
  const t = facts.transfer;
  const controller = CONTROLLER[choice as keyof typeof CONTROLLER];
  requireActor(ctx, t[controller], choice);
  const lockedContract = ctx.state.contracts.get(facts.lockedHoldingCid);
  const lockGone = lockedContract === undefined || lockedContract.archivedOffset !== undefined;
  if (choice === 'TransferInstruction_Accept') {
    // Accepting after executeBefore is refused (the standard: registries SHOULD NOT execute after it).
    require(ctx.now < t.executeBefore, `transfer expired at ${iso(t.executeBefore)} (now ${iso(ctx.now)})`);
    require(!lockGone, `the locked holding ${facts.lockedHoldingCid} is no longer active`);
  }
  if (lockGone) {
    // Amulet: the lock expired and the holding was unlocked already; nothing returns to the sender here.
    return {
      children: [],
      consuming: true,
      choiceArgument: value,
      result: resultValue({ tag: 'TransferInstructionResult_Failed' }, [], {}),
    };
  }
  const locked = activeContract(ctx, facts.lockedHoldingCid);
  const archive = archiveNode(ctx, locked, locked.signatories);
  if (choice === 'TransferInstruction_Accept') {
    const out = reg.holding(ctx, t.receiver, t.amount);
    return {
      children: [archive, out],
      consuming: true,
      choiceArgument: value,
      result: resultValue(
        { tag: 'TransferInstructionResult_Completed', receiverHoldingCids: [out.contractId] },
        [],
        transferMeta(t.sender),
      ),
    };
  }
  const back = reg.holding(ctx, t.sender, t.amount);
  return {
    children: [archive, back],
    consuming: true,
    choiceArgument: value,
    result: resultValue({ tag: 'TransferInstructionResult_Failed' }, [back.contractId], {}),
  };
}

export function publicFetch(ctx: Ctx, reg: Registry, arg: unknown): Outcome {
  const { expectedAdmin, actor, value } = publicFetchArgs(arg);
  requireActor(ctx, actor, 'TransferFactory_PublicFetch');
  const admin = reg.admin(ctx.state);
  require(expectedAdmin ===
    admin, `expectedAdmin ${expectedAdmin} does not match the registry admin ${admin}`);
  return {
    children: [],
    consuming: false,
    choiceArgument: value,
    result: v.record({ admin: v.party(admin), meta: v.record({ values: v.textMap({}) }) }),
  };
}
