// Finds the transaction an earlier attempt committed: by the completion offset a DUPLICATE_COMMAND names,
// or by scanning the party's updates after the offset recorded before the first attempt for our hash.

import type {
  JsExecuteSubmissionAndWaitForTransactionRequest,
  JsPrepareSubmissionRequest,
  JsPrepareSubmissionResponse,
  JsTransaction,
} from '@quill/canton/ledger';
import type { z } from 'zod';

/** What the worker sends: the ledger contract's request, as the client takes it. */
export type ExecuteRequest = z.input<typeof JsExecuteSubmissionAndWaitForTransactionRequest>;

/** The ledger calls the pipeline makes, in the ledger contract's types; `ledgerPort()` (src/server) adapts a `LedgerClient`. */
export interface LedgerPort {
  execute(body: ExecuteRequest, opts: { timeoutMs: number }): Promise<JsTransaction>;
  ledgerEnd(): Promise<number>;
  /** The transaction at an offset, visible to the party, or undefined when there is none for it. */
  transactionAt(offset: number, party: string): Promise<JsTransaction | undefined>;
  /** Transactions visible to the party in (beginExclusive, endInclusive], in pages. */
  transactions(party: string, beginExclusive: number, endInclusive: number): AsyncIterable<JsTransaction>;
  /**
   * Optional: the transaction with this externalTransactionHash from the watcher's index (src/events), looked
   * at before any ledger call; undefined when the index does not (yet) hold it.
   */
  indexed?(hashHex: string): Promise<JsTransaction | undefined>;
  /**
   * Optional: of `names`, the package names no package uploaded on the participant has (the participant would
   * answer PACKAGE_NAMES_NOT_FOUND when reading with a filter naming them).
   */
  unknownPackageNames?(names: readonly string[]): Promise<string[]>;
  /** Optional: the participant's prepare, for intents (src/intents); absent: intents answer 503. */
  prepare?(body: JsPrepareSubmissionRequest): Promise<JsPrepareSubmissionResponse>;
}

export type ReconcileResult =
  | { found: 'ours'; transaction: JsTransaction }
  | { found: 'other'; transaction: JsTransaction }
  /** Not there up to `searchedThrough` (a ledger end): a later search may start after it. */
  | { found: 'none'; searchedThrough: number };

export async function reconcile(
  ledger: LedgerPort,
  opts: { party: string; hashHex: string; commandId: string; fromOffset: number; completionOffset?: number },
): Promise<ReconcileResult> {
  if (ledger.indexed) {
    const tx = await ledger.indexed(opts.hashHex).catch(() => undefined);
    if (tx && sameHash(tx, opts.hashHex)) return { found: 'ours', transaction: tx };
  }
  if (opts.completionOffset !== undefined) {
    const tx = await ledger.transactionAt(opts.completionOffset, opts.party);
    if (tx && sameHash(tx, opts.hashHex)) return { found: 'ours', transaction: tx };
    if (tx && tx.commandId === opts.commandId && !tx.externalTransactionHash) {
      return { found: 'ours', transaction: tx };
    }
  }
  const end = await ledger.ledgerEnd();
  let other: JsTransaction | undefined;
  if (end > opts.fromOffset) {
    for await (const tx of ledger.transactions(opts.party, opts.fromOffset, end)) {
      if (sameHash(tx, opts.hashHex)) return { found: 'ours', transaction: tx };
      if (tx.commandId === opts.commandId && !other) other = tx;
    }
  }
  return other
    ? { found: 'other', transaction: other }
    : { found: 'none', searchedThrough: Math.max(end, opts.fromOffset) };
}

function sameHash(tx: JsTransaction, hashHex: string): boolean {
  return (
    typeof tx.externalTransactionHash === 'string' && tx.externalTransactionHash.toLowerCase() === hashHex
  );
}
