/**
 * The synchronizer's topology state as the sandbox keeps it (external-party-keys.md §4.1): per party the active
 * PartyToParticipant and open proposals merged by transaction hash (TopologyStateProcessor), root namespace
 * delegations and decentralized namespaces. `allocate` and the admin API write through `submit`; execute
 * reads `signingKeys`. Everything takes effect at once (validFrom = now).
 */
import { err } from '../errors.ts';
import type { RegisteredKey } from '../keys.ts';
import {
  collectSignatures,
  type MultiTransactionSignatures,
  missingFor,
  type NamespaceAuthority,
  namespaceAuthorized,
  requiredFor,
  selfKey,
  type TopologySignature,
  unauthorized,
  verifySigners,
} from './authorization.ts';
import {
  type DecentralizedNamespaceDefinition,
  decodeTransaction,
  type NamespaceDelegation,
  type PartyToParticipant,
  TopologyDecodeError,
  type TopologyTransaction,
} from './codec.ts';
import { decentralizedNamespace } from './hash.ts';

export type { TopologySignature } from './authorization.ts';

export interface StoredTopologyTransaction {
  /** The UntypedVersionedMessage bytes as received. */
  transaction: Uint8Array;
  /** Lowercase hex of the 34-byte transaction hash. */
  hashHex: string;
  serial: number;
  operation: 'add-replace' | 'remove';
  partyId: string;
  proposal: boolean;
  /** Fingerprints and participant uids that authorized it. */
  signedBy: string[];
  /** ISO time. */
  validFrom: string;
  synchronizerId: string;
}

export interface AddedTransaction {
  transaction: Uint8Array;
  signatures: TopologySignature[];
  multiTransactionSignatures: MultiTransactionSignatures[];
  proposal: boolean;
}

/** What the store needs from the participant around it. */
export interface TopologyHooks {
  /** A participant with a SynchronizerTrustCertificate on the synchronizer. */
  isKnownMember(uid: string): boolean;
  /** Members without an API of their own whose approval is assumed (`SandboxStateOptions.otherParticipants`). */
  autoApproves(uid: string): boolean;
  /** A PartyToParticipant became active (or was removed: `next` undefined). */
  activated(
    synchronizerId: string,
    next: PartyToParticipant | undefined,
    prev: PartyToParticipant | undefined,
    party: string,
  ): void;
  now(): string;
}

interface Entry {
  tx: TopologyTransaction;
  synchronizerId: string;
  signers: Set<string>;
  approvals: Set<string>;
  validFrom: string;
  proposal: boolean;
}

export interface SubmitOptions {
  synchronizerId: string;
  /** The node receiving the call. */
  participantId: string;
  /** allocate: the receiving host approves (PartyOps `extendSignature`); the admin API does not. */
  nodeApproves: boolean;
  /** Whether an incomplete PartyToParticipant is an error rather than a proposal. */
  expectFullAuthorization: (tx: TopologyTransaction, proposal: boolean) => boolean;
  /** The admin API's serial rule (serial = active + 1); allocate checked serial 1 itself. */
  checkSerial: boolean;
  forceChanges?: string[];
}

const key = (a: string, b: string) => `${a}\u0000${b}`;

export class TopologyStore {
  private readonly active = new Map<string, Entry>();
  private readonly proposals = new Map<string, Entry>();
  private readonly rootDelegations = new Map<string, Entry>();
  private readonly decentralized = new Map<string, Entry>();
  /** Replaced and removed transactions, oldest first. */
  readonly history: Entry[] = [];

  constructor(private readonly hooks: TopologyHooks) {}

  /** The active PartyToParticipant of a party. */
  activePartyToParticipant(partyId: string, synchronizerId: string): PartyToParticipant | undefined {
    const m = this.active.get(key(synchronizerId, partyId))?.tx.mapping;
    return m?.kind === 'PartyToParticipant' ? m : undefined;
  }

  /** The party's signing keys and threshold from its active PartyToParticipant (BaseTopologySnapshot.signingKeysWithThreshold). */
  signingKeys(partyId: string, synchronizerId: string): PartyToParticipant['signingKeys'] {
    return this.activePartyToParticipant(partyId, synchronizerId)?.signingKeys;
  }

