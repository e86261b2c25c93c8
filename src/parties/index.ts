// Public surface of src/parties: which key controls which external party, and onboarding.
export { PartyError, type PartyErrorCode } from './errors.ts';
export {
  type GovernedOnboardInput,
  type GovernedOnboardResult,
  type HostLedger,
  type KeyRef,
  onboardGovernedParty,
  type PreparedParty,
} from './governed.ts';
export {
  type OnboardedParty,
  type OnboardInput,
  type OnboardingLedger,
  onboardExternalParty,
} from './onboard.ts';
export { parsePartyId, partyHintProblem, partyIdOf } from './party-id.ts';
export { PartyHost, PartyRecord, PartyRegistry, SigningKeyEntry } from './registry.ts';
export {
  changePartyKeys,
  type KeyChangeInput,
  type KeyChangeResult,
  NO_ADMIN_API,
  type PreparedKeyChange,
  type TopologyAdmin,
} from './rotate.ts';
export { type SetKey, type SigningSet, signingSetOf, signsTransactions } from './signing-set.ts';
