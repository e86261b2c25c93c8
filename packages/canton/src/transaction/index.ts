// Public surface of the transaction codec: the one place that understands a PreparedTransaction.

export { canonicalNumeric, checkContractId, checkParty } from './checks.ts';
export {
  decodePreparedTransaction,
  decodePreparedTransactionBase64,
  encodePreparedTransaction,
  encodePreparedTransactionBase64,
} from './codec.ts';
export { TransactionError, type TransactionErrorCode } from './errors.ts';
export { type HashDetails, hashDetails, hashPreparedTransaction } from './hash/index.ts';
export {
  type PreviewInputContract,
  type PreviewKey,
  type PreviewNode,
  previewPreparedTransaction,
  type TransactionPreview,
} from './preview.ts';
export { microsToIso, renderValue } from './render.ts';
export { logicalSynchronizerId } from './synchronizer.ts';
export { topologyMultiHash, topologyTransactionHash } from './topology.ts';
export type {
  Create,
  DamlTransaction,
  DamlTransaction_Node,
  DamlTransaction_NodeSeed,
  Exercise,
  Fetch,
  GlobalKeyWithMaintainers,
  Metadata,
  Metadata_InputContract,
  Node,
  QueryByKey,
  Rollback,
} from './types.ts';
export {
  HASHING_SCHEME_VERSIONS,
  type HashingSchemeVersion,
  type Identifier,
  type PreparedTransaction,
  type Value,
} from './types.ts';
export { validatePreparedTransaction } from './validate.ts';
