// Public surface of the topology codec: the TopologyTransactions Quill builds to onboard M-of-N external
// parties (PartyToParticipant, NamespaceDelegation), their bytes, hashes and key fingerprints.

export { decodeTopologyTransaction, encodeTopologyTransaction } from './codec.ts';
export { TopologyError } from './errors.ts';
export { hex, keyFingerprint, topologyMultiHash, topologyTransactionHash } from './hash.ts';
export { partyToParticipantProblem } from './rules.ts';
export type {
  KeySpec,
  NamespaceDelegation,
  ParticipantPermission,
  PartyToParticipant,
  SigningKeyUsage,
  TopologyKey,
  TopologyMapping,
  TopologyTransaction,
} from './types.ts';
