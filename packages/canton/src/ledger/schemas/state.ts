/** State endpoints: ledger end, pruned offsets, connected synchronizers (responses). */
import { z } from 'zod';
import { Int64, opt } from './common.ts';
import { ParticipantPermission } from './enums.ts';

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
