/**
 * Every ledger endpoint Quill speaks, one declaration per file (`endpoint.ts` says what a declaration holds).
 * The client sends through these, the sandbox serves through these; a test holds both to this list.
 */
import { activeContracts } from './active-contracts.ts';
import { allocateExternalParty } from './allocate-external-party.ts';
import { allocateParty } from './allocate-party.ts';
import { authenticatedUser } from './authenticated-user.ts';
import { completions } from './completions.ts';
import { connectedSynchronizers } from './connected-synchronizers.ts';
import { createUser } from './create-user.ts';
import { deleteUser } from './delete-user.ts';
import { eventsByContractId } from './events-by-contract-id.ts';
import { execute } from './execute.ts';
import { executeAndWait } from './execute-and-wait.ts';
import { executeAndWaitForTransaction } from './execute-and-wait-for-transaction.ts';
import { generateExternalPartyTopology } from './generate-external-party-topology.ts';
import { getParty } from './get-party.ts';
import { getUser } from './get-user.ts';
import { grantUserRights } from './grant-user-rights.ts';
import { latestPrunedOffsets } from './latest-pruned-offsets.ts';
import { ledgerEnd } from './ledger-end.ts';
import { listParties } from './list-parties.ts';
import { listUserRights } from './list-user-rights.ts';
import { listUsers } from './list-users.ts';
import { listVettedPackages } from './list-vetted-packages.ts';
import { participantId } from './participant-id.ts';
import { prepare } from './prepare.ts';
import { revokeUserRights } from './revoke-user-rights.ts';
import { transactionById } from './transaction-by-id.ts';
import { transactionByOffset } from './transaction-by-offset.ts';
import { transactionTreeById } from './transaction-tree-by-id.ts';
import { transactionTreeByOffset } from './transaction-tree-by-offset.ts';
import { updateById } from './update-by-id.ts';
import { updateByOffset } from './update-by-offset.ts';
import { updateUser } from './update-user.ts';
import { updates } from './updates.ts';
import { updatesFlats } from './updates-flats.ts';
import { updatesTrees } from './updates-trees.ts';
import { version } from './version.ts';

export const endpoints = {
  listVettedPackages,
  updatesFlats,
  updates,
  updatesTrees,
  transactionTreeByOffset,
  transactionTreeById,
  transactionByOffset,
  transactionById,
  updateByOffset,
  updateById,
  eventsByContractId,
  activeContracts,
  completions,
  prepare,
  execute,
  executeAndWait,
  executeAndWaitForTransaction,
  version,
  ledgerEnd,
  latestPrunedOffsets,
  connectedSynchronizers,
  generateExternalPartyTopology,
  allocateExternalParty,
  allocateParty,
  listParties,
  participantId,
  getParty,
  authenticatedUser,
  createUser,
  listUsers,
  getUser,
  deleteUser,
  updateUser,
  listUserRights,
  grantUserRights,
  revokeUserRights,
} as const;
export type EndpointName = keyof typeof endpoints;
