// The topology transactions of a governed party (layout `separate`, external-party-keys.md §1.6 B): a root
// NamespaceDelegation of a namespace key K0 that signs topology only, and a PartyToParticipant with N protocol
// keys at threshold M and the party's hosts. Built by Quill, not by `generate-topology` (which takes one key),
// and deterministically: the same spec gives the same bytes, so a holder can sign the hash before the call that
// allocates, and every host receives identical bytes.
import {
  decodeTopologyTransaction,
  encodeTopologyTransaction,
  keyFingerprint,
  type PartyToParticipant,
  partyToParticipantProblem,
  type TopologyKey,
  topologyMultiHash,
  topologyTransactionHash,
} from '@quill/canton/topology';
import type { KeySpec } from '../signing/index.ts';
import { PartyError } from './errors.ts';

/** A public key as the topology carries it. */
export interface TopologyPublicKey {
  fingerprint: string;
  /** DER SPKI, standard base64. */
  publicKey: string;
  keySpec: KeySpec;
}

export interface GovernedPartySpec {
  partyId: string;
  namespaceKey: TopologyPublicKey;
  signingKeys: TopologyPublicKey[];
  threshold: number;
  /** The hosts, the participant that allocates first. */
  hosts: { participantUid: string; permission: 'confirmation' | 'observation' }[];
  confirmationThreshold: number;
}

export interface OnboardingTopology {
  /** [root NamespaceDelegation, PartyToParticipant], as sent. */
  transactions: Uint8Array[];
  /** The PartyToParticipant's hash: what each signing key signs as proof of possession. */
  partyToParticipantHash: Uint8Array;
  /** Over both: what the namespace key signs. */
  multiHash: Uint8Array;
}

const spki = (k: TopologyPublicKey) => new Uint8Array(Buffer.from(k.publicKey, 'base64'));

/** The party's mapping at serial 1, or a PartyError naming what the participant would refuse. */
export function partyToParticipantOf(spec: GovernedPartySpec): PartyToParticipant {
  const mapping: PartyToParticipant = {
    kind: 'party-to-participant',
    party: spec.partyId,
    threshold: spec.confirmationThreshold,
    participants: spec.hosts.map((h) => ({ uid: h.participantUid, permission: h.permission })),
    signingKeys: {
      // PROTOCOL only: the participant adds PROOF_OF_OWNERSHIP when it parses a key that is not NAMESPACE-only,
      // and refuses keys without PROTOCOL at allocate (ExternalPartyOnboardingDetails).
      keys: spec.signingKeys.map((k) => ({ spki: spki(k), keySpec: k.keySpec, usage: ['protocol'] })),
      threshold: spec.threshold,
    },
  };
  const problem = partyToParticipantProblem(mapping);
  if (problem) throw new PartyError('BAD_INPUT', problem);
  if (spec.signingKeys.some((k) => k.fingerprint === spec.namespaceKey.fingerprint)) {
    throw new PartyError(
      'BAD_INPUT',
      'the namespace key signs topology only: it cannot also be a signing key',
    );
  }
  return mapping;
}

export function onboardingTopology(spec: GovernedPartySpec): OnboardingTopology {
  const namespaceKey: TopologyKey = {
    spki: spki(spec.namespaceKey),
    keySpec: spec.namespaceKey.keySpec,
    usage: ['namespace'],
  };
  const delegation = encodeTopologyTransaction({
    operation: 'add-replace',
    serial: 1,
    mapping: {
      kind: 'namespace-delegation',
      namespace: spec.namespaceKey.fingerprint,
      targetKey: namespaceKey,
      restriction: { kind: 'all' },
    },
  });
  const hosting = encodeTopologyTransaction({
    operation: 'add-replace',
    serial: 1,
    mapping: partyToParticipantOf(spec),
  });
  const transactions = [delegation, hosting];
  return {
    transactions,
    partyToParticipantHash: topologyTransactionHash(hosting),
    multiHash: topologyMultiHash(transactions),
  };
}

/** A change of a party's signing keys: keys added and removed (by fingerprint), and a new threshold. */
export interface KeyChange {
  add: TopologyPublicKey[];
  remove: string[];
  threshold?: number;
}

/**
 * The next serial of a party's PartyToParticipant with its keys changed, everything else as it is (hosts,
 * confirmation threshold). The participant's rules are checked here, before anything is signed.
 */
export function changedPartyToParticipant(
  current: Uint8Array,
  partyId: string,
  change: KeyChange,
  namespaceFingerprint: string,
): { serial: number; transaction: Uint8Array; hash: Uint8Array; mapping: PartyToParticipant } {
  let decoded: ReturnType<typeof decodeTopologyTransaction>;
  try {
    decoded = decodeTopologyTransaction(current);
  } catch (err) {
    throw new PartyError(
      'MISMATCH',
      `the participant's current topology does not decode: ${(err as Error).message}`,
    );
  }
  const m = decoded.mapping;
  if (m.kind !== 'party-to-participant' || m.party !== partyId) {
    throw new PartyError(
      'MISMATCH',
      `the participant's current topology is not ${partyId}'s PartyToParticipant`,
    );
  }
  const keys = m.signingKeys?.keys ?? [];
  const kept = keys.filter((k) => !change.remove.includes(keyFingerprint(k.spki, k.keySpec)));
  if (kept.length + change.remove.length !== keys.length) {
    const present = new Set(keys.map((k) => keyFingerprint(k.spki, k.keySpec)));
    const missing = change.remove.find((fp) => !present.has(fp));
    throw new PartyError('BAD_INPUT', `key ${missing} is not one of the party's signing keys`);
  }
  const selfSigned = keys.some(
    (k) => keyFingerprint(k.spki, k.keySpec) === namespaceFingerprint && k.usage.includes('namespace'),
  );
  if (selfSigned && change.remove.includes(namespaceFingerprint)) {
    // TopologyTransactionAuthorizationValidator: a self-signed P2P authorizes by a key in the NEW mapping.
    throw new PartyError(
      'BAD_INPUT',
      "the party's namespace key is also its signing key (a single-key party): it cannot be removed",
    );
  }
  const added: TopologyKey[] = change.add.map((k) => ({
    spki: spki(k),
    keySpec: k.keySpec,
    usage: ['protocol'],
  }));
  const next: PartyToParticipant = {
    ...m,
    signingKeys: { keys: [...kept, ...added], threshold: change.threshold ?? m.signingKeys?.threshold ?? 1 },
  };
  const problem = partyToParticipantProblem(next);
  if (problem) throw new PartyError('BAD_INPUT', problem);
  const transaction = encodeTopologyTransaction({
    operation: 'add-replace',
    serial: decoded.serial + 1,
    mapping: next,
  });
  return {
    serial: decoded.serial + 1,
    transaction,
    hash: topologyTransactionHash(transaction),
    mapping: next,
  };
}
