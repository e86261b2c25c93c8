/**
 * Events, transactions, reassignments, topology transactions and the `Update` oneof (responses).
 * Event variants are NOT wrapped in `value`; Update variants are; `JsUnassignedEvent` is, `JsAssignmentEvent`
 * is not (ledger-json-api.md §1.4 — the inconsistency is the participant's).
 */
import { z } from 'zod';
import { Int32, Int64, JsStatus, LfValue, opt, Timestamp, TraceContext, variant } from './common.ts';
import { ParticipantPermission } from './enums.ts';

const Parties = z.array(z.string());

export const JsInterfaceView = z.object({
  interfaceId: z.string(),
  viewStatus: JsStatus,
  viewValue: opt(LfValue),
  implementationPackageId: opt(z.string()),
});
export type JsInterfaceView = z.infer<typeof JsInterfaceView>;

export const CreatedEvent = z.object({
  offset: Int64,
  nodeId: Int32,
  contractId: z.string(),
  templateId: z.string(),
  contractKey: opt(LfValue),
  contractKeyHash: opt(z.string()),
  createArgument: LfValue,
  createdEventBlob: opt(z.string()),
  interfaceViews: opt(z.array(JsInterfaceView)),
  witnessParties: Parties,
  signatories: Parties,
  observers: opt(Parties),
  createdAt: Timestamp,
  packageName: z.string(),
  representativePackageId: z.string(),
  acsDelta: z.boolean(),
});
export type CreatedEvent = z.infer<typeof CreatedEvent>;

export const ArchivedEvent = z.object({
  offset: Int64,
  nodeId: Int32,
  contractId: z.string(),
  templateId: z.string(),
  witnessParties: Parties,
  packageName: z.string(),
  implementedInterfaces: opt(Parties),
});
export type ArchivedEvent = z.infer<typeof ArchivedEvent>;

export const ExercisedEvent = z.object({
  offset: Int64,
  nodeId: Int32,
  contractId: z.string(),
  templateId: z.string(),
  interfaceId: opt(z.string()),
  choice: z.string(),
  choiceArgument: LfValue,
  actingParties: Parties,
  consuming: z.boolean(),
  witnessParties: Parties,
  lastDescendantNodeId: Int32,
  exerciseResult: opt(LfValue),
  packageName: z.string(),
  implementedInterfaces: opt(z.array(z.string())),
  acsDelta: z.boolean(),
});
export type ExercisedEvent = z.infer<typeof ExercisedEvent>;

export const Event = z.union([
  variant('ArchivedEvent', ArchivedEvent),
  variant('CreatedEvent', CreatedEvent),
  variant('ExercisedEvent', ExercisedEvent),
]);
export type Event = z.infer<typeof Event>;

export const JsTransaction = z.object({
  updateId: z.string(),
  commandId: opt(z.string()),
  workflowId: opt(z.string()),
  effectiveAt: Timestamp,
  events: z.array(Event),
  offset: Int64,
  synchronizerId: z.string(),
  traceContext: opt(TraceContext),
  recordTime: Timestamp,
  /** Lowercase hex of the raw 32-byte hash that was externally signed (correlation key). */
  externalTransactionHash: opt(z.string()),
  paidTrafficCost: opt(Int64),
});
export type JsTransaction = z.infer<typeof JsTransaction>;

export const JsAssignmentEvent = z.object({
  source: z.string(),
  target: z.string(),
  reassignmentId: z.string(),
  submitter: opt(z.string()),
  reassignmentCounter: Int64,
  createdEvent: CreatedEvent,
});
export type JsAssignmentEvent = z.infer<typeof JsAssignmentEvent>;

export const UnassignedEvent = z.object({
  reassignmentId: z.string(),
  contractId: z.string(),
  templateId: z.string(),
  source: z.string(),
  target: z.string(),
  submitter: opt(z.string()),
  reassignmentCounter: Int64,
  assignmentExclusivity: opt(Timestamp),
  witnessParties: Parties,
  packageName: z.string(),
  offset: Int64,
  nodeId: Int32,
});
export type UnassignedEvent = z.infer<typeof UnassignedEvent>;

export const JsUnassignedEvent = z.object({ value: UnassignedEvent });
export type JsUnassignedEvent = z.infer<typeof JsUnassignedEvent>;

export const JsReassignmentEvent = z.union([
  variant('JsAssignmentEvent', JsAssignmentEvent),
  variant('JsUnassignedEvent', JsUnassignedEvent),
]);
export type JsReassignmentEvent = z.infer<typeof JsReassignmentEvent>;

export const JsReassignment = z.object({
  updateId: z.string(),
  commandId: opt(z.string()),
  workflowId: opt(z.string()),
  offset: Int64,
  events: z.array(JsReassignmentEvent),
  traceContext: opt(TraceContext),
  recordTime: Timestamp,
  synchronizerId: z.string(),
  paidTrafficCost: opt(Int64),
});
export type JsReassignment = z.infer<typeof JsReassignment>;

