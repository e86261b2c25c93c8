// Public surface of src/parties: which key controls which external party, and onboarding.
export { PartyError, type PartyErrorCode } from './errors.ts';
export {
  type OnboardedParty,
  type OnboardInput,
  type OnboardingLedger,
  onboardExternalParty,
} from './onboard.ts';
export { parsePartyId, partyHintProblem, partyIdOf } from './party-id.ts';
export { PartyRecord, PartyRegistry } from './registry.ts';