  listPartyToParticipant(q: {
    filterParty: string;
    proposals: boolean;
    synchronizerId?: string;
  }): StoredTopologyTransaction[] {
    const source = q.proposals ? this.proposals : this.active;
    return [...source.values()]
      .filter((e) => e.tx.mapping.kind === 'PartyToParticipant')
      .filter((e) => !q.synchronizerId || e.synchronizerId === q.synchronizerId)
      .filter((e) => (e.tx.mapping as PartyToParticipant).party.startsWith(q.filterParty))
      .map(stored);
  }

  /** The admin API's AddTransactions (external-party-keys.md §4.3(c)). */
  addTransactions(
    txs: AddedTransaction[],
    opts: { synchronizerId: string; participantId: string; forceChanges?: string[] },
  ): StoredTopologyTransaction[] {
    const decoded = txs.map((t) => {
      try {
        return decodeTransaction(t.transaction);
      } catch (e) {
        if (e instanceof TopologyDecodeError) throw err.invalidArgument(`Invalid transaction: ${e.message}`);
        throw e;
      }
    });
    return this.submit(
      decoded.map((tx, i) => ({
        tx,
        signatures: txs[i]!.signatures,
        multi: txs[i]!.multiTransactionSignatures,
        proposal: txs[i]!.proposal,
      })),
      {
        ...opts,
        nodeApproves: false,
        checkSerial: true,
        // TopologyStateProcessor L126: `expectFullAuthorization || !tx.isProposal`.
        expectFullAuthorization: (_tx, proposal) => !proposal,
      },
    );
  }

  /** The admin API's Authorize: the node adds its approval to a proposal (or an active transaction). */
  authorize(
    hashHex: string,
    opts: { participantId: string; synchronizerId: string },
  ): StoredTopologyTransaction {
    const entry =
      this.proposals.get(key(opts.synchronizerId, hashHex)) ??
      [...this.active.values()].find(
        (e) => e.synchronizerId === opts.synchronizerId && e.tx.hashHex === hashHex,
      );
    if (!entry) throw err.topologyTransactionNotFound(hashHex);
    if (!entry.proposal) return stored(entry);
    entry.approvals.add(opts.participantId);
    this.settle(entry, false);
    return stored(entry);
  }

  /**
   * Validates and applies a batch: namespace delegations and decentralized namespaces first (they must be
   * fully authorized), then PartyToParticipant mappings, each merged with a proposal of the same hash and
   * activated once complete (TopologyManager.add L806–870).
   */
  submit(
    batch: {
      tx: TopologyTransaction;
      signatures: TopologySignature[];
      multi: MultiTransactionSignatures[];
      proposal: boolean;
    }[],
    opts: SubmitOptions,
  ): StoredTopologyTransaction[] {
    const order = (t: TopologyTransaction) =>
      t.mapping.kind === 'NamespaceDelegation'
        ? 0
        : t.mapping.kind === 'DecentralizedNamespaceDefinition'
          ? 1
          : 2;
    const sorted = [...batch].sort((a, b) => order(a.tx) - order(b.tx));
    // The batch is applied whole or not at all.
    const saved = [this.active, this.proposals, this.rootDelegations, this.decentralized].map(
      (m) => new Map(m),
    );
    const historyLength = this.history.length;
    try {
      return this.apply(sorted, opts);
    } catch (e) {
      [this.active, this.proposals, this.rootDelegations, this.decentralized].forEach((m, i) => {
        m.clear();
        for (const [k, v] of saved[i]!) m.set(k, v);
      });
      this.history.length = historyLength;
      throw e;
    }
  }

