// Public surface of src/parties: which key controls which external party, and onboarding.
export { PartyError, type PartyErrorCode } from './errors.ts';
export {
  type OnboardedParty,
  type OnboardInput,
  type OnboardingLedger,
  onboardExternalParty,
} from './onboard.ts';
export { parsePartyId, partyHintProblem, partyIdOf } from './party-id.ts';
export { PartyHost, PartyRecord, PartyRegistry, SigningKeyEntry } from './registry.ts';
export { type SetKey, type SigningSet, signingSetOf, signsTransactions } from './signing-set.ts';
