// Public surface of src/policy: the policy document, what a transaction does, the first-match evaluation, the
// recognizer table, velocity and the versions in Redis.
export { compareDecimal, formatDecimal, isDecimal, parseDecimal, sumDecimals } from './decimal.ts';
export { PolicyInvalid, type PolicyProblem } from './errors.ts';
export {
  evaluatePolicy,
  movedAmount,
  type PolicyDecision,
  type PolicyOutcome,
  staticMatch,
  type VelocityLookup,
  type VelocityWindow,
  velocityTrips,
} from './evaluate.ts';
export { type TransactionFacts, type Transfer, transactionFacts } from './facts.ts';
export {
  type AssetRecognizers,
  DEFAULT_RECOGNIZERS,
  GENERIC_TRANSFER,
  type HoldingRecognizer,
  type TransferRecognizer,
  transferRecognizer,
} from './recognizers.ts';
export {
  PolicyDocument,
  PolicyMatch,
  type PolicyRule,
  parsePolicy,
  validatePolicy,
} from './schema.ts';
export { PolicyStore, type PolicyVersion } from './store.ts';
export { type SubmissionPages, type VelocityItem, velocityLookup } from './velocity.ts';