  private apply(
    sorted: {
      tx: TopologyTransaction;
      signatures: TopologySignature[];
      multi: MultiTransactionSignatures[];
      proposal: boolean;
    }[],
    opts: SubmitOptions,
  ): StoredTopologyTransaction[] {
    const pendingRoots = new Map<string, RegisteredKey>();
    const out: StoredTopologyTransaction[] = [];
    for (const item of sorted) {
      const m = item.tx.mapping;
      const sigs = collectSignatures(item.tx, item.signatures, item.multi);
      if (m.kind === 'NamespaceDelegation')
        out.push(this.addRootDelegation(item.tx, m, sigs, opts, pendingRoots));
      else if (m.kind === 'DecentralizedNamespaceDefinition')
        out.push(this.addDecentralized(item.tx, m, sigs, opts));
      else if (m.kind === 'PartyToParticipant')
        out.push(this.addPartyToParticipant(item.tx, m, sigs, item.proposal, opts));
      else
        throw err.invalidArgument(
          `Unsupported mapping ${m.kind} (field ${m.field}) in the sandbox's topology store`,
        );
    }
    return out;
  }

  private checkSerial(tx: TopologyTransaction, current: Entry | undefined): void {
    const expected = current ? current.tx.serial + 1 : 1;
    if (tx.serial !== expected) throw err.serialMismatch(expected, tx.serial);
  }

  /** Root delegations only (namespace = fingerprint of the target key), signed by that key. */
  private addRootDelegation(
    tx: TopologyTransaction,
    m: NamespaceDelegation,
    sigs: ReturnType<typeof collectSignatures>,
    opts: SubmitOptions,
    pendingRoots: Map<string, RegisteredKey>,
  ): StoredTopologyTransaction {
    const k = key(opts.synchronizerId, m.namespace);
    const current = this.rootDelegations.get(k);
    if (current?.tx.hashHex === tx.hashHex) return stored(current);
    if (!m.root) throw err.invalidTopologyMapping('the sandbox supports root namespace delegations only');
    if (opts.checkSerial || !current) this.checkSerial(tx, current);
    const signers = verifySigners(sigs, new Map([[m.target.key.fingerprint, m.target.key]]));
    if (!signers.has(m.namespace)) throw unauthorized({ namespaces: [m.namespace], keys: [] }, m.namespace);
    const entry = this.entry(tx, opts.synchronizerId, signers, new Set());
    this.replace(this.rootDelegations, k, entry);
    pendingRoots.set(m.namespace, m.target.key);
    return stored(entry);
  }

  /** A decentralized namespace: serial 1 needs every owner, later ones `threshold` of the current owners. */
  private addDecentralized(
    tx: TopologyTransaction,
    m: DecentralizedNamespaceDefinition,
    sigs: ReturnType<typeof collectSignatures>,
    opts: SubmitOptions,
  ): StoredTopologyTransaction {
    const k = key(opts.synchronizerId, m.namespace);
    const current = this.decentralized.get(k);
    if (current?.tx.hashHex === tx.hashHex) return stored(current);
    this.checkSerial(tx, current);
    if (!current && decentralizedNamespace(m.owners) !== m.namespace)
      throw err.invalidTopologyMapping(
        `decentralized namespace ${m.namespace} is not derived from its owners`,
      );
    const ownerKeys = this.rootKeys(opts.synchronizerId, m.owners);
    const signers = verifySigners(sigs, ownerKeys);
    const prev = current?.tx.mapping as DecentralizedNamespaceDefinition | undefined;
    // New owners must all sign; an update also needs `threshold` of the current owners (topology.proto L117–127).
    const needed = prev ? m.owners.filter((o) => !prev.owners.includes(o)) : m.owners;
    const missingOwners = needed.filter((o) => !signers.has(o));
    const thresholdOk = !prev || prev.owners.filter((o) => signers.has(o)).length >= prev.threshold;
    if (missingOwners.length > 0 || !thresholdOk)
      throw unauthorized({ namespaces: missingOwners.length ? missingOwners : [m.namespace], keys: [] }, '');
    const entry = this.entry(tx, opts.synchronizerId, signers, new Set());
    this.replace(this.decentralized, k, entry);
    return stored(entry);
  }

