/**
 * `POST /v2/parties/external/allocate` after authorization, in the participant's order
 * (ApiPartyManagementService.allocateExternalParty L840–989 → ExternalPartyOnboardingDetails.create →
 * PartyOps.allocateExternalParty L138–215 → TopologyManager.add L806–870; external-party-keys.md §1.7, §4.3(a)).
 */
import type { AllocateExternalPartyRequest, Signature } from '@quill/canton/ledger';
import { logicalSynchronizerId } from '@quill/canton/transaction';
import { err, LegacyStatusError, SandboxError } from '../errors.ts';
import type { SandboxState } from '../state/index.ts';
import type { TopologySignature } from './authorization.ts';
import {
  type DecentralizedNamespaceDefinition,
  decodeTransaction,
  type NamespaceDelegation,
  type PartyToParticipant,
  TopologyDecodeError,
  type TopologyTransaction,
  USAGE,
} from './codec.ts';
import { checkKeyList } from './store.ts';

const FIELD = 'onboarding_transactions.transaction';
const ALGORITHMS = new Set([
  'SIGNING_ALGORITHM_SPEC_ED25519',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
]);
/** ExternalPartyOnboardingDetails.maxDecentralizedOwnersSize. */
const MAX_DECENTRALIZED_OWNERS = 10;

/** A Ledger API Signature, checked as CryptoValidator does, as the topology store takes it. */
function topologySignature(s: Signature): TopologySignature {
  if (s.format === 'SIGNATURE_FORMAT_UNSPECIFIED') throw err.missingField('format');
  if (!/^1220[0-9a-f]{64}$/.test(s.signedBy))
    throw err.invalidField('signed_by', `Invalid fingerprint ${s.signedBy.slice(0, 80)}`);
  if (!ALGORITHMS.has(s.signingAlgorithmSpec)) throw err.missingField('signing_algorithm_spec');
  return {
    signedBy: s.signedBy,
    format: s.format as TopologySignature['format'],
    signature: new Uint8Array(Buffer.from(s.signature, 'base64')),
    signingAlgorithmSpec: s.signingAlgorithmSpec as TopologySignature['signingAlgorithmSpec'],
  };
}

/** The request checks: non-empty, each transaction parses at the protocol version, serial 1, Replace. */
function parseRequest(body: AllocateExternalPartyRequest) {
  if (body.onboardingTransactions.length === 0) throw err.invalidArgument('Transactions field is empty');
  const txs = body.onboardingTransactions.map((t) => {
    let tx: TopologyTransaction;
    try {
      tx = decodeTransaction(new Uint8Array(Buffer.from(t.transaction, 'base64')));
    } catch (e) {
      if (e instanceof TopologyDecodeError)
        throw err.invalidField(FIELD, `Invalid transaction: ${e.message}`);
      throw e;
    }
    if (tx.serial !== 1) throw err.invalidField(`${FIELD}.serial`, 'Onboarding transaction serial must be 1');
    if (tx.operation !== 1)
      throw err.invalidField(FIELD, 'Onboarding topology transactions must be Replace operations');
    return { tx, signatures: (t.signatures ?? []).map(topologySignature) };
  });
  return { txs, multi: (body.multiHashSignatures ?? []).map(topologySignature) };
}

function only<T>(items: T[], type: string, required: boolean): T | undefined {
  if (required && items.length === 0)
    throw err.invalidArgument(`One transaction of type ${type} must be provided, got 0`);
  if (items.length > 1)
    throw err.invalidArgument(`Only one transaction of type ${type} can be provided, got ${items.length}`);
  return items[0];
}

