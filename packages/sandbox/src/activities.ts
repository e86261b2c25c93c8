/**
 * The scan activity feed (`POST /v0/activities`, scan-activities.md): activities derived from committed coin
 * choices, rendered with snake_case keys, `coin` in place of the brand word, 10-digit decimals, explicit
 * nulls and 18-hex-digit legacy offsets. Paging follows INTERFACE.md 4.8, not the deployed scan (README):
 * event ids increase monotonically as strings (`#<offset, 20 digits>:<node id, 10 digits>`), activities are
 * listed oldest first, and a page holds those whose event id is greater than `begin_after_id`.
 */

import { COIN_PACKAGE } from './coin.ts';
import { formatAmount, parseAmount } from './decimal.ts';
import { field, text } from './lfjson.ts';
import type { ActivityRecord, CommittedNode, SandboxState, TransactionUpdate } from './state/index.ts';

type Base = Omit<TransactionUpdate, 'offset' | 'kind'>;

function childCreates(nodes: CommittedNode[], index: number): CommittedNode[] {
  const parent = nodes[index];
  if (parent?.kind !== 'exercise') return [];
  return nodes.filter(
    (n) => n.kind === 'create' && n.nodeId > parent.nodeId && n.nodeId <= parent.lastDescendantNodeId,
  );
}

function amountOf(n: CommittedNode | undefined): bigint {
  return n ? (parseAmount(text(field(n.contract.argument, 'amount'))) ?? 0n) : 0n;
}

function ownerOf(n: CommittedNode | undefined): string {
  return n ? (text(field(n.contract.argument, 'owner')) ?? '') : '';
}

/** Activities of one committed transaction, in node order. */
export function activitiesOf(state: SandboxState, tx: Base, offset: number): ActivityRecord[] {
  const out: ActivityRecord[] = [];
  // Literals of one fixed shape (V8 keeps them compact; spreads would not).
  const base = (nodeId: number, type: ActivityRecord['type'], round: number | null): ActivityRecord => ({
    updateId: tx.updateId,
    nodeId,
    offset,
    date: tx.effectiveAt,
    domainId: tx.synchronizerId,
    round,
    type,
    owner: undefined,
    amount: undefined,
    transfer: undefined,
    abort: undefined,
  });
  tx.nodes.forEach((n, i) => {
    if (n.kind !== 'exercise' || n.contract.packageName !== COIN_PACKAGE) return;
    const created = childCreates(tx.nodes, i);
    const arg = n.contract.argument;
    switch (n.choice) {
      case 'CoinRules_DevNet_Tap':
      case 'CoinRules_Mint': {
        const tap = n.choice === 'CoinRules_DevNet_Tap';
        const a = base(n.nodeId, tap ? 'devnet_tap' : 'mint', tap ? state.currentRound() : null);
        a.owner = ownerOf(created[0]);
        a.amount = amountOf(created[0]);
        out.push(a);
        return;
      }
      case 'Holding_Transfer': {
        const sender = text(field(arg, 'owner')) ?? '';
        const input = amountOf(n);
        const receiver = created[0];
        out.push({
          ...base(n.nodeId, 'transfer', state.currentRound()),
          transfer: {
            sender,
            inputAmount: input,
            changeAmount: created.length > 1 ? amountOf(created[1]) : 0n,
            receivers: [{ party: ownerOf(receiver), amount: amountOf(receiver) }],
            description: null,
            kind: null,
          },
        });
        return;
      }
      case 'Holding_CreateTransferInstruction': {
        const sender = text(field(arg, 'owner')) ?? '';
        const instruction = created[0];
        const amount = amountOf(instruction);
        const description = instruction
          ? text(field(instruction.contract.argument, 'description'))
          : undefined;
        // Synthesised like scan does for two-step transfers: funds stay (locked) with the sender, round 0.
        out.push({
          ...base(n.nodeId, 'transfer', 0),
          transfer: {
            sender,
            inputAmount: 0n,
            changeAmount: 0n,
            receivers: [{ party: sender, amount }],
            description: description ? description : null,
            kind: 'create_transfer_instruction',
            instructionReceiver: instruction
              ? text(field(instruction.contract.argument, 'receiver'))
              : undefined,
            instructionAmount: amount,
            instructionCid: instruction?.contract.contractId,
          },
        });
        return;
      }
      case 'TransferInstruction_Accept': {
        const amount = amountOf(n);
        out.push({
          ...base(n.nodeId, 'transfer', 0),
          transfer: {
            sender: text(field(arg, 'sender')) ?? '',
            inputAmount: amount,
            changeAmount: 0n,
            receivers: [{ party: text(field(arg, 'receiver')) ?? '', amount }],
            description: null,
            kind: 'transfer_instruction_accept',
            instructionCid: n.contract.contractId,
          },
        });
        return;
      }
      case 'TransferInstruction_Reject':
      case 'TransferInstruction_Withdraw':
        out.push({
          ...base(n.nodeId, 'abort_transfer_instruction', null),
          abort: {
            kind: n.choice === 'TransferInstruction_Reject' ? 'reject' : 'withdraw',
            cid: n.contract.contractId,
          },
        });
        return;
      default:
        return;
    }
  });
  return out;
}

