// Onboarding a governed party (external-party-keys.md §1.6 B, §3): a cold namespace key K0 that signs topology
// only, N protocol signing keys at threshold M (held by Quill, or by external signers who prove possession by
// signing the PartyToParticipant's hash), hosted by this participant and optionally others with a confirmation
// threshold. Quill builds the transactions itself (generate-topology takes one key), signs, and calls allocate
// on every host with identical bytes and signatures, then waits until the party exists on each.
import type { LedgerClient, Signature } from '@quill/canton/ledger';
import {
  externalKey,
  type KeyCatalog,
  type KeySpec,
  normalizeFingerprint,
  type Signer,
} from '../signing/index.ts';
import { PartyError } from './errors.ts';
import { alreadyExists, pickSynchronizer } from './onboard.ts';
import { partyHintProblem, partyIdOf } from './party-id.ts';
import type { PartyHost, PartyRecord, PartyRegistry, SigningKeyEntry } from './registry.ts';
import { onboardingTopology, type TopologyPublicKey } from './topology.ts';

/** What onboarding needs of each host's Ledger API. */
export type HostLedger = Pick<LedgerClient, 'participantId' | 'allocateExternalParty' | 'getParty'>;
export type PrimaryLedger = HostLedger & Pick<LedgerClient, 'connectedSynchronizers'>;

/** A signing key by fingerprint (a key Quill holds) or by public key (an external signer's). */
export type KeyRef = { fingerprint: string } | { publicKey: string; keySpec: string; label?: string | null };

export interface GovernedOnboardInput {
  primary: PrimaryLedger;
  /** The other configured hosts (LEDGER_HOSTS), by name. */
  hosts: ReadonlyMap<string, HostLedger>;
  signer: Signer;
  keys: KeyCatalog;
  registry: PartyRegistry;
  partyHint: string;
  synchronizerId?: string;
  /** The wallet's ledger user on the primary: allocate grants it CanActAs. */
  userId?: string;
  /**
   * K0: a key Quill holds, used for topology only; or how to make one, called once the request is known to be
   * good (so a refused request leaves no key behind). External keys need it named: they sign a hash over it.
   */
  namespaceKey: string | (() => Promise<string>);
  signingKeys: KeyRef[];
  threshold: number;
  otherHosts?: { host: string; permission: 'confirmation' | 'observation' }[];
  /** Default: every confirming host. */
  confirmationThreshold?: number;
  /** Proof of possession by the external keys: each over the PartyToParticipant's hash. */
  signatures?: Signature[];
  /** Build and return the transactions and hashes, allocate nothing. */
  prepareOnly?: boolean;
  /** How long to wait for the party to exist on every host (default 30 s). */
  allocationTimeoutMs?: number;
  signal?: AbortSignal;
}

export interface PreparedParty {
  partyId: string;
  synchronizerId: string;
  /** Base64, in the order they are sent. */
  transactions: string[];
  /** Hex of the 34-byte hashes: what each signing key signs, and what the namespace key signs. */
  partyToParticipantHash: string;
  multiHash: string;
  /** External keys whose proof of possession is still missing. */
  awaiting: string[];
  hosts: PartyHost[];
  confirmationThreshold: number;
}

export type GovernedOnboardResult =
  | { kind: 'prepared'; prepared: PreparedParty }
  | { kind: 'onboarded'; record: PartyRecord };

const POLL_MS = 200;
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex');

function fingerprintIn(value: string, what: string): string {
  try {
    return normalizeFingerprint(value);
  } catch {
    throw new PartyError(
      'BAD_INPUT',
      `${what}: not a key fingerprint (expected 1220 followed by 64 hex digits)`,
    );
  }
}

export async function quillKey(keys: KeyCatalog, fingerprint: string, role: string) {
  let view: Awaited<ReturnType<KeyCatalog['get']>>;
  try {
    view = await keys.get(fingerprint);
  } catch {
    throw new PartyError('BAD_INPUT', `${role} ${fingerprint} is not in the key store`);
  }
  if (view.status !== 'active') throw new PartyError('KEY_DISABLED', `${role} ${fingerprint} is disabled`);
  return view;
}

