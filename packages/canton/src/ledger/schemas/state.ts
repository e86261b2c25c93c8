/** State endpoints: ledger end, pruned offsets, connected synchronizers, the active contracts. */
import { z } from 'zod';
import { Int64, Int64Input, opt, protoDefault, variant } from './common.ts';
import { ParticipantPermission } from './enums.ts';
import { CreatedEvent, JsAssignmentEvent, UnassignedEvent } from './events.ts';
import { EventFormat, TransactionFilter } from './formats.ts';

/** `GET /v2/state/ledger-end` (offset absent/0 on an empty ledger). */
export const GetLedgerEndResponse = z.object({ offset: opt(Int64) });
export type GetLedgerEndResponse = z.infer<typeof GetLedgerEndResponse>;

/** `GET /v2/state/latest-pruned-offsets` (0 = not pruned). */
export const GetLatestPrunedOffsetsResponse = z.object({
  participantPrunedUpToInclusive: opt(Int64),
  allDivulgedContractsPrunedUpToInclusive: opt(Int64),
});
export type GetLatestPrunedOffsetsResponse = z.infer<typeof GetLatestPrunedOffsetsResponse>;

export const ConnectedSynchronizer = z.object({
  synchronizerAlias: z.string(),
  synchronizerId: z.string(),
  permission: opt(ParticipantPermission),
});
export type ConnectedSynchronizer = z.infer<typeof ConnectedSynchronizer>;

/** `GET /v2/state/connected-synchronizers`. */
/** Query of `GET /v2/state/connected-synchronizers` (our name; the spec lists the parameters inline). */
export const ConnectedSynchronizersQuery = z.object({
  party: opt(z.string()),
  participantId: opt(z.string()),
  identityProviderId: opt(z.string()),
});
export type ConnectedSynchronizersQuery = z.infer<typeof ConnectedSynchronizersQuery>;

export const GetConnectedSynchronizersResponse = z.object({
  connectedSynchronizers: opt(z.array(ConnectedSynchronizer)),
});
export type GetConnectedSynchronizersResponse = z.infer<typeof GetConnectedSynchronizersResponse>;

/** Body of `POST /v2/state/active-contracts`: exactly one of `eventFormat` and the legacy `filter`/`verbose`. */
export const GetActiveContractsRequest = z.object({
  /** Legacy (removed in 3.6): never together with `eventFormat`. */
  filter: opt(TransactionFilter),
  /** Legacy (removed in 3.6): never together with `eventFormat`. */
  verbose: opt(z.boolean()),
  activeAtOffset: protoDefault(Int64Input, 0),
  eventFormat: opt(EventFormat),
  streamContinuationToken: opt(z.string()),
});
export type GetActiveContractsRequest = z.infer<typeof GetActiveContractsRequest>;

export const JsActiveContract = z.object({
  createdEvent: CreatedEvent,
  synchronizerId: z.string(),
  reassignmentCounter: Int64,
});
export type JsActiveContract = z.infer<typeof JsActiveContract>;

export const JsContractEntry = z.union([
  variant('JsActiveContract', JsActiveContract),
  variant('JsEmpty', z.object({})),
  variant('JsIncompleteAssigned', z.object({ assignedEvent: JsAssignmentEvent })),
  variant(
    'JsIncompleteUnassigned',
    z.object({ createdEvent: CreatedEvent, unassignedEvent: UnassignedEvent }),
  ),
]);
export type JsContractEntry = z.infer<typeof JsContractEntry>;

export const JsGetActiveContractsResponse = z.object({
  workflowId: opt(z.string()),
  contractEntry: opt(JsContractEntry),
  streamContinuationToken: opt(z.string()),
});
export type JsGetActiveContractsResponse = z.infer<typeof JsGetActiveContractsResponse>;
