// Public surface of src/policy: the policy document, what a transaction does (asset movements per instrument),
// the first-match evaluation, the holding recognizers, velocity, the versions in Redis and their governance.
export {
  compareDecimal,
  formatDecimal,
  isDecimal,
  parseDecimal,
  subtractDecimals,
  sumDecimals,
} from './decimal.ts';
export { describeMovements, nodeTree, shortAmount, shortParty } from './describe.ts';
export { type PolicyChange, policyDiff } from './diff.ts';
export { PolicyInvalid, type PolicyProblem, PolicyRefused } from './errors.ts';
export {
  evaluatePolicy,
  type PolicyDecision,
  type PolicyOutcome,
  staticMatch,
  type VelocityLookup,
  type VelocityWindow,
  velocityTrips,
} from './evaluate.ts';
export {
  type InstrumentAmount,
  type RootAction,
  type TransactionFacts,
  transactionFacts,
} from './facts.ts';
export {
  governanceOf,
  type PolicyProposal,
  PolicyProposals,
  type ProposalStatus,
  type ProposalStep,
  seedPolicy,
} from './governance.ts';
export {
  type AssetMovements,
  assetMovements,
  type HoldingRef,
  type InstrumentDelta,
  qualifiedTemplate,
  type TokenTransfer,
  type UnrecognizedMovement,
} from './movements.ts';
export {
  AMULET_RECOGNIZERS,
  type AssetRecognizers,
  DEFAULT_RECOGNIZERS,
  type HoldingRecognizer,
  parseRecognizers,
  RecognizersFile,
  readHolding,
  valueAt,
} from './recognizers.ts';
export {
  PolicyDocument,
  PolicyMatch,
  type PolicyRule,
  parsePolicy,
  validatePolicy,
} from './schema.ts';
export { PolicyStore, type PolicyVersion, policyHash } from './store.ts';
export { type SubmissionPages, type VelocityItem, velocityLookup } from './velocity.ts';
