/**
 * Parties: external party onboarding (generate-topology, allocate) and party listing. Request types are
 * proto-generated (relaxed codec): missing strings/lists/flags default on the participant.
 */
import { z } from 'zod';
import { Base64, Int32Input, ObjectMeta, opt, protoDefault } from './common.ts';
import { CryptoKeyFormat, SigningKeySpec } from './enums.ts';
import { Signature } from './submission.ts';

export const SigningPublicKey = z.object({
  format: CryptoKeyFormat,
  /** base64 of the key bytes in `format` (usually DER SubjectPublicKeyInfo). */
  keyData: Base64.min(1, 'keyData must be non-empty'),
  keySpec: SigningKeySpec,
});
export type SigningPublicKey = z.infer<typeof SigningPublicKey>;

export const GenerateExternalPartyTopologyRequest = z.object({
  synchronizer: z.string().min(1),
  partyHint: z.string().min(1),
  publicKey: SigningPublicKey,
  localParticipantObservationOnly: opt(z.boolean()),
  otherConfirmingParticipantUids: opt(z.array(z.string())),
  /** 0 = all confirming participants. */
  confirmationThreshold: opt(Int32Input),
  observingParticipantUids: opt(z.array(z.string())),
});
export type GenerateExternalPartyTopologyRequest = z.infer<typeof GenerateExternalPartyTopologyRequest>;

export const GenerateExternalPartyTopologyResponse = z.object({
  partyId: z.string(),
  publicKeyFingerprint: z.string(),
  /** base64 serialized topology transactions. */
  topologyTransactions: z.array(Base64),
  /** base64 of the 34-byte multihash to sign. */
  multiHash: Base64,
});
export type GenerateExternalPartyTopologyResponse = z.infer<typeof GenerateExternalPartyTopologyResponse>;

export const SignedTransaction = z.object({ transaction: Base64, signatures: opt(z.array(Signature)) });
export type SignedTransaction = z.infer<typeof SignedTransaction>;

export const AllocateExternalPartyRequest = z.object({
  synchronizer: z.string().min(1),
  onboardingTransactions: z.array(SignedTransaction),
  multiHashSignatures: opt(z.array(Signature)),
  identityProviderId: opt(z.string()),
  /** 3.5+. */
  waitForAllocation: opt(z.boolean()),
  userId: opt(z.string()),
});
export type AllocateExternalPartyRequest = z.infer<typeof AllocateExternalPartyRequest>;

export const AllocateExternalPartyResponse = z.object({ partyId: z.string() });
export type AllocateExternalPartyResponse = z.infer<typeof AllocateExternalPartyResponse>;

export const PartyDetails = z.object({
  party: z.string(),
  isLocal: opt(z.boolean()),
  localMetadata: opt(ObjectMeta),
  identityProviderId: opt(z.string()),
});
export type PartyDetails = z.infer<typeof PartyDetails>;

export const AllocatePartyRequest = z.object({
  partyIdHint: opt(z.string()),
  localMetadata: opt(ObjectMeta),
  identityProviderId: opt(z.string()),
  synchronizerId: opt(z.string()),
  userId: opt(z.string()),
});
export type AllocatePartyRequest = z.infer<typeof AllocatePartyRequest>;
export const AllocatePartyResponse = z.object({ partyDetails: PartyDetails });
export type AllocatePartyResponse = z.infer<typeof AllocatePartyResponse>;

/** `GET /v2/parties` (query `pageSize`, `pageToken`, `filter-party`, `identity-provider-id`). */
export const ListKnownPartiesResponse = z.object({
  partyDetails: z.array(PartyDetails),
  nextPageToken: opt(z.string()),
});
export type ListKnownPartiesResponse = z.infer<typeof ListKnownPartiesResponse>;

/** `GET /v2/parties/{party}`. */
export const GetPartiesResponse = z.object({ partyDetails: z.array(PartyDetails) });
export type GetPartiesResponse = z.infer<typeof GetPartiesResponse>;

export const GetParticipantIdResponse = z.object({ participantId: z.string() });
export type GetParticipantIdResponse = z.infer<typeof GetParticipantIdResponse>;

/** Query of `GET /v2/parties` as the participant reads it. */
export const ListKnownPartiesQuery = z.object({
  pageSize: opt(Int32Input),
  pageToken: protoDefault(z.string(), ''),
  'filter-party': opt(z.string()),
  'identity-provider-id': opt(z.string()),
});
export type ListKnownPartiesQuery = z.infer<typeof ListKnownPartiesQuery>;
