// The topology transactions Quill builds for external parties, as plain values. Field meanings and enum
// numbers: community/base/src/main/protobuf/com/digitalasset/canton/protocol/v30/topology.proto and
// .../crypto/v30/crypto.proto (see codec.ts for the wire numbers).

export type KeySpec =
  | 'SIGNING_KEY_SPEC_EC_CURVE25519'
  | 'SIGNING_KEY_SPEC_EC_P256'
  | 'SIGNING_KEY_SPEC_EC_P384'
  | 'SIGNING_KEY_SPEC_EC_SECP256K1';

export type SigningKeyUsage = 'namespace' | 'sequencer-authentication' | 'protocol' | 'proof-of-ownership';

export type ParticipantPermission = 'submission' | 'confirmation' | 'observation';

export interface TopologyKey {
  /** DER SubjectPublicKeyInfo (written with CryptoKeyFormat 4 = DER_X509_SUBJECT_PUBLIC_KEY_INFO). */
  spki: Uint8Array;
  keySpec: KeySpec;
  /** Non-empty, no repeats (Canton reads an empty list as every usage; both codec directions refuse one). */
  usage: SigningKeyUsage[];
}

export interface PartyToParticipant {
  kind: 'party-to-participant';
  /** `hint::1220<64 hex>`. */
  party: string;
  /** Confirmation threshold. */
  threshold: number;
  /** Participant UIDs (`name::1220…`, no `PAR::` prefix), in the order written. */
  participants: { uid: string; permission: ParticipantPermission; onboarding?: boolean }[];
  /** The party's own signing keys (absent: no `party_signing_keys` field). */
  signingKeys?: { keys: TopologyKey[]; threshold: number };
}

export interface NamespaceDelegation {
  kind: 'namespace-delegation';
  /** Fingerprint of the namespace's root key, `1220…`. */
  namespace: string;
  targetKey: TopologyKey;
  /** `mappings` are Enums.TopologyMappingCode numbers (NAMESPACE_DELEGATION = 1, PARTY_TO_PARTICIPANT = 9, …). */
  restriction:
    | { kind: 'all' }
    | { kind: 'all-but-namespace-delegations' }
    | { kind: 'specific'; mappings: number[] };
}

export type TopologyMapping = PartyToParticipant | NamespaceDelegation;

export interface TopologyTransaction {
  operation: 'add-replace' | 'remove';
  serial: number;
  mapping: TopologyMapping;
}