/** The signing keys, resolved: Quill's from the key store, external ones read and fingerprinted. */
export async function resolveKeys(keys: KeyCatalog, refs: KeyRef[]): Promise<SigningKeyEntry[]> {
  if (!Array.isArray(refs) || refs.length === 0 || refs.length > 20) {
    throw new PartyError('BAD_INPUT', 'give 1 to 20 signing keys');
  }
  const out: SigningKeyEntry[] = [];
  for (const [i, ref] of refs.entries()) {
    if ('fingerprint' in ref) {
      const view = await quillKey(keys, fingerprintIn(ref.fingerprint, `signingKeys[${i}]`), 'signing key');
      out.push({
        fingerprint: view.fingerprint,
        holder: 'quill',
        publicKey: view.publicKey,
        keySpec: view.keySpec,
        label: view.label,
      });
    } else {
      let key: ReturnType<typeof externalKey>;
      try {
        key = externalKey(ref.publicKey, ref.keySpec);
      } catch (err) {
        throw new PartyError('BAD_INPUT', `signingKeys[${i}]: ${(err as Error).message}`);
      }
      out.push({
        fingerprint: key.fingerprint,
        holder: 'external',
        publicKey: key.publicKey,
        keySpec: key.keySpec,
        label: ref.label ?? null,
      });
    }
  }
  const seen = new Set<string>();
  for (const k of out) {
    if (seen.has(k.fingerprint)) throw new PartyError('BAD_INPUT', `key ${k.fingerprint} is listed twice`);
    seen.add(k.fingerprint);
  }
  return out;
}

async function resolveHosts(input: GovernedOnboardInput, opts: { signal?: AbortSignal }) {
  const primaryUid = (await input.primary.participantId(opts)).participantId;
  const hosts: (PartyHost & { ledger: HostLedger })[] = [
    { participantUid: primaryUid, permission: 'confirmation', host: null, ledger: input.primary },
  ];
  for (const h of input.otherHosts ?? []) {
    const ledger = input.hosts.get(h.host);
    if (!ledger) {
      const names = [...input.hosts.keys()];
      throw new PartyError(
        'UNKNOWN_HOST',
        `no ledger host "${String(h.host).slice(0, 64)}" is configured (LEDGER_HOSTS: ${names.length ? names.join(', ') : 'none'})`,
      );
    }
    if (hosts.some((x) => x.host === h.host))
      throw new PartyError('BAD_INPUT', `host ${h.host} is listed twice`);
    const uid = (await ledger.participantId(opts)).participantId;
    if (hosts.some((x) => x.participantUid === uid)) {
      throw new PartyError('BAD_INPUT', `host ${h.host} is participant ${uid}, already a host of the party`);
    }
    hosts.push({ participantUid: uid, permission: h.permission, host: h.host, ledger });
  }
  return hosts;
}

