// Changing a party's signing keys (add, remove, threshold) through the participant's admin API: the next serial
// of its PartyToParticipant, signed by the namespace key and by every added key (external-party-keys.md §2.1,
// §2.3), added with AddTransactions, then waited for until it is the party's head state. The JSON Ledger API
// cannot do this (allocate takes serial 1 only): without an admin API, say so and name the fallback.
import type { AdminSignature, TopologyAdminClient } from '@quill/canton/admin';
import type { Signature } from '@quill/canton/ledger';
import { decodeTopologyTransaction, keyFingerprint, type PartyToParticipant } from '@quill/canton/topology';
import { externalKey, type KeyCatalog, type Signer } from '../signing/index.ts';
import { PartyError } from './errors.ts';
import { type KeyRef, quillKey, resolveKeys } from './governed.ts';
import type { PartyRecord, PartyRegistry, SigningKeyEntry } from './registry.ts';
import { signingSetOf } from './signing-set.ts';
import { changedPartyToParticipant } from './topology.ts';

export type TopologyAdmin = Pick<TopologyAdminClient, 'listPartyToParticipant' | 'addTransactions'>;

export const NO_ADMIN_API =
  "changing a party's keys needs the participant's admin API (set LEDGER_ADMIN_URL): the JSON Ledger API " +
  'allocates serial 1 only. Without it: onboard a new party with the new keys, move its holdings to it by ' +
  'transfers, and stop using the old one (docs/keys.md, "Without the admin API")';

export interface KeyChangeInput {
  admin: TopologyAdmin | undefined;
  signer: Signer;
  keys: KeyCatalog;
  registry: PartyRegistry;
  partyId: string;
  add?: KeyRef[];
  /** Fingerprints. */
  remove?: string[];
  threshold?: number;
  /** Proof of possession by added external keys, over the new transaction's hash. */
  signatures?: Signature[];
  prepareOnly?: boolean;
  /** How long to wait for the change to become effective (default 30 s). */
  effectiveTimeoutMs?: number;
}

export interface PreparedKeyChange {
  partyId: string;
  serial: number;
  transaction: string;
  /** Hex of the 34-byte hash the namespace key and every added key sign. */
  hash: string;
  awaiting: string[];
}

export type KeyChangeResult =
  | { kind: 'prepared'; prepared: PreparedKeyChange }
  | {
      kind: 'changed';
      record: PartyRecord;
      added: string[];
      removed: string[];
      /** The transaction's hash (hex) and who signed it: for the audit chain. */
      hash: string;
      signedBy: string[];
    };

const POLL_MS = 200;

function adminSignature(s: Signature): AdminSignature {
  return {
    signedBy: s.signedBy,
    format: s.format as AdminSignature['format'],
    signature: new Uint8Array(Buffer.from(s.signature, 'base64')),
    signingAlgorithmSpec: s.signingAlgorithmSpec as AdminSignature['signingAlgorithmSpec'],
  };
}

async function head(admin: TopologyAdmin, record: PartyRecord) {
  const states = await admin.listPartyToParticipant({
    party: record.partyId,
    synchronizerId: record.synchronizerId,
  });
  const active = states.filter((s) => !s.proposal && s.partyId === record.partyId);
  return active.sort((a, b) => b.serial - a.serial)[0];
}

