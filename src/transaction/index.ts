// Public surface of src/transaction: the one place that understands a PreparedTransaction.

export {
  type BuildCreate,
  type BuildExercise,
  type BuildFetch,
  type BuildInput,
  type BuildInputContract,
  type BuildKey,
  type BuildNode,
  type BuildQueryByKey,
  type BuildRollback,
  buildPreparedTransaction,
} from './build.ts';
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
export { topologyMultiHash, topologyTransactionHash } from './topology.ts';
export type {
  Create,
  DamlTransaction,
  Exercise,
  Fetch,
  GlobalKeyWithMaintainers,
  Metadata,
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
export { damlValue, identifier } from './values.ts';
