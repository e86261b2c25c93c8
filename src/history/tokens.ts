// What a transaction does to the token-standard contracts of the wallet's parties, read through the interface
// views the watcher asks for (InterfaceFilter with includeInterfaceView): holdings by their HoldingView,
// transfer instructions by their TransferInstructionView. No template knowledge: any registry's holdings count.
// token-standard.md §1.3, §1.4, §3.2.
import type { JsInterfaceView, JsTransaction } from '@quill/canton/ledger';
import {
  HOLDING_INTERFACE,
  isInterface,
  META_KEYS,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import { z } from 'zod';

const Party = z.string().min(1);
/** A Daml Decimal (Numeric 10) as the JSON API writes it; summed exactly by the API, never as a float. */
const Amount = z.string().regex(/^-?\d{1,28}(\.\d{1,10})?$/, 'not a Daml Decimal');
const Instrument = z.object({ admin: Party, id: z.string() });
const Meta = z.object({ values: z.record(z.string(), z.string()).nullish() }).nullish();

/** `HoldingView` (§1.3); `None` fields may be null or absent (§1.9). */
const HoldingViewValue = z.object({
  owner: Party,
  instrumentId: Instrument,
  amount: Amount,
  lock: z
    .object({
      holders: z.array(z.string()),
      expiresAt: z.string().nullish(),
      expiresAfter: z
        .object({ microseconds: z.union([z.string().regex(/^-?\d{1,20}$/), z.number().int()]) })
        .nullish(),
      context: z.string().nullish(),
    })
    .nullish(),
  meta: Meta,
});

/** `TransferInstructionView` (§1.4). */
const InstructionViewValue = z.object({
  originalInstructionCid: z.string().nullish(),
  transfer: z.object({
    sender: Party,
    receiver: Party,
    amount: Amount,
    instrumentId: Instrument,
    requestedAt: z.string(),
    executeBefore: z.string(),
    meta: Meta,
  }),
  status: z.object({ tag: z.string() }),
});

export interface Lock {
  holders: string[];
  expiresAt: string | null;
  /** RelTime after the holding's creation, in microseconds. */
  expiresAfterMicros: string | null;
  context: string | null;
}

/** An active holding as the index keeps it. */
export interface IndexedHolding {
  contractId: string;
  templateId: string;
  owner: string;
  instrument: { admin: string; id: string };
  amount: string;
  lock: Lock | null;
  /** When the holding was created (a relative lock expiry counts from it). */
  createdAt: string;
  offset: number;
}

/** A pending transfer instruction as the index keeps it. */
export interface IndexedInstruction {
  contractId: string;
  templateId: string;
  updateId: string;
  offset: number;
  sender: string;
  receiver: string;
  amount: string;
  instrument: { admin: string; id: string };
  requestedAt: string;
  executeBefore: string;
  /** `transfer.meta` 'splice.lfdecentralizedtrust.org/reason'. */
  memo: string | null;
  /** `TransferPendingReceiverAcceptance` or `TransferPendingInternalWorkflow`. */
  status: string;
  originalInstructionCid: string | null;
}

export interface TokenChanges {
  holdings: IndexedHolding[];
  instructions: IndexedInstruction[];
  /** Contracts the transaction consumed (never ones it also created: those never were active). */
  consumed: string[];
}

/** The view of `iface` a created event carries, when it was computed (viewStatus code 0). */
function viewOf(views: readonly JsInterfaceView[] | null | undefined, iface: string): unknown {
  const v = views?.find((x) => isInterface(x.interfaceId, iface));
  return v && (v.viewStatus?.code ?? 0) === 0 ? v.viewValue : undefined;
}

/**
 * The token-standard contracts a transaction created and the contracts it consumed, net of each other (a
 * contract created and consumed in the same transaction was never active). A view that does not parse is a
 * registry's bug, not a reason to stop the watcher: it is left out.
 */
export function tokenChanges(tx: JsTransaction): TokenChanges {
  const holdings = new Map<string, IndexedHolding>();
  const instructions = new Map<string, IndexedInstruction>();
  const consumed = new Set<string>();
  for (const e of tx.events) {
    if ('CreatedEvent' in e) {
      const c = e.CreatedEvent;
      const h = HoldingViewValue.safeParse(viewOf(c.interfaceViews, HOLDING_INTERFACE));
      if (h.success) {
        const v = h.data;
        holdings.set(c.contractId, {
          contractId: c.contractId,
          templateId: c.templateId,
          owner: v.owner,
          instrument: { admin: v.instrumentId.admin, id: v.instrumentId.id },
          amount: v.amount,
          lock: v.lock
            ? {
                holders: v.lock.holders,
                expiresAt: v.lock.expiresAt ?? null,
                expiresAfterMicros:
                  v.lock.expiresAfter != null ? String(v.lock.expiresAfter.microseconds) : null,
                context: v.lock.context ?? null,
              }
            : null,
          createdAt: c.createdAt,
          offset: tx.offset,
        });
      }
      const t = InstructionViewValue.safeParse(viewOf(c.interfaceViews, TRANSFER_INSTRUCTION_INTERFACE));
      if (t.success) {
        const { transfer, status, originalInstructionCid } = t.data;
        instructions.set(c.contractId, {
          contractId: c.contractId,
          templateId: c.templateId,
          updateId: tx.updateId,
          offset: tx.offset,
          sender: transfer.sender,
          receiver: transfer.receiver,
          amount: transfer.amount,
          instrument: { admin: transfer.instrumentId.admin, id: transfer.instrumentId.id },
          requestedAt: transfer.requestedAt,
          executeBefore: transfer.executeBefore,
          memo: transfer.meta?.values?.[META_KEYS.reason] ?? null,
          status: status.tag,
          originalInstructionCid: originalInstructionCid ?? null,
        });
      }
    } else {
      // A consumed contract is gone whatever it implements (`implementedInterfaces` names the interfaces; an
      // id the index does not hold costs a no-op HDEL), so every consuming event counts.
      const id =
        'ArchivedEvent' in e
          ? e.ArchivedEvent.contractId
          : e.ExercisedEvent.consuming
            ? e.ExercisedEvent.contractId
            : undefined;
      if (id === undefined) continue;
      if (holdings.delete(id) || instructions.delete(id)) continue;
      consumed.add(id);
    }
  }
  return {
    holdings: [...holdings.values()],
    instructions: [...instructions.values()],
    consumed: [...consumed],
  };
}

/** When a lock stops holding (inclusive), or undefined for never: the earlier of its two expiries (§1.3). */
export function lockExpiry(lock: Lock, createdAt: string): number | undefined {
  const at = lock.expiresAt ? Date.parse(lock.expiresAt) : undefined;
  const after =
    lock.expiresAfterMicros !== null
      ? Date.parse(createdAt) + Number(BigInt(lock.expiresAfterMicros) / 1000n)
      : undefined;
  const all = [at, after].filter((t): t is number => t !== undefined && Number.isFinite(t));
  return all.length ? Math.min(...all) : undefined;
}

/** Whether a holding is locked at `now`: a lock whose expiry has come (expiresAt <= now) no longer counts. */
export function isLocked(h: Pick<IndexedHolding, 'lock' | 'createdAt'>, now: number): boolean {
  if (!h.lock) return false;
  const until = lockExpiry(h.lock, h.createdAt);
  return until === undefined || until > now;
}
