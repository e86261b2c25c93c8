/** Records kept by the sandbox's in-memory ledger (plain objects, shared, never copied per read). */
import type { Value } from '@quill/canton/transaction';
import type { RegisteredKey } from '../keys.ts';
import { isoFromMicros } from '../lfjson.ts';

export interface Contract {
  contractId: string;
  /** Package-id form `pkg:Module:Entity`. */
  templateId: string;
  packageId: string;
  packageName: string;
  argument: Value;
  signatories: string[];
  stakeholders: string[];
  /** ISO instant and microseconds of the creating transaction's ledger time. */
  createdAt: string;
  createdAtMicros: bigint;
  createdOffset: number;
  /** Node id of the create in its transaction. */
  createdNodeId: number;
  archivedOffset?: number;
  archivedNodeId?: number;
  /** Where the contract is assigned now; it moves by reassignment. */
  synchronizerId: string;
  /** How often it was reassigned (each assignment adds one). */
  reassignmentCounter: number;
  /** Set between an unassignment and its assignment: the contract is then usable nowhere. */
  unassigned?: { reassignmentId: string; target: string };
}

/** What a create node says of its contract; the ledger adds when and where it was created. */
export type ContractContent = Pick<
  Contract,
  'contractId' | 'templateId' | 'packageId' | 'packageName' | 'argument' | 'signatories' | 'stakeholders'
>;

/** A contract created by node `nodeId` of a transaction with ledger time `effective` (not yet committed). */
export function newContract(
  content: ContractContent,
  nodeId: number,
  effective: bigint,
  synchronizerId: string,
): Contract {
  return {
    ...content,
    createdAt: isoFromMicros(effective),
    createdAtMicros: effective,
    createdOffset: 0,
    createdNodeId: nodeId,
    archivedOffset: undefined,
    archivedNodeId: undefined,
    synchronizerId,
    reassignmentCounter: 0,
    unassigned: undefined,
  };
}

export interface CommittedCreate {
  kind: 'create';
  nodeId: number;
  contract: Contract;
}

export interface CommittedExercise {
  kind: 'exercise';
  nodeId: number;
  contract: Contract;
  choice: string;
  choiceArgument: Value;
  /** The interface whose choice was exercised (package-id form), when the command named an interface. */
  interfaceId?: string;
  actingParties: string[];
  consuming: boolean;
  lastDescendantNodeId: number;
  result?: Value;
}

export type CommittedNode = CommittedCreate | CommittedExercise;

export interface TransactionUpdate {
  kind: 'transaction';
  offset: number;
  updateId: string;
  commandId: string;
  workflowId: string;
  userId: string;
  submissionId: string;
  actAs: string[];
  effectiveAt: string;
  recordTime: string;
  synchronizerId: string;
  nodes: CommittedNode[];
  externalTransactionHash?: string;
  traceparent?: string;
  /** What the submitting participant paid the sequencer for it (traffic.ts). */
  paidTrafficCost?: number;
}

export type ParticipantPermission =
  | 'PARTICIPANT_PERMISSION_SUBMISSION'
  | 'PARTICIPANT_PERMISSION_CONFIRMATION'
  | 'PARTICIPANT_PERMISSION_OBSERVATION';

export interface TopologyEventRecord {
  partyId: string;
  participantId: string;
  /** Unset for a revocation. */
  permission?: ParticipantPermission;
  /** What happened to the hosting; unset means it was added. */
  change?: 'changed' | 'revoked';
}

export interface TopologyUpdate {
  kind: 'topology';
  offset: number;
  updateId: string;
  synchronizerId: string;
  recordTime: string;
  events: TopologyEventRecord[];
}

/** One half of a reassignment: the contract left `source` (unassigned) or arrived on `target` (assigned). */
export interface ReassignmentUpdate {
  kind: 'reassignment';
  offset: number;
  updateId: string;
  /** The synchronizer the update happened on: the source for an unassignment, the target for an assignment. */
  synchronizerId: string;
  recordTime: string;
  event: 'unassigned' | 'assigned';
  contract: Contract;
  source: string;
  target: string;
  reassignmentId: string;
  submitter: string;
  reassignmentCounter: number;
}

/** A command rejected after submission (async `execute`): it has an offset and a failed completion only. */
export interface RejectionUpdate {
  kind: 'rejection';
  offset: number;
  /** Always '': rejections have no update id. */
  updateId: string;
  commandId: string;
  userId: string;
  submissionId: string;
  actAs: string[];
  recordTime: string;
  synchronizerId: string;
  /** google.rpc.Status of the failed completion. */
  status: { code: number; message: string };
}

export type UpdateRecord = TransactionUpdate | TopologyUpdate | ReassignmentUpdate | RejectionUpdate;

export interface Synchronizer {
  alias: string;
  id: string;
}

export interface PartyRecord {
  partyId: string;
  isLocal: boolean;
  /** Registered protocol signing keys (external parties), by fingerprint. */
  keys: Map<string, RegisteredKey>;
  synchronizers: Set<string>;
  /** Who hosts the party with which permission, keyed `<synchronizer id>\0<participant id>`. */
  hosting: Map<string, ParticipantPermission>;
  identityProviderId: string;
  annotations: Record<string, string>;
  /** Onboarded through the topology (an external party): hosted as its active PartyToParticipant says. */
  topologyManaged?: boolean;
}

export type RightKind =
  | 'ParticipantAdmin'
  | 'IdentityProviderAdmin'
  | 'CanReadAsAnyParty'
  | 'CanExecuteAsAnyParty'
  | 'CanActAs'
  | 'CanReadAs'
  | 'CanExecuteAs';

export interface UserRight {
  kind: RightKind;
  party?: string;
}

export interface UserRecord {
  id: string;
  primaryParty: string;
  isDeactivated: boolean;
  annotations: Record<string, string>;
  resourceVersion: number;
  identityProviderId: string;
  primaryPartyAuthentication: boolean;
  rights: UserRight[];
}

/** A token registry of the sandbox: its admin party and its well-known contracts (factory, rules), by name. */
export interface RegistryRecord {
  admin: string;
  contracts: Record<string, string>;
}

/** One entry of the scan activity feed (snake_case on the wire, rendered in ../activities.ts). */
export interface ActivityRecord {
  /** event_id is `#<updateId>:<nodeId>`, built when rendered (one shared id string per update in memory). */
  updateId: string;
  nodeId: number;
  offset: number;
  date: string;
  domainId: string;
  round: number | null;
  type: 'transfer' | 'mint' | 'devnet_tap' | 'abort_transfer_instruction';
  owner: string | undefined;
  amount: bigint | undefined;
  transfer:
    | {
        sender: string;
        inputAmount: bigint;
        changeAmount: bigint;
        receivers: { party: string; amount: bigint }[];
        description: string | null;
        kind: 'create_transfer_instruction' | 'transfer_instruction_accept' | null;
        instructionReceiver?: string;
        instructionAmount?: bigint;
        instructionCid?: string;
      }
    | undefined;
  abort: { kind: 'withdraw' | 'reject'; cid: string } | undefined;
}
