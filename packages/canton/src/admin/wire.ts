/**
 * The Admin API wire shared by Quill's client and the sandbox's server: the generated service definitions and
 * messages, the v30 enum names ⇄ numbers (crypto.v30 numbers, not the Ledger API's), the store id and the
 * versioned topology transaction envelope (`version.v1.UntypedVersionedMessage`, version 30).
 */
import { SignatureFormat, SigningAlgorithmSpec } from './gen/com/digitalasset/canton/crypto/v30/crypto.ts';
import { TopologyTransaction } from './gen/com/digitalasset/canton/protocol/v30/topology.ts';
import type { StoreId } from './gen/com/digitalasset/canton/topology/admin/v30/common.ts';
import { ForceFlag } from './gen/com/digitalasset/canton/topology/admin/v30/topology_manager_write_service.ts';
import { UntypedVersionedMessage } from './gen/com/digitalasset/canton/version/v1/untyped_versioned_message.ts';

export {
  type Signature,
  SignatureFormat,
  SigningAlgorithmSpec,
} from './gen/com/digitalasset/canton/crypto/v30/crypto.ts';
export {
  Enums_TopologyChangeOp,
  PartyToParticipant,
  type SignedTopologyTransaction,
  TopologyTransaction,
} from './gen/com/digitalasset/canton/protocol/v30/topology.ts';
export type { StoreId } from './gen/com/digitalasset/canton/topology/admin/v30/common.ts';
export { TopologyManagerReadServiceClient } from './gen/com/digitalasset/canton/topology/admin/v30/topology_manager_read_service.grpc-client.ts';
export {
  type ITopologyManagerReadService,
  topologyManagerReadServiceDefinition,
} from './gen/com/digitalasset/canton/topology/admin/v30/topology_manager_read_service.grpc-server.ts';
export type {
  BaseResult,
  ListPartyToParticipantRequest,
  ListPartyToParticipantResponse,
  ListPartyToParticipantResponse_Result,
} from './gen/com/digitalasset/canton/topology/admin/v30/topology_manager_read_service.ts';
export { TopologyManagerWriteServiceClient } from './gen/com/digitalasset/canton/topology/admin/v30/topology_manager_write_service.grpc-client.ts';
export {
  type ITopologyManagerWriteService,
  topologyManagerWriteServiceDefinition,
} from './gen/com/digitalasset/canton/topology/admin/v30/topology_manager_write_service.grpc-server.ts';
export type {
  AddTransactionsRequest,
  AddTransactionsResponse,
  AuthorizeRequest,
  AuthorizeResponse,
} from './gen/com/digitalasset/canton/topology/admin/v30/topology_manager_write_service.ts';
export { Duration } from './gen/google/protobuf/duration.ts';
export { Timestamp } from './gen/google/protobuf/timestamp.ts';
export { ForceFlag };

export type SignatureFormatName = 'SIGNATURE_FORMAT_CONCAT' | 'SIGNATURE_FORMAT_DER' | 'SIGNATURE_FORMAT_RAW';
export type SigningAlgorithmSpecName =
  | 'SIGNING_ALGORITHM_SPEC_ED25519'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256'
  | 'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384';

// crypto.v30 numbering (RAW 1, DER 2, CONCAT 3): the Ledger API's enums are numbered differently.
export const SIGNATURE_FORMATS: Record<SignatureFormatName, SignatureFormat> = {
  SIGNATURE_FORMAT_RAW: SignatureFormat.RAW,
  SIGNATURE_FORMAT_DER: SignatureFormat.DER,
  SIGNATURE_FORMAT_CONCAT: SignatureFormat.CONCAT,
};
export const SIGNING_ALGORITHM_SPECS: Record<SigningAlgorithmSpecName, SigningAlgorithmSpec> = {
  SIGNING_ALGORITHM_SPEC_ED25519: SigningAlgorithmSpec.ED25519,
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256: SigningAlgorithmSpec.EC_DSA_SHA_256,
  SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384: SigningAlgorithmSpec.EC_DSA_SHA_384,
};

/** The name of a v30 enum number, or undefined for UNSPECIFIED, SYMBOLIC and unknown numbers. */
export function nameOf<N extends string>(table: Record<N, number>, value: number): N | undefined {
  for (const [name, n] of Object.entries(table) as [N, number][]) if (n === value) return name;
  return undefined;
}

/** `FORCE_FLAG_ALIEN_MEMBER` → its number; undefined when the name is not a v30 force flag. */
export function forceFlagOf(name: string): ForceFlag | undefined {
  if (!name.startsWith('FORCE_FLAG_') || name === 'FORCE_FLAG_UNSPECIFIED') return undefined;
  const n = (ForceFlag as unknown as Record<string, unknown>)[name.slice('FORCE_FLAG_'.length)];
  return typeof n === 'number' ? n : undefined;
}

/** The number's `FORCE_FLAG_…` name, or undefined for UNSPECIFIED and unknown numbers. */
export function forceFlagName(flag: number): string | undefined {
  const name = (ForceFlag as unknown as Record<number, unknown>)[flag];
  return typeof name === 'string' && flag !== ForceFlag.UNSPECIFIED ? `FORCE_FLAG_${name}` : undefined;
}

const PHYSICAL_SUFFIX = /^\d+-\d+$/;

/**
 * `StoreId.Synchronizer` for a synchronizer id: the physical form (`<logical>::<pv>-<serial>`) goes in
 * `physical_id`, the logical form (`<identifier>::<namespace>`) in `id`; Canton accepts either.
 */
export function synchronizerStore(synchronizerId: string): StoreId {
  const parts = synchronizerId.split('::');
  const physical = parts.length === 3 && PHYSICAL_SUFFIX.test(parts[2] as string);
  return {
    store: {
      oneofKind: 'synchronizer',
      synchronizer: {
        kind: physical
          ? { oneofKind: 'physicalId', physicalId: synchronizerId }
          : { oneofKind: 'id', id: synchronizerId },
      },
    },
  };
}

/** The synchronizer id a store names (either form), or undefined when it names another store. */
export function synchronizerOf(store: StoreId | undefined): string | undefined {
  if (store?.store.oneofKind !== 'synchronizer') return undefined;
  const kind = store.store.synchronizer.kind;
  if (kind.oneofKind === 'id') return kind.id;
  if (kind.oneofKind === 'physicalId') return kind.physicalId;
  return undefined;
}

/** TopologyTransaction.versioningTable: protocol versions 34 and 35 both write proto version 30. */
export const TOPOLOGY_TRANSACTION_PROTO_VERSION = 30;

/** The versioned bytes of a topology transaction, the bytes Canton hashes and parties sign. */
export function encodeVersionedTopologyTransaction(tx: TopologyTransaction): Uint8Array {
  return UntypedVersionedMessage.toBinary({
    wrapper: { oneofKind: 'data', data: TopologyTransaction.toBinary(tx) },
    version: TOPOLOGY_TRANSACTION_PROTO_VERSION,
  });
}

/** Parses versioned topology transaction bytes; throws on malformed bytes or another proto version. */
export function decodeVersionedTopologyTransaction(bytes: Uint8Array): TopologyTransaction {
  const envelope = UntypedVersionedMessage.fromBinary(bytes);
  if (envelope.wrapper.oneofKind !== 'data' || envelope.version !== TOPOLOGY_TRANSACTION_PROTO_VERSION) {
    throw new Error(`not a version ${TOPOLOGY_TRANSACTION_PROTO_VERSION} topology transaction`);
  }
  return TopologyTransaction.fromBinary(envelope.wrapper.data);
}
