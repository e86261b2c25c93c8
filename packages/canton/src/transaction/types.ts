// Wire types of a PreparedTransaction: the protobuf-ts bindings generated from ./proto (3.5 field numbers).

export { GlobalKeyWithMaintainers } from './gen/com/daml/ledger/api/v2/interactive/interactive_submission_common_data.ts';
export {
  DamlTransaction,
  DamlTransaction_Node,
  DamlTransaction_NodeSeed,
  Metadata,
  Metadata_InputContract,
  PreparedTransaction,
} from './gen/com/daml/ledger/api/v2/interactive/prepared_transaction.ts';
export {
  Create,
  Exercise,
  Fetch,
  Node,
  QueryByKey,
  Rollback,
} from './gen/com/daml/ledger/api/v2/interactive/transaction/v1/interactive_submission_data.ts';
export {
  Identifier,
  Value,
} from './gen/com/daml/ledger/api/v2/value.ts';
export type { Empty } from './gen/google/protobuf/empty.ts';

import { HASHING_SCHEME_VERSIONS } from '../ledger/schemas/enums.ts';

/** Wire enum names of the hashing schemes Quill can compute. */
export type HashingSchemeVersion = (typeof HASHING_SCHEME_VERSIONS)[number];
export { HASHING_SCHEME_VERSIONS };