const ZERO = formatAmount(0n);

/** The wire item (snake_case, `coin` names, explicit nulls). */
function activityJson(a: ActivityRecord) {
  const t = a.transfer;
  const synthesised = t?.kind === 'create_transfer_instruction' || t?.kind === 'transfer_instruction_accept';
  return {
    activity_type: a.type,
    event_id: eventIdOf(a),
    offset: `00${a.offset.toString(16).padStart(16, '0')}`,
    date: a.date,
    domain_id: a.domainId,
    round: a.round,
    transfer: t
      ? {
          sender: {
            party: t.sender,
            input_coin_amount: formatAmount(t.inputAmount),
            input_app_reward_amount: ZERO,
            input_validator_reward_amount: ZERO,
            input_sv_reward_amount: ZERO,
            input_validator_faucet_amount: synthesised ? null : ZERO,
            sender_change_fee: ZERO,
            sender_change_amount: formatAmount(t.changeAmount),
            sender_fee: ZERO,
            holding_fees: ZERO,
          },
          receivers: t.receivers.map((r) => ({
            party: r.party,
            amount: formatAmount(r.amount),
            receiver_fee: ZERO,
          })),
          balance_changes: [],
          description: t.description,
          transferInstructionReceiver: t.instructionReceiver ?? null,
          transferInstructionAmount:
            t.instructionAmount === undefined ? null : formatAmount(t.instructionAmount),
          transferInstructionCid: t.instructionCid ?? null,
          transfer_kind: t.kind,
        }
      : null,
    mint: a.type === 'mint' ? { coin_owner: a.owner ?? '', coin_amount: formatAmount(a.amount ?? 0n) } : null,
    tap:
      a.type === 'devnet_tap'
        ? { coin_owner: a.owner ?? '', coin_amount: formatAmount(a.amount ?? 0n) }
        : null,
    abort_transfer_instruction: a.abort
      ? { abort_kind: a.abort.kind, transfer_instruction_cid: a.abort.cid }
      : null,
  };
}

/** Ordered as strings exactly as by (offset, node id): fixed-width decimal. */
export function eventIdOf(a: Pick<ActivityRecord, 'offset' | 'nodeId'>): string {
  return `#${String(a.offset).padStart(20, '0')}:${String(a.nodeId).padStart(10, '0')}`;
}

/** Up to `pageSize` activities whose event id is greater than `beginAfterId` (any string), oldest first. */
export function listActivities(state: SandboxState, pageSize: number, beginAfterId: string | undefined) {
  const all = state.activities;
  // Activities are appended in (offset, node id) order, so their ids are sorted: binary search the first.
  let lo = 0;
  let hi = all.length;
  if (beginAfterId) {
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (eventIdOf(all[mid]!) > beginAfterId) hi = mid;
      else lo = mid + 1;
    }
  }
  return all.slice(lo, lo + pageSize).map(activityJson);
}
