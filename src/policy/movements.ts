// Asset movements: what a decoded, hash-checked transaction does to each party's holdings, per instrument, read from
// the contracts it creates and consumes (issue 27). Recognizers (data, ./recognizers.ts) value the holdings; a
// holding no recognizer can value is an unrecognized movement, never amount 0. Instruments are never summed together.
import type { InstrumentId } from '@quill/canton/token';

/** A holding the transaction creates or consumes, valued by a recognizer. Amounts are exact decimal strings. */
export interface HoldingRef {
  contractId: string;
  /** Package-name qualified template (`#name:Module:Entity`). */
  template: string;
  owner: string;
  instrument: InstrumentId;
  amount: string;
  locked: boolean;
}

/** One party's change in one instrument. Every figure is a non-negative exact decimal string. */
export interface InstrumentDelta {
  party: string;
  instrument: InstrumentId;
  /** Unlocked holdings consumed minus unlocked holdings created back to the party, when positive: what leaves. */
  outflow: string;
  /** Unlocked holdings the party gains, when the party's unlocked total grows. */
  inflow: string;
  /** Locked holdings the party gains (funds set aside for a pending transfer). */
  locked: string;
  /** Locked holdings of the party consumed. */
  unlocked: string;
}

/** A token-standard transfer the transaction makes or settles, from its choice argument and result. */
export interface TokenTransfer {
  /** The exercise's node id. */
  nodeId: string;
  choice:
    | 'TransferFactory_Transfer'
    | 'TransferInstruction_Accept'
    | 'TransferInstruction_Reject'
    | 'TransferInstruction_Withdraw';
  sender: string;
  receiver: string;
  amount: string;
  instrument: InstrumentId;
  /** ISO time; null when the transaction does not say (an accept of an instruction it does not carry). */
  executeBefore: string | null;
  /** `splice.lfdecentralizedtrust.org/reason`, null when absent or empty. */
  memo: string | null;
}

export interface UnrecognizedMovement {
  contractId: string;
  template: string;
  /** Why Quill cannot value it, for people. */
  why: string;
}

export interface AssetMovements {
  created: HoldingRef[];
  consumed: HoldingRef[];
  /** Per (party, instrument), parties in first-seen order. */
  deltas: InstrumentDelta[];
  transfers: TokenTransfer[];
  unrecognized: UnrecognizedMovement[];
}
