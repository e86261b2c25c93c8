// Finds the transaction an earlier attempt committed: by the completion offset a DUPLICATE_COMMAND names,
// or by scanning the party's updates after the offset recorded before the first attempt for our hash.

/** A committed transaction as the ledger returns it (JsTransaction); only the fields we read are typed. */
export interface TransactionLike {
  updateId: string;
  offset: number;
  externalTransactionHash?: string | null;
  commandId?: string | null;
  [k: string]: unknown;
}

/** The ledger calls the pipeline makes; `LedgerClient` (src/ledger) satisfies it through `ledgerPort()`. */
export interface LedgerPort {
  execute(body: Record<string, unknown>, opts: { timeoutMs: number }): Promise<TransactionLike>;
  ledgerEnd(): Promise<number>;
  /** The transaction at an offset, visible to the party, or undefined when there is none for it. */
  transactionAt(offset: number, party: string): Promise<TransactionLike | undefined>;
  /** Transactions visible to the party in (beginExclusive, endInclusive], in pages. */
  transactions(party: string, beginExclusive: number, endInclusive: number): AsyncIterable<TransactionLike>;
}

export type ReconcileResult =
  | { found: 'ours'; transaction: TransactionLike }
  | { found: 'other'; transaction: TransactionLike }
  /** Not there up to `searchedThrough` (a ledger end): a later search may start after it. */
  | { found: 'none'; searchedThrough: number };

export async function reconcile(
  ledger: LedgerPort,
  opts: { party: string; hashHex: string; commandId: string; fromOffset: number; completionOffset?: number },
): Promise<ReconcileResult> {
  if (opts.completionOffset !== undefined) {
    const tx = await ledger.transactionAt(opts.completionOffset, opts.party);
    if (tx && sameHash(tx, opts.hashHex)) return { found: 'ours', transaction: tx };
    if (tx && tx.commandId === opts.commandId && !tx.externalTransactionHash) {
      return { found: 'ours', transaction: tx };
    }
  }
  const end = await ledger.ledgerEnd();
  let other: TransactionLike | undefined;
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

function sameHash(tx: TransactionLike, hashHex: string): boolean {
  return (
    typeof tx.externalTransactionHash === 'string' && tx.externalTransactionHash.toLowerCase() === hashHex
  );
}