const Authorization = z.object({
  partyId: z.string(),
  participantId: z.string(),
  participantPermission: ParticipantPermission,
});
export const ParticipantAuthorizationAdded1 = Authorization;
export type ParticipantAuthorizationAdded1 = z.infer<typeof ParticipantAuthorizationAdded1>;
export const ParticipantAuthorizationAdded = z.object({ value: ParticipantAuthorizationAdded1 });
export type ParticipantAuthorizationAdded = z.infer<typeof ParticipantAuthorizationAdded>;
export const ParticipantAuthorizationChanged1 = Authorization;
export type ParticipantAuthorizationChanged1 = z.infer<typeof ParticipantAuthorizationChanged1>;
export const ParticipantAuthorizationChanged = z.object({ value: ParticipantAuthorizationChanged1 });
export type ParticipantAuthorizationChanged = z.infer<typeof ParticipantAuthorizationChanged>;
export const ParticipantAuthorizationOnboarding1 = Authorization;
export type ParticipantAuthorizationOnboarding1 = z.infer<typeof ParticipantAuthorizationOnboarding1>;
export const ParticipantAuthorizationOnboarding = z.object({ value: ParticipantAuthorizationOnboarding1 });
export type ParticipantAuthorizationOnboarding = z.infer<typeof ParticipantAuthorizationOnboarding>;
export const ParticipantAuthorizationRevoked1 = z.object({ partyId: z.string(), participantId: z.string() });
export type ParticipantAuthorizationRevoked1 = z.infer<typeof ParticipantAuthorizationRevoked1>;
export const ParticipantAuthorizationRevoked = z.object({ value: ParticipantAuthorizationRevoked1 });
export type ParticipantAuthorizationRevoked = z.infer<typeof ParticipantAuthorizationRevoked>;

export const TopologyEventEvent = z.union([
  variant('Empty', z.object({})),
  variant('ParticipantAuthorizationAdded', ParticipantAuthorizationAdded),
  variant('ParticipantAuthorizationChanged', ParticipantAuthorizationChanged),
  variant('ParticipantAuthorizationOnboarding', ParticipantAuthorizationOnboarding),
  variant('ParticipantAuthorizationRevoked', ParticipantAuthorizationRevoked),
]);
export type TopologyEventEvent = z.infer<typeof TopologyEventEvent>;

export const TopologyEvent = z.object({ event: opt(TopologyEventEvent) });
export type TopologyEvent = z.infer<typeof TopologyEvent>;

export const JsTopologyTransaction = z.object({
  updateId: z.string(),
  offset: Int64,
  synchronizerId: z.string(),
  recordTime: Timestamp,
  events: z.array(TopologyEvent),
  traceContext: opt(TraceContext),
});
export type JsTopologyTransaction = z.infer<typeof JsTopologyTransaction>;

export const SynchronizerTime = z.object({ synchronizerId: z.string(), recordTime: Timestamp });
export type SynchronizerTime = z.infer<typeof SynchronizerTime>;

export const OffsetCheckpoint1 = z.object({
  offset: Int64,
  synchronizerTimes: opt(z.array(SynchronizerTime)),
});
export type OffsetCheckpoint1 = z.infer<typeof OffsetCheckpoint1>;

/** Update variant wrappers (each wraps `value`). */
export const Transaction = z.object({ value: JsTransaction });
export type Transaction = z.infer<typeof Transaction>;
export const Reassignment = z.object({ value: JsReassignment });
export type Reassignment = z.infer<typeof Reassignment>;
export const TopologyTransaction = z.object({ value: JsTopologyTransaction });
export type TopologyTransaction = z.infer<typeof TopologyTransaction>;
export const OffsetCheckpoint = z.object({ value: OffsetCheckpoint1 });
export type OffsetCheckpoint = z.infer<typeof OffsetCheckpoint>;

export const Update = z.union([
  variant('OffsetCheckpoint', OffsetCheckpoint),
  variant('Reassignment', Reassignment),
  variant('TopologyTransaction', TopologyTransaction),
  variant('Transaction', Transaction),
]);
export type Update = z.infer<typeof Update>;

/** The deprecated tree form: LEDGER_EFFECTS events keyed by node id. */
export const TreeEvent = z.union([
  variant('CreatedTreeEvent', z.object({ value: CreatedEvent })),
  variant('ExercisedTreeEvent', z.object({ value: ExercisedEvent })),
]);
export type TreeEvent = z.infer<typeof TreeEvent>;

export const JsTransactionTree = z.object({
  updateId: z.string(),
  commandId: opt(z.string()),
  workflowId: opt(z.string()),
  effectiveAt: Timestamp,
  offset: Int64,
  eventsById: z.record(z.string(), TreeEvent),
  synchronizerId: z.string(),
  traceContext: opt(TraceContext),
  recordTime: Timestamp,
});
export type JsTransactionTree = z.infer<typeof JsTransactionTree>;

export const TransactionTree = z.object({ value: JsTransactionTree });
export type TransactionTree = z.infer<typeof TransactionTree>;

/** `/v2/updates/trees` elements (the spec's `Update1`): no topology transactions in the tree form. */
export const Update1 = z.union([
  variant('OffsetCheckpoint', OffsetCheckpoint),
  variant('Reassignment', Reassignment),
  variant('TransactionTree', TransactionTree),
]);
export type Update1 = z.infer<typeof Update1>;

/** The offset of any update variant (checkpoints included). */
export function updateOffset(update: Update): number {
  if ('Transaction' in update) return update.Transaction.value.offset;
  if ('Reassignment' in update) return update.Reassignment.value.offset;
  if ('TopologyTransaction' in update) return update.TopologyTransaction.value.offset;
  return update.OffsetCheckpoint.value.offset;
}

export const JsCreated = z.object({ createdEvent: CreatedEvent, synchronizerId: z.string() });
export type JsCreated = z.infer<typeof JsCreated>;
export const JsArchived = z.object({ archivedEvent: ArchivedEvent, synchronizerId: z.string() });
export type JsArchived = z.infer<typeof JsArchived>;