  /** Root keys of namespaces (owners' root delegations, active or just added). */
  private rootKeys(synchronizerId: string, namespaces: string[]): Map<string, RegisteredKey> {
    const out = new Map<string, RegisteredKey>();
    for (const ns of namespaces) {
      const nsd = this.rootDelegations.get(key(synchronizerId, ns))?.tx.mapping as
        | NamespaceDelegation
        | undefined;
      if (nsd) out.set(ns, nsd.target.key);
    }
    return out;
  }

  private authority(m: PartyToParticipant, synchronizerId: string): NamespaceAuthority {
    const keys = new Map<string, RegisteredKey>();
    const self = selfKey(m);
    if (self) keys.set(self.fingerprint, self);
    for (const [fp, k] of this.rootKeys(synchronizerId, [m.namespace])) keys.set(fp, k);
    const dnd = this.decentralized.get(key(synchronizerId, m.namespace))?.tx.mapping as
      | DecentralizedNamespaceDefinition
      | undefined;
    return dnd
      ? {
          keys,
          decentralized: { threshold: dnd.threshold, ownerKeys: this.rootKeys(synchronizerId, dnd.owners) },
        }
      : { keys };
  }

  private addPartyToParticipant(
    tx: TopologyTransaction,
    m: PartyToParticipant,
    sigs: ReturnType<typeof collectSignatures>,
    proposal: boolean,
    opts: SubmitOptions,
  ): StoredTopologyTransaction {
    const current = this.active.get(key(opts.synchronizerId, m.party));
    if (current?.tx.hashHex === tx.hashHex) return stored(current);
    if (opts.checkSerial) this.checkSerial(tx, current);
    const prev = current?.tx.mapping as PartyToParticipant | undefined;
    if (tx.operation === 1) this.checkMapping(m, prev);
    else checkRemoval(m, prev);
    // Keys that can authorize: the namespace's, and the listed ones (their proofs of possession).
    const auth = this.authority(m, opts.synchronizerId);
    const verifiable = new Map(auth.keys);
    for (const k of m.signingKeys?.keys ?? []) verifiable.set(k.key.fingerprint, k.key);
    for (const [fp, k] of auth.decentralized?.ownerKeys ?? []) verifiable.set(fp, k);
    const signers = verifySigners(sigs, verifiable);
    const pk = key(opts.synchronizerId, tx.hashHex);
    const entry = this.proposals.get(pk) ?? this.entry(tx, opts.synchronizerId, new Set(), new Set());
    for (const s of signers) entry.signers.add(s);
    if (opts.nodeApproves) entry.approvals.add(opts.participantId);
    const complete = this.settle(entry, opts.expectFullAuthorization(tx, proposal));
    if (!complete && !this.proposals.has(pk)) {
      entry.proposal = true;
      this.proposals.set(pk, entry);
    }
    return stored(entry);
  }

  /**
   * Activates the entry when nothing is missing; otherwise throws (when full authorization is expected) or
   * leaves it a proposal. Returns whether it became active.
   */
  private settle(entry: Entry, expectFull: boolean): boolean {
    const m = entry.tx.mapping as PartyToParticipant;
    const k = key(entry.synchronizerId, m.party);
    const current = this.active.get(k);
    const prev = current?.tx.mapping as PartyToParticipant | undefined;
    const approvals = new Set([
      ...entry.approvals,
      ...m.participants.map((h) => h.uid).filter((u) => this.hooks.autoApproves(u)),
    ]);
    const auth = this.authority(m, entry.synchronizerId);
    const missing = missingFor(
      requiredFor(m, prev, entry.tx.operation === 2),
      m.namespace,
      namespaceAuthorized(auth, entry.signers),
      entry.signers,
      approvals,
    );
    if (missing.namespaces.length > 0 || missing.keys.length > 0) {
      if (expectFull) throw unauthorized(missing, m.namespace);
      return false;
    }
    this.proposals.delete(key(entry.synchronizerId, entry.tx.hashHex));
    // Proposals for the replaced serial can never become active any more.
    for (const [pk, p] of this.proposals)
      if (
        p.synchronizerId === entry.synchronizerId &&
        (p.tx.mapping as PartyToParticipant).party === m.party &&
        p.tx.serial <= entry.tx.serial
      )
        this.proposals.delete(pk);
    entry.proposal = false;
    entry.approvals = approvals;
    entry.validFrom = this.hooks.now();
    if (entry.tx.operation === 2) {
      if (current) this.history.push(current);
      this.active.delete(k);
      this.history.push(entry);
      this.hooks.activated(entry.synchronizerId, undefined, prev, m.party);
    } else {
      this.replace(this.active, k, entry);
      this.hooks.activated(entry.synchronizerId, m, prev, m.party);
    }
    return true;
  }

