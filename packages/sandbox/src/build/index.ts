// Building PreparedTransactions for the sandbox's `prepare`, tests and benchmarks: a tree of nodes and terse Daml
// values in, a valid (validated) PreparedTransaction out. Not part of the wallet: it only checks and hashes.
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
export { damlValue, identifier } from './values.ts';
