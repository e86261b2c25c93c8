// The API's ledger reads (src/api LedgerReads) over the wallet's LedgerClient, as one party.
import type { LedgerReads } from '../api/index.ts';
import type { LedgerClient, TransactionFormat } from '../ledger/index.ts';
import type { ScanClient } from '../scan/index.ts';

function format(party: string): TransactionFormat {
  return {
    eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  };
}

export function ledgerReads(client: LedgerClient, scan?: ScanClient): LedgerReads {
  return {
    vettedPackages: (request) => client.listVettedPackages(request),
    ...(scan
      ? { activities: (request: Parameters<ScanClient['listActivities']>[0]) => scan.listActivities(request) }
      : {}),
    async transactionById(updateId, party) {
      return (await client.transactionById({ updateId, transactionFormat: format(party) })).transaction;
    },
    async transactionByOffset(offset, party) {
      return (await client.transactionByOffset({ offset, transactionFormat: format(party) })).transaction;
    },
  };
}
