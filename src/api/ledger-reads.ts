// The API's ledger reads (src/api LedgerReads) over the wallet's LedgerClient, as one party.

import {
  type LedgerClient,
  LedgerError,
  type TransactionFormat,
  type UpdateFormat,
} from '@quill/canton/ledger';
import type { ScanClient } from '@quill/canton/scan';
import type { LedgerReads } from './context.ts';

function format(party: string): TransactionFormat {
  return {
    eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  };
}

/** Transactions as the party sees them, with its reassignments and topology events (INTERFACE.md 4.2, 4.5). */
function updateFormat(party: string): UpdateFormat {
  const eventFormat = { filtersByParty: { [party]: { cumulative: [] } }, verbose: false };
  return {
    includeTransactions: { eventFormat, transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' },
    includeReassignments: eventFormat,
    includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [party] } },
  };
}

/**
 * `userId`: the wallet's ledger user (LEDGER_USER_ID); without it, the user the ledger token authenticates.
 */
export function ledgerReads(client: LedgerClient, scan?: ScanClient, userId?: string): LedgerReads {
  const walletUser = async () => userId ?? (await client.authenticatedUser()).user.id;
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
    async updates(range, party) {
      const page = await client.updatesFlats(
        {
          beginExclusive: range.beginExclusive,
          endInclusive: range.endInclusive,
          descendingOrder: range.descendingOrder,
          updateFormat: updateFormat(party),
        },
        { limit: range.limit },
      );
      // Each element of the stream carries one update; an empty element (none seen) carries nothing to show.
      return page.flatMap((item) => (item.update ? [item.update] : []));
    },
    async contractEvents(contractId, party) {
      try {
        return await client.eventsByContractId({
          contractId,
          eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
        });
      } catch (err) {
        if (err instanceof LedgerError && err.code === 'CONTRACT_EVENTS_NOT_FOUND') return undefined;
        throw err;
      }
    },
    async updateByOffset(offset, party) {
      return (await client.updateByOffset({ offset, updateFormat: updateFormat(party) })).update ?? undefined;
    },
    async user() {
      return (await client.getUser(await walletUser())).user;
    },
    async partyKnown(party) {
      const res = await client.getParty(party);
      return res.partyDetails.some((d) => d.party === party);
    },
    async updateUser(change) {
      const id = await walletUser();
      return (
        await client.updateUser(id, { user: { ...change.user, id }, updateMask: { paths: change.paths } })
      ).user;
    },
  };
}
