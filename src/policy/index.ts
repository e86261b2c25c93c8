// Public surface of src/policy: the policy document, what a transaction does, and the first-match evaluation.
export { COIN_MODULE, COIN_PACKAGE_NAME, COIN_TRANSFER_CHOICES } from './coin.ts';
export { compareDecimal, formatDecimal, isDecimal, parseDecimal, sumDecimals } from './decimal.ts';
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
  PolicyDocument,
  PolicyInvalid,
  PolicyMatch,
  type PolicyProblem,
  type PolicyRule,
  parsePolicy,
  validatePolicy,
} from './schema.ts';
