// Onboarding an external party: generate-topology → check it is ours → sign the multi-hash → allocate →
// remember which key controls the party (ledger-json-api.md §4.3).
import type { GenerateExternalPartyTopologyResponse, LedgerClient } from '@quill/canton/ledger';
import { topologyMultiHash } from '@quill/canton/transaction';
import { type KeyCatalog, normalizeFingerprint, type Signer, signingPublicKey } from '../signing/index.ts';
import { PartyError } from './errors.ts';
import { partyHintProblem, partyIdOf } from './party-id.ts';
import type { PartyRecord, PartyRegistry } from './registry.ts';

/** The part of `LedgerClient` onboarding needs. */
export type OnboardingLedger = Pick<
  LedgerClient,
  'generateExternalPartyTopology' | 'allocateExternalParty' | 'connectedSynchronizers'
>;

export interface OnboardInput {
  ledger: OnboardingLedger;
  signer: Signer;
  keys: KeyCatalog;
  registry: PartyRegistry;
  keyFingerprint: string;
  partyHint: string;
  /** Default: the first of the participant's connected synchronizers. */
  synchronizerId?: string;
  /**
   * The wallet's own ledger user: allocate grants it CanActAs for the new party, which the participant
   * requires before that user may execute the party's transactions (3.5 `userId` on allocate).
   */
  userId?: string;
  signal?: AbortSignal;
}

export interface OnboardedParty {
  partyId: string;
  keyFingerprint: string;
  synchronizerId: string;
}

const b64 = (s: string) => Buffer.from(s, 'base64');

/** The synchronizer asked for, or the first the participant is connected to. */
export async function pickSynchronizer(input: {
  ledger: Pick<LedgerClient, 'connectedSynchronizers'>;
  synchronizerId?: string;
  signal?: AbortSignal;
}): Promise<string> {
  if (input.synchronizerId !== undefined) {
    const id = input.synchronizerId.trim();
    if (id.length === 0 || id.length > 300)
      throw new PartyError('BAD_INPUT', 'the synchronizer id must be non-empty');
    return id;
  }
  const res = await input.ledger.connectedSynchronizers({}, input.signal ? { signal: input.signal } : {});
  const first = res.connectedSynchronizers?.[0]?.synchronizerId;
  if (!first) throw new PartyError('NO_SYNCHRONIZER', 'the participant is connected to no synchronizer');
  return first;
}

/** Checks that what the participant asks us to sign is exactly the party we asked for. */
function checkTopology(
  topology: GenerateExternalPartyTopologyResponse,
  partyId: string,
  fingerprint: string,
): Uint8Array {
  if (topology.publicKeyFingerprint !== fingerprint) {
    throw new PartyError(
      'MISMATCH',
      `the participant computed fingerprint ${topology.publicKeyFingerprint}, not ${fingerprint}`,
    );
  }
  if (topology.partyId !== partyId) {
    throw new PartyError('MISMATCH', `the participant proposed party ${topology.partyId}, not ${partyId}`);
  }
  const multiHash = b64(topology.multiHash);
  if (multiHash.length !== 34 || multiHash[0] !== 0x12 || multiHash[1] !== 0x20) {
    throw new PartyError('MISMATCH', 'the multi-hash is not a 34-byte sha2-256 multihash');
  }
  if (topology.topologyTransactions.length === 0) {
    throw new PartyError('MISMATCH', 'the participant returned no topology transactions');
  }
  // Never sign a hash we did not recompute: it must cover exactly the transactions we will submit.
  const expected = topologyMultiHash(topology.topologyTransactions.map((t) => new Uint8Array(b64(t))));
  if (!Buffer.from(expected).equals(multiHash)) {
    throw new PartyError('MISMATCH', 'the multi-hash does not match the topology transactions');
  }
  return new Uint8Array(multiHash);
}

/**
 * The party exists already (a crash after allocating, or a host that was faster): the participant rewrites
 * EXTERNAL_PARTY_ALREADY_EXISTS to INVALID_ARGUMENT "…Party X already exists on synchronizer Y"
 * (ApiPartyManagementService.alreadyExistsError); older ones answer the code itself.
 */
export const alreadyExists = (err: unknown) => {
  if (typeof err !== 'object' || err === null) return false;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (code === 'EXTERNAL_PARTY_ALREADY_EXISTS') return true;
  return (
    code === 'INVALID_ARGUMENT' &&
    typeof message === 'string' &&
    / already exists on synchronizer /.test(message)
  );
};

/**
 * Onboards `partyHint::fingerprint` with the key and remembers it. Idempotent: a party already in the
 * registry is returned as is, and EXTERNAL_PARTY_ALREADY_EXISTS (a crash after allocating) is recorded as
 * success — the party's namespace is our key's fingerprint, so only this key can have created it.
 */
export async function onboardExternalParty(input: OnboardInput): Promise<OnboardedParty> {
  const hintProblem = partyHintProblem(input.partyHint);
  if (hintProblem) throw new PartyError('BAD_INPUT', hintProblem);
  let fingerprint: string;
  try {
    fingerprint = normalizeFingerprint(input.keyFingerprint);
  } catch {
    throw new PartyError('BAD_INPUT', 'not a key fingerprint (expected 1220 followed by 64 hex digits)');
  }
  const view = await input.keys.get(fingerprint);
  if (view.status !== 'active') throw new PartyError('KEY_DISABLED', `key ${fingerprint} is disabled`);
  const partyId = partyIdOf(input.partyHint, fingerprint);
  const synchronizerId = await pickSynchronizer(input);

  const known = await input.registry.get(partyId);
  if (known && known.synchronizerId === synchronizerId) return result(known);
  if (known) {
    throw new PartyError('CONFLICT', `party ${partyId} is already registered on ${known.synchronizerId}`);
  }

  const opts = input.signal ? { signal: input.signal } : {};
  const topology = await input.ledger.generateExternalPartyTopology(
    { synchronizer: synchronizerId, partyHint: input.partyHint, publicKey: signingPublicKey(view) },
    opts,
  );
  const multiHash = checkTopology(topology, partyId, fingerprint);
  const signature = await input.signer.sign(fingerprint, multiHash);
  try {
    const allocated = await input.ledger.allocateExternalParty(
      {
        synchronizer: synchronizerId,
        onboardingTransactions: topology.topologyTransactions.map((transaction) => ({ transaction })),
        multiHashSignatures: [signature],
        ...(input.userId ? { userId: input.userId } : {}),
      },
      opts,
    );
    if (allocated.partyId !== partyId) {
      throw new PartyError('MISMATCH', `the participant allocated ${allocated.partyId}, not ${partyId}`);
    }
  } catch (err) {
    if (!alreadyExists(err)) throw err;
  }
  const record = await input.registry.add({
    partyId,
    keyFingerprint: fingerprint,
    synchronizerId,
    createdAt: new Date().toISOString(),
  });
  return result(record);
}

function result(r: PartyRecord): OnboardedParty {
  return { partyId: r.partyId, keyFingerprint: r.keyFingerprint, synchronizerId: r.synchronizerId };
}
