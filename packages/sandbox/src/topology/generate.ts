/**
 * `generate-topology` (ApiPartyManagementService.scala L991–1140, 3.5): one self-signed PartyToParticipant at
 * serial 1 whose single key (usage NAMESPACE, PROTOCOL, PROOF_OF_OWNERSHIP; key threshold 1) is the party
 * namespace, hosted by this node and the other nodes in request order, and the multi-hash over its hash.
 */
import type { GenerateExternalPartyTopologyRequest } from '@quill/canton/ledger';
import { err } from '../errors.ts';
import type { RegisteredKey } from '../keys.ts';
import { encodePartyToParticipant, type HostingParticipant, USAGE } from './codec.ts';
import { multiHash, txHash } from './hash.ts';

export interface GeneratedTopology {
  partyId: string;
  publicKeyFingerprint: string;
  topologyTransactions: string[];
  multiHash: string;
}

/** The participant's checks of the hosting fields (L1046–1096), all INVALID_ARGUMENT. */
function hostingOf(
  req: GenerateExternalPartyTopologyRequest,
  node: string,
): { hosts: HostingParticipant[]; threshold: number } {
  const confirming = req.otherConfirmingParticipantUids ?? [];
  const observing = req.observingParticipantUids ?? [];
  if (confirming.includes(node))
    throw err.invalidArgument(
      `This participant node (${node}) is also listed in 'otherConfirmingParticipantUids'.`,
    );
  if (observing.includes(node))
    throw err.invalidArgument(
      `This participant node (${node}) is also listed in 'observingParticipantUids'.`,
    );
  const all = [...confirming, ...observing];
  const dups = [...new Set(all.filter((u, i) => all.indexOf(u) !== i))];
  if (dups.length > 0)
    throw err.invalidArgument(`The following participant ids are listed more than once: ${dups.join(', ')}`);
  for (const uid of all)
    if (!/^[^:]+::1220[0-9a-f]{64}$/.test(uid))
      throw err.invalidArgument(`Invalid unique identifier ${uid.slice(0, 100)}`);
  const observationOnly = req.localParticipantObservationOnly ?? false;
  const confirmers = (observationOnly ? 0 : 1) + confirming.length;
  const requested = req.confirmationThreshold ?? 0;
  if (requested < 0) throw err.invalidArgument('Negative confirmation threshold observed');
  // 0 means every confirming participant.
  const threshold = requested === 0 ? confirmers : requested;
  if (threshold > confirmers || confirmers === 0)
    throw err.invalidArgument('Confirmation threshold exceeds number of confirming participants');
  const hosts: HostingParticipant[] = [
    { uid: node, permission: observationOnly ? 3 : 2, onboarding: false },
    ...confirming.map((uid) => ({ uid, permission: 2 as const, onboarding: false })),
    ...observing.map((uid) => ({ uid, permission: 3 as const, onboarding: false })),
  ];
  return { hosts, threshold };
}

export function generateTopology(
  req: GenerateExternalPartyTopologyRequest,
  key: RegisteredKey,
  node: string,
): GeneratedTopology {
  const { hosts, threshold } = hostingOf(req, node);
  const party = `${req.partyHint}::${key.fingerprint}`;
  const bytes = encodePartyToParticipant(1, {
    party,
    threshold,
    participants: hosts,
    signingKeys: {
      keys: [{ key, usage: [USAGE.NAMESPACE, USAGE.PROTOCOL, USAGE.PROOF_OF_OWNERSHIP] }],
      threshold: 1,
    },
  });
  return {
    partyId: party,
    publicKeyFingerprint: key.fingerprint,
    topologyTransactions: [Buffer.from(bytes).toString('base64')],
    multiHash: Buffer.from(multiHash([txHash(bytes)])).toString('base64'),
  };
}