/** ExternalPartyOnboardingDetails.create's rules (L370–455, L486–511). */
function onboardingDetails(txs: TopologyTransaction[], node: string) {
  const unsupported = txs.filter(
    (t) =>
      ![
        'PartyToParticipant',
        'NamespaceDelegation',
        'DecentralizedNamespaceDefinition',
        'PartyToKeyMapping',
      ].includes(t.mapping.kind),
  );
  if (unsupported.length > 0)
    throw err.invalidArgument(
      `Unsupported transactions found: ${unsupported.map((t) => `mapping field ${(t.mapping as { field: number }).field}`).join(', ')}`,
    );
  const p2p = only(
    txs.map((t) => t.mapping).filter((m): m is PartyToParticipant => m.kind === 'PartyToParticipant'),
    'PartyToParticipant',
    true,
  )!;
  const ptk = txs.filter((t) => t.mapping.kind === 'PartyToKeyMapping');
  if (ptk.length > 0 && p2p.signingKeys)
    throw err.invalidArgument(
      'Party signing keys must be provided either in the PartyToParticipant or in a PartyToKeyMapping, not both',
    );
  // PartyToKeyMapping is deprecated in 3.5 (topology.proto L155–168): the sandbox does not take keys from it.
  if (ptk.length > 0)
    throw err.invalidArgument(
      'PartyToKeyMapping is deprecated; provide the party signing keys in the PartyToParticipant',
    );
  if (!p2p.signingKeys) throw err.invalidArgument('The PartyToParticipant must provide party signing keys');
  const submission = p2p.participants.filter((h) => h.permission === 1);
  if (submission.length > 0)
    throw err.invalidArgument(
      `The PartyToParticipant transaction must not contain any node with Submission permission. Nodes with submission permission: ${submission.map((h) => h.uid).join(', ')}`,
    );
  if (p2p.participants.length === 1) {
    const [h] = p2p.participants;
    if (h!.uid !== node)
      throw err.invalidArgument(
        `The party is to be hosted on a single participant (${h!.uid}) which is not this participant (${node}). Submit the allocation request on ${h!.uid} instead.`,
      );
    if (h!.permission !== 2)
      throw err.invalidArgument(
        `A party hosted on a single participant must be hosted with Confirmation permission on ${node}`,
      );
  }
  if (!p2p.participants.some((h) => h.permission === 2))
    throw err.invalidArgument(
      'The PartyToParticipant transaction must contain at least one node with Confirmation permission',
    );
  if (!p2p.participants.some((h) => h.uid === node))
    throw err.invalidArgument(
      `This node (${node}) is not listed as a hosting participant of the party ${p2p.party}`,
    );
  if (p2p.signingKeys.keys.some((k) => !k.usage.includes(USAGE.PROTOCOL)))
    throw err.invalidArgument('Missing Protocol usage on signing keys');
  const nsKey = p2p.signingKeys.keys.find((k) => k.key.fingerprint === p2p.namespace);
  if (nsKey && !(nsKey.usage.includes(USAGE.NAMESPACE) && nsKey.usage.includes(USAGE.PROTOCOL)))
    throw err.invalidArgument('Missing Namespace and Protocol usage on the party namespace key');
  const nsds = txs
    .map((t) => t.mapping)
    .filter((m): m is NamespaceDelegation => m.kind === 'NamespaceDelegation');
  const dnds = txs
    .map((t) => t.mapping)
    .filter((m): m is DecentralizedNamespaceDefinition => m.kind === 'DecentralizedNamespaceDefinition');
  const dnd = only(dnds, 'DecentralizedNamespaceDefinition', false);
  if (dnd) {
    if (nsds.length > MAX_DECENTRALIZED_OWNERS)
      throw err.invalidArgument(
        `At most ${MAX_DECENTRALIZED_OWNERS} owner NamespaceDelegations can be provided, got ${nsds.length}`,
      );
    for (const n of nsds)
      if (!n.root)
        throw err.invalidArgument(`NamespaceDelegation is not a root namespace delegation: ${n.namespace}`);
    if (dnd.namespace !== p2p.namespace)
      throw err.invalidArgument(
        `The PartyToParticipant namespace ${p2p.namespace} does not match the decentralized namespace ${dnd.namespace}`,
      );
    return { p2p, rootNsd: undefined };
  }
  const nsd = only(nsds, 'NamespaceDelegation', false);
  if (nsd && !nsd.root)
    throw err.invalidArgument(`NamespaceDelegation is not a root namespace delegation: ${nsd.namespace}`);
  if (nsd && nsd.namespace !== p2p.namespace)
    throw err.invalidArgument(
      `The PartyToParticipant namespace ${p2p.namespace} does not match the NamespaceDelegation namespace ${nsd.namespace}`,
    );
  return { p2p, rootNsd: nsd };
}

/** PartyOps' errors as the JSON API shows them (external-party-keys.md §1.7.4–5, §4.4). */
function asAllocateError(e: unknown): unknown {
  if (!(e instanceof SandboxError) || e instanceof LegacyStatusError) return e;
  if (
    e.code === 'TOPOLOGY_SIGNING_THRESHOLD_CANNOT_BE_REACHED' ||
    e.code === 'TOPOLOGY_CONFIRMING_THRESHOLD_CANNOT_BE_REACHED'
  )
    return err.invalidArgument(e.cause_);
  if (e.code.startsWith('TOPOLOGY_')) return LegacyStatusError.of(e);
  return e;
}

export function allocateExternalParty(
  state: SandboxState,
  body: AllocateExternalPartyRequest,
  node: string,
): string {
  // A physical synchronizer id (`…::35-0`) names the same synchronizer.
  const synchronizerId = logicalSynchronizerId(body.synchronizer);
  if (!state.synchronizers.some((s) => s.id === synchronizerId))
    throw err.invalidArgument(
      `This node is not connected to the requested synchronizer ${body.synchronizer}.`,
    );
  const { txs, multi } = parseRequest(body);
  const { p2p, rootNsd } = onboardingDetails(
    txs.map((t) => t.tx),
    node,
  );
  if (state.topology.activePartyToParticipant(p2p.party, synchronizerId))
    throw err.externalPartyExists(p2p.party, synchronizerId);
  // Dangerous changes first (TopologyManager L1071–1120), so they come before the membership checks.
  try {
    if (p2p.signingKeys!.threshold > p2p.signingKeys!.keys.length)
      throw err.signingThresholdUnreachable(p2p.signingKeys!.threshold, p2p.signingKeys!.keys.length);
    if (p2p.threshold > p2p.participants.length)
      throw err.confirmingThresholdUnreachable(p2p.threshold, p2p.participants.length);
    checkKeyList(p2p.signingKeys!.keys.map((k) => k.key.fingerprint));
    // Multi-hash signatures are attached to every transaction, over the hashes of all of them (L217–297).
    const multiSigs =
      multi.length > 0 ? [{ transactionHashes: txs.map((t) => t.tx.hash), signatures: multi }] : [];
    const p2pTx = txs.find((t) => t.tx.mapping === p2p)!;
    // fullyAllocatesParty (L82–99): one host, and a root delegation or a signature by the namespace key.
    const fully =
      p2p.participants.length === 1 &&
      (rootNsd !== undefined || [...p2pTx.signatures, ...multi].some((s) => s.signedBy === p2p.namespace));
    state.topology.submit(
      txs.map((t) => ({ tx: t.tx, signatures: t.signatures, multi: multiSigs, proposal: true })),
      {
        synchronizerId,
        participantId: node,
        nodeApproves: true,
        checkSerial: false,
        // NSD and DND are always fully authorized (TopologyStateProcessor L126); the P2P only when fully allocated.
        expectFullAuthorization: (tx) => tx.mapping.kind !== 'PartyToParticipant' || fully,
      },
    );
  } catch (e) {
    throw asAllocateError(e);
  }
  return p2p.party;
}