export async function changePartyKeys(input: KeyChangeInput): Promise<KeyChangeResult> {
  let record = await input.registry.get(input.partyId);
  if (!record)
    throw new PartyError('BAD_INPUT', `party ${input.partyId.slice(0, 255)} is not held by this wallet`);
  if (!input.admin) throw new PartyError('ADMIN_API_UNAVAILABLE', NO_ADMIN_API);
  const add = input.add ?? [];
  const remove = input.remove ?? [];
  if (add.length === 0 && remove.length === 0 && input.threshold === undefined) {
    throw new PartyError('BAD_INPUT', 'nothing to change: give keys to add or remove, or a threshold');
  }
  const current = await head(input.admin, record);
  if (!current)
    throw new PartyError('TOPOLOGY_CHANGED', `the participant has no topology for ${record.partyId}`);
  if (current.serial < (record.serial ?? 1)) {
    throw new PartyError(
      'TOPOLOGY_CHANGED',
      `the participant has serial ${current.serial} of ${record.partyId}'s topology, older than Quill's ${record.serial ?? 1}`,
    );
  }
  if (current.serial > (record.serial ?? 1)) {
    // Changed since Quill last wrote it (a change that timed out waiting, or the operator's own): the participant
    // is the truth, so Quill's record follows it before building on it.
    let decoded: ReturnType<typeof decodeTopologyTransaction>;
    try {
      decoded = decodeTopologyTransaction(current.transaction);
    } catch (err) {
      throw new PartyError(
        'MISMATCH',
        `the participant's head state does not decode: ${(err as Error).message}`,
      );
    }
    if (decoded.mapping.kind !== 'party-to-participant') {
      throw new PartyError(
        'MISMATCH',
        `the participant's head state of ${record.partyId} is not a PartyToParticipant`,
      );
    }
    record = await adoptHead(input, record, decoded.mapping, current.serial, record.serial ?? 1);
  }
  const knownSerial = record.serial ?? 1;
  const before = signingSetOf(record).keys;
  const added = add.length > 0 ? await resolveKeys(input.keys, add) : [];
  const next = changedPartyToParticipant(
    current.transaction,
    record.partyId,
    {
      add: added,
      remove,
      ...(input.threshold !== undefined ? { threshold: input.threshold } : {}),
    },
    record.keyFingerprint,
  );

  const proofs: Signature[] = [];
  const awaiting: string[] = [];
  for (const k of added.filter((x) => x.holder === 'external')) {
    const given = (input.signatures ?? []).find((s) => s.signedBy === k.fingerprint);
    if (!given) {
      awaiting.push(k.fingerprint);
      continue;
    }
    const checked = externalKey(k.publicKey, k.keySpec).check(given, next.hash);
    if ('problem' in checked) {
      throw new PartyError(
        'BAD_INPUT',
        `the proof of possession of key ${k.fingerprint}: ${checked.problem}`,
      );
    }
    proofs.push(checked.signature);
  }
  const prepared: PreparedKeyChange = {
    partyId: record.partyId,
    serial: next.serial,
    transaction: Buffer.from(next.transaction).toString('base64'),
    hash: Buffer.from(next.hash).toString('hex'),
    awaiting,
  };
  if (input.prepareOnly) return { kind: 'prepared', prepared };
  if (awaiting.length > 0) {
    throw new PartyError(
      'SIGNATURES_NEEDED',
      `keys ${awaiting.join(', ')} must first sign the change's hash ${prepared.hash} (proof of possession)`,
    );
  }
  let namespace: Awaited<ReturnType<typeof quillKey>>;
  try {
    namespace = await quillKey(input.keys, record.keyFingerprint, 'namespace key');
  } catch (err) {
    if (err instanceof PartyError && err.code === 'BAD_INPUT') {
      throw new PartyError(
        'NAMESPACE_KEY_OFFLINE',
        `the namespace key ${record.keyFingerprint} must sign this change: bring it back into a key backend (it is kept cold)`,
      );
    }
    throw err;
  }
  const signatures = [await input.signer.sign(namespace.fingerprint, next.hash)];
  for (const k of added.filter((x) => x.holder === 'quill')) {
    signatures.push(await input.signer.sign(k.fingerprint, next.hash));
  }
  signatures.push(...proofs);
  const timeoutMs = input.effectiveTimeoutMs ?? 30_000;
  await input.admin.addTransactions(
    [{ transaction: next.transaction, signatures: signatures.map(adminSignature) }],
    { synchronizerId: record.synchronizerId, waitToBecomeEffectiveMs: timeoutMs },
  );
  await waitEffective(input.admin, record, next.serial, timeoutMs);

  const updated = await adoptHead(input, record, next.mapping, next.serial, knownSerial, added);
  return {
    kind: 'changed',
    record: updated,
    hash: prepared.hash,
    signedBy: signatures.map((x) => x.signedBy),
    added: added.map((k) => k.fingerprint),
    removed: before
      .map((k) => k.fingerprint)
      .filter((fp) => !updated.signing?.keys.some((k) => k.fingerprint === fp)),
  };
}

/**
 * The party's record as the participant's head state has it: the set in the mapping's order, each key Quill's
 * when a key backend holds it, else external (its public key is in the mapping).
 */
async function adoptHead(
  input: Pick<KeyChangeInput, 'keys' | 'registry'>,
  record: PartyRecord,
  mapping: PartyToParticipant,
  serial: number,
  fromSerial: number,
  added: SigningKeyEntry[] = [],
): Promise<PartyRecord> {
  const known = [...added, ...(record.signing?.keys ?? [])];
  const keys: SigningKeyEntry[] = [];
  for (const k of mapping.signingKeys?.keys ?? []) {
    const fingerprint = keyFingerprint(k.spki, k.keySpec);
    const publicKey = Buffer.from(k.spki).toString('base64');
    let holder: SigningKeyEntry['holder'] = 'external';
    let label = known.find((x) => x.fingerprint === fingerprint)?.label ?? null;
    try {
      const view = await input.keys.get(fingerprint);
      holder = 'quill';
      label ??= view.label;
    } catch {
      // not in a key backend: someone else holds it
    }
    keys.push({ fingerprint, holder, publicKey, keySpec: k.keySpec, label });
  }
  return input.registry.replace(
    {
      ...record,
      layout: record.layout ?? (record.signing ? 'separate' : 'single'),
      signing: { threshold: mapping.signingKeys?.threshold ?? 1, keys },
      serial,
      updatedAt: new Date().toISOString(),
    },
    fromSerial,
  );
}

async function waitEffective(admin: TopologyAdmin, record: PartyRecord, serial: number, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const now = await head(admin, record);
    if (now && now.serial >= serial) return;
    if (Date.now() >= until) {
      throw new PartyError(
        'ALLOCATION_PENDING',
        `serial ${serial} of ${record.partyId}'s topology is not effective yet; Quill's record still has serial ${record.serial ?? 1}`,
      );
    }
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
}