  /**
   * TopologyManager's dangerous-change checks (L1071–1120) and the mapping checks against the synchronizer
   * (TopologyMappingChecks.scala L585–672): thresholds reachable, at most 20 unique keys, known hosts.
   */
  private checkMapping(m: PartyToParticipant, prev: PartyToParticipant | undefined): void {
    const keys = m.signingKeys?.keys ?? [];
    if (m.signingKeys && m.signingKeys.threshold > keys.length)
      throw err.signingThresholdUnreachable(m.signingKeys.threshold, keys.length);
    if (m.threshold > m.participants.length)
      throw err.confirmingThresholdUnreachable(m.threshold, m.participants.length);
    checkKeyList(keys.map((k) => k.key.fingerprint));
    const before = new Set(prev?.participants.map((h) => h.uid) ?? []);
    const unknown = m.participants
      .map((h) => h.uid)
      .filter((u) => !before.has(u) && !this.hooks.isKnownMember(u));
    if (unknown.length > 0) throw err.topologyUnknownMembers(unknown);
  }

  private entry(
    tx: TopologyTransaction,
    synchronizerId: string,
    signers: Set<string>,
    approvals: Set<string>,
  ): Entry {
    return { tx, synchronizerId, signers, approvals, validFrom: this.hooks.now(), proposal: false };
  }

  private replace(map: Map<string, Entry>, k: string, entry: Entry): void {
    const old = map.get(k);
    if (old) this.history.push(old);
    map.set(k, entry);
  }
}

/** A REMOVE names the active mapping unchanged (NoCorrespondingActiveTxToRevoke, RemoveMustNotChangeMapping). */
function checkRemoval(m: PartyToParticipant, prev: PartyToParticipant | undefined): void {
  if (!prev) throw err.noActiveTransactionToRevoke();
  const shape = (p: PartyToParticipant) =>
    JSON.stringify([
      p.party,
      p.threshold,
      p.participants.map((h) => [h.uid, h.permission, h.onboarding]),
      p.signingKeys?.threshold,
      p.signingKeys?.keys.map((k) => [k.key.fingerprint, [...k.usage].sort()]),
    ]);
  if (shape(m) !== shape(prev)) throw err.removeMustNotChangeMapping();
}

/** KeyMapping.MaxKeys (TopologyMapping.scala L825) and SigningKeysWithThreshold.createFromSeq's uniqueness (Signing.scala). */
export function checkKeyList(fingerprints: string[]): void {
  if (fingerprints.length > 20)
    throw err.invalidArgument(`At most 20 signing keys may be set, but ${fingerprints.length} were given`);
  const dup = fingerprints.find((fp, i) => fingerprints.indexOf(fp) !== i);
  if (dup) throw err.invalidArgument(`All signing keys must be unique, but ${dup} is given more than once`);
}

function stored(e: Entry): StoredTopologyTransaction {
  const m = e.tx.mapping;
  return {
    transaction: e.tx.bytes,
    hashHex: e.tx.hashHex,
    serial: e.tx.serial,
    operation: e.tx.operation === 2 ? 'remove' : 'add-replace',
    partyId:
      m.kind === 'PartyToParticipant'
        ? m.party
        : m.kind === 'NamespaceDelegation' || m.kind === 'DecentralizedNamespaceDefinition'
          ? m.namespace
          : '',
    proposal: e.proposal,
    signedBy: [...e.signers, ...e.approvals],
    validFrom: e.validFrom,
    synchronizerId: e.synchronizerId,
  };
}