export async function onboardGovernedParty(input: GovernedOnboardInput): Promise<GovernedOnboardResult> {
  const hintProblem = partyHintProblem(input.partyHint);
  if (hintProblem) throw new PartyError('BAD_INPUT', hintProblem);
  const opts = input.signal ? { signal: input.signal } : {};
  const signingKeys = await resolveKeys(input.keys, input.signingKeys);
  if (!Number.isInteger(input.threshold) || input.threshold < 1 || input.threshold > signingKeys.length) {
    throw new PartyError(
      'BAD_INPUT',
      `the threshold must be 1 to ${signingKeys.length} (the number of signing keys)`,
    );
  }
  if (typeof input.namespaceKey !== 'string' && signingKeys.some((k) => k.holder === 'external')) {
    throw new PartyError(
      'BAD_INPUT',
      'name the namespaceKey: external keys prove possession by signing a hash that depends on it ' +
        '(POST /wallet/v1/parties/prepare shows it)',
    );
  }
  const synchronizerId = await pickSynchronizer({
    ledger: input.primary,
    ...(input.synchronizerId !== undefined ? { synchronizerId: input.synchronizerId } : {}),
    ...opts,
  });
  const hosts = await resolveHosts(input, opts);
  const confirming = hosts.filter((h) => h.permission === 'confirmation').length;
  const confirmationThreshold = input.confirmationThreshold ?? confirming;
  if (
    !Number.isInteger(confirmationThreshold) ||
    confirmationThreshold < 1 ||
    confirmationThreshold > confirming
  ) {
    throw new PartyError(
      'BAD_INPUT',
      `the confirmation threshold must be 1 to ${confirming} (the confirming hosts)`,
    );
  }
  const namespaceFingerprint =
    typeof input.namespaceKey === 'string' ? input.namespaceKey : await input.namespaceKey();
  const namespaceView = await quillKey(
    input.keys,
    fingerprintIn(namespaceFingerprint, 'namespaceKey'),
    'namespace key',
  );
  const partyId = partyIdOf(input.partyHint, namespaceView.fingerprint);
  const known = await input.registry.get(partyId);
  if (known && !input.prepareOnly) {
    if (known.synchronizerId === synchronizerId) return { kind: 'onboarded', record: known };
    throw new PartyError('CONFLICT', `party ${partyId} is already registered on ${known.synchronizerId}`);
  }
  const asTopologyKey = (k: {
    fingerprint: string;
    publicKey: string;
    keySpec: KeySpec;
  }): TopologyPublicKey => ({
    fingerprint: k.fingerprint,
    publicKey: k.publicKey,
    keySpec: k.keySpec,
  });
  const topology = onboardingTopology({
    partyId,
    namespaceKey: asTopologyKey(namespaceView),
    signingKeys: signingKeys.map(asTopologyKey),
    threshold: input.threshold,
    hosts: hosts.map((h) => ({ participantUid: h.participantUid, permission: h.permission })),
    confirmationThreshold,
  });

  // Proof of possession by external keys: verified here, so a bad one never reaches a participant.
  const proofs: Signature[] = [];
  const awaiting: string[] = [];
  for (const k of signingKeys.filter((x) => x.holder === 'external')) {
    const given = (input.signatures ?? []).find((s) => s.signedBy === k.fingerprint);
    if (!given) {
      awaiting.push(k.fingerprint);
      continue;
    }
    const checked = externalKey(k.publicKey, k.keySpec).check(given, topology.partyToParticipantHash);
    if ('problem' in checked) {
      throw new PartyError(
        'BAD_INPUT',
        `the proof of possession of key ${k.fingerprint}: ${checked.problem}`,
      );
    }
    proofs.push(checked.signature);
  }
  const prepared: PreparedParty = {
    partyId,
    synchronizerId,
    transactions: topology.transactions.map(b64),
    partyToParticipantHash: hex(topology.partyToParticipantHash),
    multiHash: hex(topology.multiHash),
    awaiting,
    hosts: hosts.map(({ ledger: _, ...h }) => h),
    confirmationThreshold,
  };
  if (input.prepareOnly) return { kind: 'prepared', prepared };
  if (awaiting.length > 0) {
    throw new PartyError(
      'SIGNATURES_NEEDED',
      `keys ${awaiting.join(', ')} must first sign the PartyToParticipant hash ${prepared.partyToParticipantHash} ` +
        '(proof of possession; POST /wallet/v1/parties/prepare shows the transactions)',
    );
  }

  for (const k of signingKeys.filter((x) => x.holder === 'quill')) {
    proofs.push(await input.signer.sign(k.fingerprint, topology.partyToParticipantHash));
  }
  const namespaceSignature = await input.signer.sign(namespaceView.fingerprint, topology.multiHash);
  const body = {
    synchronizer: synchronizerId,
    onboardingTransactions: [
      { transaction: prepared.transactions[0]! },
      { transaction: prepared.transactions[1]!, signatures: proofs },
    ],
    multiHashSignatures: [namespaceSignature],
  };
  // Every host receives the same bytes and signatures; each adds its own approval (§3.2).
  for (const h of hosts) {
    try {
      const res = await h.ledger.allocateExternalParty(
        { ...body, ...(h.host === null && input.userId ? { userId: input.userId } : {}) },
        opts,
      );
      if (res.partyId !== partyId) {
        throw new PartyError('MISMATCH', `${h.participantUid} allocated ${res.partyId}, not ${partyId}`);
      }
    } catch (err) {
      if (!alreadyExists(err)) throw err;
    }
  }
  await waitHosted(partyId, namespaceView.fingerprint, hosts, input.allocationTimeoutMs ?? 30_000, opts);
  const now = new Date().toISOString();
  const record = await input.registry.add({
    partyId,
    keyFingerprint: namespaceView.fingerprint,
    synchronizerId,
    createdAt: now,
    layout: 'separate',
    signing: { threshold: input.threshold, keys: signingKeys },
    hosts: prepared.hosts,
    confirmationThreshold,
    serial: 1,
  });
  return { kind: 'onboarded', record };
}

/** Polls each host until the party is visible there (its PartyToParticipant is active). */
async function waitHosted(
  partyId: string,
  namespaceFingerprint: string,
  hosts: { participantUid: string; ledger: HostLedger }[],
  timeoutMs: number,
  opts: { signal?: AbortSignal },
): Promise<void> {
  const until = Date.now() + timeoutMs;
  for (const h of hosts) {
    for (;;) {
      const res = await h.ledger.getParty(partyId, opts);
      if ((res.partyDetails ?? []).some((p) => p.party === partyId)) break;
      if (Date.now() >= until) {
        throw new PartyError(
          'ALLOCATION_PENDING',
          `party ${partyId} is not yet hosted on ${h.participantUid}; the same request again, with namespaceKey ` +
            `${namespaceFingerprint}, resumes`,
        );
      }
      await new Promise((r) => setTimeout(r, POLL_MS));
    }
  }
}
