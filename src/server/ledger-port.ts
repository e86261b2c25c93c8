// The pipeline's ledger port over src/ledger's LedgerClient.
import { type LedgerClient, LedgerError } from '../ledger/index.ts';
import type { LedgerPort, TransactionLike } from '../submissions/index.ts';

function transactionFormat(party: string) {
  return {
    eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' as const,
  };
}

export function ledgerPort(client: LedgerClient): LedgerPort {
  return {
    async execute(body, opts) {
      const res = await client.executeAndWaitForTransaction(body as never, { timeoutMs: opts.timeoutMs });
      return res.transaction as unknown as TransactionLike;
    },
    ledgerEnd: () => client.ledgerEndOffset(),
    async transactionAt(offset, party) {
      try {
        const res = await client.transactionByOffset({ offset, transactionFormat: transactionFormat(party) });
        return res.transaction as unknown as TransactionLike;
      } catch (err) {
        if (err instanceof LedgerError && (err.code === 'UPDATE_NOT_FOUND' || err.status === 404))
          return undefined;
        throw err;
      }
    },
    async *transactions(party, beginExclusive, endInclusive) {
      for await (const u of client.iterateUpdates({
        beginExclusive,
        endInclusive,
        pageSize: 200,
        updateFormat: { includeTransactions: transactionFormat(party) },
      })) {
        if ('Transaction' in u) yield u.Transaction.value as unknown as TransactionLike;
      }
    },
  };
}
