/**
 * The sandbox participant's whole state: identities, parties, users, packages, active contracts, the update
 * log, command deduplication, the activity feed and commit counters. Mutations happen synchronously (one
 * event-loop turn), which is what makes each commit atomic.
 */
import { createHash, randomBytes } from 'node:crypto';
import { err } from '../errors.ts';
import { isoFromMicros } from '../lfjson.ts';
import { type PartyToParticipant, PERMISSION_NAMES } from '../topology/codec.ts';
import { TopologyStore } from '../topology/store.ts';
import { Interner } from './intern.ts';
import { UpdateLog } from './log.ts';
import { PackageStore } from './packages.ts';
import type {
  ActivityRecord,
  CommittedNode,
  Contract,
  ParticipantPermission,
  PartyRecord,
  ReassignmentUpdate,
  RegistryRecord,
  Synchronizer,
  TopologyEventRecord,
  TopologyUpdate,
  TransactionUpdate,
} from './types.ts';
import { UserStore } from './users.ts';

export interface SandboxStateOptions {
  /** Namespace-qualified id of this participant (default `sandbox::1220…`). */
  participantId?: string;
  /**
   * Other participants on the synchronizers that have no API here: known members (no TOPOLOGY_UNKNOWN_MEMBERS)
   * whose approval of a PartyToParticipant listing them is assumed, as if their operators ran Authorize at once.
   * Participants that approve only when called are `SandboxConfig.hosts`.
   */
  otherParticipants?: string[];
  synchronizers?: Synchronizer[];
  /** Longest deduplication period the participant accepts (default 7 days). */
  maxDeduplicationSeconds?: number;
  /**
   * The synchronizer's preparationTimeRecordTimeTolerance (default 24 h, Canton's default): a transaction
   * commits only while |record time - preparation time| is within it, in both directions.
   */
  preparationTimeToleranceSeconds?: number;
  /**
   * The synchronizer's ledgerTimeRecordTimeTolerance (default 60 s, Canton's default): a transaction commits
   * only while |record time - ledger effective time| is within it.
   */
  ledgerTimeToleranceSeconds?: number;
  maxVettingPageSize?: number;
}

export interface DedupEntry {
  completionOffset: number;
  submissionId: string;
  updateId: string;
  recordTimeMicros: bigint;
}

function hash64(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Namespace-qualified id `<name>::1220<64 hex>` derived from a name. */
/** `PartyRecord.hosting`'s key. */
function hostingKey(synchronizerId: string, participantId: string): string {
  return `${synchronizerId}\u0000${participantId}`;
}

/** A W3C `traceparent` (version 00, sampled) with fresh random trace and span ids. */
export function newTraceparent(): string {
  const b = randomBytes(24).toString('hex');
  return ['00-', b.slice(0, 32), '-', b.slice(32), '-01'].join('');
}

export function qualifiedId(name: string): string {
  return `${name}::1220${hash64(`quill-sandbox-namespace:${name}`)}`;
}

export class SandboxState {
  readonly participantId: string;
  readonly otherParticipants: string[];
  /** Participants with their own listener (`SandboxConfig.hosts`), by uid. */
  readonly hosts = new Set<string>();
  /** The synchronizers' topology state (party-to-participant mappings, namespaces). */
  readonly topology: TopologyStore;
  readonly synchronizers: Synchronizer[];
  readonly maxDeduplicationSeconds: number;
  readonly preparationTimeToleranceSeconds: number;
  readonly ledgerTimeToleranceSeconds: number;
  readonly log = new UpdateLog();
  readonly users = new UserStore();
  readonly packages: PackageStore;
  readonly parties = new Map<string, PartyRecord>();
  readonly contracts = new Map<string, Contract>();
  readonly activities: ActivityRecord[] = [];
  /** Unassigned contracts by the reassignment id their assignment names. */
  private readonly inTransit = new Map<string, Contract>();
  readonly dedup = new Map<string, DedupEntry>();
  readonly inFlight = new Map<string, string>();
  /** How many times each command id was committed, in the updates not pruned (exactly-once tests read this). */
  readonly commits = new Map<string, number>();
  /**
   * A test instrument, not participant behaviour: the `traceparent` and `tracestate` headers (null when absent) each
   * execute request came with, by submission id, newest last, the last 1000 kept. Tracing tests read what was sent.
   */
  readonly receivedTraceparents: {
    submissionId: string;
    traceparent: string | null;
    tracestate: string | null;
  }[] = [];
  /** The token registries (registry/bootstrap.ts), by key (`amulet`, `usdq`). */
  readonly registries = new Map<string, RegistryRecord>();
  /** The coin rules contract and its operator (set by bootstrapCoin). */
  coinRules?: string;
  operator?: string;
  /**
   * The record time of the last pruned offset (CommandDeduplicationStore.latestPruning's publication time):
   * a deduplication period starting at or before it is too early.
   */
  prunedPublicationMicros?: bigint;
  /** Added to the wall clock (tests move time forward to pass max record times). */
  clockOffsetMs = 0;
  private lastMicros = 0n;
  private readonly interner = new Interner();
  private readonly startedAt = Date.now();

  constructor(opts: SandboxStateOptions = {}) {
    this.participantId = opts.participantId ?? qualifiedId('sandbox-participant');
    this.otherParticipants = opts.otherParticipants ?? [];
    // A second synchronizer, so that contracts can be reassigned (the first is where everything starts).
    this.synchronizers = opts.synchronizers ?? [
      { alias: 'global', id: qualifiedId('global-domain') },
      { alias: 'second', id: qualifiedId('second-domain') },
    ];
    this.maxDeduplicationSeconds = opts.maxDeduplicationSeconds ?? 7 * 24 * 3600;
    this.preparationTimeToleranceSeconds = opts.preparationTimeToleranceSeconds ?? 24 * 3600;
    this.ledgerTimeToleranceSeconds = opts.ledgerTimeToleranceSeconds ?? 60;
    this.packages = new PackageStore(opts.maxVettingPageSize ?? 100);
    // Known members: this participant, the extra hosts (each with its own API, approving for itself through
    // allocate or authorize) and `otherParticipants`, which have no API of their own: their approval of a
    // PartyToParticipant that lists them is assumed, as if their operator had run Authorize at once.
    this.topology = new TopologyStore({
      isKnownMember: (uid) =>
        uid === this.participantId || this.hosts.has(uid) || this.otherParticipants.includes(uid),
      autoApproves: (uid) => this.otherParticipants.includes(uid),
      activated: (synchronizerId, next, prev, party) =>
        this.applyPartyToParticipant(synchronizerId, party, next, prev),
      now: () => isoFromMicros(this.nowMicros()),
    });
  }

  get defaultSynchronizer(): string {
    return this.synchronizers[0]?.id ?? '';
  }

  /** Strictly increasing ledger clock in microseconds. */
  nowMicros(): bigint {
    const wall = BigInt(Date.now() + this.clockOffsetMs) * 1000n;
    this.lastMicros = wall > this.lastMicros ? wall : this.lastMicros + 1n;
    return this.lastMicros;
  }

  /** The open mining round: one per 10 minutes since start (rounds only label activities). */
  currentRound(): number {
    return 1 + Math.floor((Date.now() + this.clockOffsetMs - this.startedAt) / 600_000);
  }

  // Ids are built from one buffer so they are flat strings (a concatenation would keep a rope per id).
  newUpdateId(): string {
    const b = randomBytes(34);
    b[0] = 0x12;
    b[1] = 0x20;
    return b.toString('hex');
  }

  newContractId(): string {
    const b = randomBytes(33);
    b[0] = 0;
    return b.toString('hex');
  }

  /** Allocates a local (participant-signed) party and publishes its hosting as a topology event. */
  allocateLocalParty(hint: string, synchronizerId = this.defaultSynchronizer): PartyRecord {
    const partyId = `${hint}::${this.participantId.split('::')[1] ?? ''}`;
    const existing = this.parties.get(partyId);
    if (existing) return existing;
    const party: PartyRecord = {
      partyId,
      isLocal: true,
      keys: new Map(),
      synchronizers: new Set([synchronizerId]),
      hosting: new Map(),
      identityProviderId: '',
      annotations: {},
    };
    this.parties.set(partyId, party);
    this.host(party, synchronizerId, [
      { partyId, participantId: this.participantId, permission: 'PARTICIPANT_PERMISSION_SUBMISSION' },
    ]);
    return party;
  }

  /**
   * Applies a PartyToParticipant that became active (TopologyStore's hook): the party record, its keys and its
   * hosting, each hosting change published as a topology event (ParticipantAuthorizationAdded/Changed/Revoked).
   */
  private applyPartyToParticipant(
    synchronizerId: string,
    partyId: string,
    next: PartyToParticipant | undefined,
    prev: PartyToParticipant | undefined,
  ): void {
    let party = this.parties.get(partyId);
    if (!party) {
      party = {
        partyId,
        isLocal: false,
        keys: new Map(),
        synchronizers: new Set(),
        hosting: new Map(),
        identityProviderId: '',
        annotations: {},
        topologyManaged: true,
      };
      this.parties.set(partyId, party);
    }
    party.topologyManaged = true;
    party.keys = new Map((next?.signingKeys?.keys ?? []).map((k) => [k.key.fingerprint, k.key]));
    if (next) party.synchronizers.add(synchronizerId);
    else party.synchronizers.delete(synchronizerId);
    const before = new Map(prev?.participants.map((h) => [h.uid, PERMISSION_NAMES[h.permission]]) ?? []);
    const events: TopologyEventRecord[] = [];
    for (const h of next?.participants ?? []) {
      const permission = PERMISSION_NAMES[h.permission];
      const was = before.get(h.uid);
      before.delete(h.uid);
      party.hosting.set(hostingKey(synchronizerId, h.uid), permission);
      if (was === permission) continue;
      events.push({
        partyId,
        participantId: h.uid,
        permission,
        ...(was ? { change: 'changed' as const } : {}),
      });
    }
    for (const uid of before.keys()) {
      party.hosting.delete(hostingKey(synchronizerId, uid));
      events.push({ partyId, participantId: uid, change: 'revoked' });
    }
    if (events.length > 0) this.appendTopology(synchronizerId, events);
  }

  /** Registers a participant with its own API (`SandboxConfig.hosts`): a known member that approves for itself. */
  addHost(participantId: string): void {
    this.hosts.add(participantId);
  }

  /**
   * Whether `GET /v2/parties` on `participantId` shows the party: a topology-managed (external) party only once
   * its active PartyToParticipant lists that node; the other parties (local ones, and those whose hosting
   * the admin API changed) on this participant as before.
   */
  partyVisibleOn(party: PartyRecord, participantId: string): boolean {
    const hosted = [...party.hosting.keys()].some((k) => k.endsWith(`\u0000${participantId}`));
    return hosted || (participantId === this.participantId && !party.topologyManaged);
  }

  /** Records the hosting of a newly allocated party and publishes it (ParticipantAuthorizationAdded). */
  private host(party: PartyRecord, synchronizerId: string, hosting: TopologyEventRecord[]): void {
    for (const h of hosting)
      if (h.permission) party.hosting.set(hostingKey(synchronizerId, h.participantId), h.permission);
    this.appendTopology(synchronizerId, hosting);
  }

  private appendTopology(synchronizerId: string, events: TopologyEventRecord[]): TopologyUpdate {
    return this.log.append({
      kind: 'topology',
      offset: 0,
      updateId: this.newUpdateId(),
      synchronizerId,
      recordTime: isoFromMicros(this.nowMicros()),
      events,
    });
  }

  /**
   * Commits a transaction atomically: appends the update, activates created contracts, archives consumed
   * ones, records deduplication and activities. Callers have validated everything before. A transaction
   * committed without the submitter's trace context gets one of its own, as the participant's ledger API
   * server generates one (transaction.proto `trace_context`).
   */
  commit(
    draft: Omit<TransactionUpdate, 'offset' | 'kind' | 'nodes'> & { nodes: CommittedNode[] },
    changeKey: string | undefined,
    activities: (offset: number) => ActivityRecord[],
  ): TransactionUpdate {
    const traced = draft.traceparent === undefined ? { ...draft, traceparent: newTraceparent() } : draft;
    const record = this.log.append(this.compact(traced));
    for (const n of record.nodes) {
      if (n.kind === 'create') {
        n.contract.createdOffset = record.offset;
        this.contracts.set(n.contract.contractId, n.contract);
      }
    }
    for (const n of record.nodes) {
      if (n.kind === 'exercise' && n.consuming) {
        n.contract.archivedOffset = record.offset;
        n.contract.archivedNodeId = n.nodeId;
      }
    }
    if (changeKey !== undefined) {
      this.dedup.set(changeKey, {
        completionOffset: record.offset,
        submissionId: record.submissionId,
        updateId: record.updateId,
        recordTimeMicros: this.lastMicros,
      });
    }
    this.commits.set(record.commandId, (this.commits.get(record.commandId) ?? 0) + 1);
    const list = activities(record.offset);
    for (const a of list) this.activities.push(a);
    return record;
  }

  /** Shares repeated immutable pieces of an update with earlier ones (memory for 1M+ updates). */
  private compact(draft: Omit<TransactionUpdate, 'offset' | 'kind'>): TransactionUpdate {
    const i = this.interner;
    const seen = new Set<Contract>();
    for (const n of draft.nodes) {
      const c = n.contract;
      if (!seen.has(c) && c.createdOffset === 0) {
        seen.add(c);
        c.templateId = i.str(c.templateId);
        c.packageId = i.str(c.packageId);
        c.packageName = i.str(c.packageName);
        c.argument = i.value(c.argument) ?? c.argument;
        c.signatories = i.arr(c.signatories);
        c.stakeholders = i.arr(c.stakeholders);
        c.synchronizerId = i.str(c.synchronizerId);
        if (c.createdAt === draft.effectiveAt) c.createdAt = draft.effectiveAt;
      }
      if (n.kind === 'exercise') {
        n.choice = i.str(n.choice);
        if (n.interfaceId !== undefined) n.interfaceId = i.str(n.interfaceId);
        n.choiceArgument = i.value(n.choiceArgument) ?? n.choiceArgument;
        n.result = i.value(n.result);
        n.actingParties = i.arr(n.actingParties);
      }
    }
    // One literal with a fixed shape: V8 keeps it a compact in-object layout.
    return {
      kind: 'transaction',
      offset: 0,
      updateId: draft.updateId,
      commandId: draft.commandId,
      workflowId: i.str(draft.workflowId),
      userId: i.str(draft.userId),
      submissionId: draft.submissionId,
      actAs: i.arr(draft.actAs),
      effectiveAt: draft.effectiveAt,
      recordTime: draft.recordTime === draft.effectiveAt ? draft.effectiveAt : draft.recordTime,
      synchronizerId: i.str(draft.synchronizerId),
      nodes: draft.nodes,
      externalTransactionHash: draft.externalTransactionHash,
      traceparent: draft.traceparent,
      paidTrafficCost: draft.paidTrafficCost,
    };
  }

  /** Records a failed completion (the command was accepted for processing, then rejected). */
  reject(
    c: { commandId: string; userId: string; submissionId: string; actAs: string[]; synchronizerId: string },
    status: { code: number; message: string },
  ): void {
    this.log.append({
      kind: 'rejection',
      offset: 0,
      updateId: '',
      commandId: c.commandId,
      userId: this.interner.str(c.userId),
      submissionId: c.submissionId,
      actAs: this.interner.arr(c.actAs),
      recordTime: isoFromMicros(this.nowMicros()),
      synchronizerId: this.interner.str(c.synchronizerId),
      status,
    });
  }

  isActive(contractId: string): boolean {
    const c = this.contracts.get(contractId);
    return c !== undefined && c.archivedOffset === undefined && c.unassigned === undefined;
  }

  /**
   * Unassigns an active contract from its synchronizer towards `target` (the first half of a reassignment):
   * it is then usable nowhere until assigned. Returns the Reassignment update.
   */
  unassign(contractId: string, target: string, submitter: string): ReassignmentUpdate {
    const c = this.contracts.get(contractId);
    if (!c || !this.isActive(contractId)) throw err.inactiveContracts([contractId]);
    if (!this.synchronizers.some((s) => s.id === target))
      throw err.invalidArgument(`Unknown target synchronizer ${target.slice(0, 80)}`);
    if (target === c.synchronizerId)
      throw err.invalidArgument(`Contract ${contractId} is already assigned to ${target}`);
    const reassignmentId = this.newUpdateId();
    c.unassigned = { reassignmentId, target };
    this.inTransit.set(reassignmentId, c);
    return this.appendReassignment(c, 'unassigned', c.synchronizerId, target, reassignmentId, submitter);
  }

  /** Assigns an unassigned contract to the target its unassignment named (the second half). */
  assign(reassignmentId: string, submitter: string): ReassignmentUpdate {
    const c = this.inTransit.get(reassignmentId);
    if (!c?.unassigned)
      throw err.invalidArgument(`No unassigned contract for reassignment ${reassignmentId.slice(0, 80)}`);
    this.inTransit.delete(reassignmentId);
    const source = c.synchronizerId;
    const { target } = c.unassigned;
    c.synchronizerId = target;
    c.reassignmentCounter += 1;
    c.unassigned = undefined;
    return this.appendReassignment(c, 'assigned', source, target, reassignmentId, submitter);
  }

  private appendReassignment(
    contract: Contract,
    event: ReassignmentUpdate['event'],
    source: string,
    target: string,
    reassignmentId: string,
    submitter: string,
  ): ReassignmentUpdate {
    return this.log.append({
      kind: 'reassignment',
      offset: 0,
      updateId: this.newUpdateId(),
      synchronizerId: event === 'unassigned' ? source : target,
      recordTime: isoFromMicros(this.nowMicros()),
      event,
      contract,
      source,
      target,
      reassignmentId,
      submitter,
      // The counter the contract has on the synchronizer it is leaving or reaching.
      reassignmentCounter: contract.reassignmentCounter,
    });
  }

  /**
   * Changes how `participantId` hosts a party on a synchronizer: a new permission (added, or changed when it
   * hosted the party already), or none (revoked). Publishes the topology event.
   */
  changeHosting(
    partyId: string,
    synchronizerId: string,
    participantId: string,
    permission: ParticipantPermission | undefined,
  ): TopologyUpdate {
    const party = this.parties.get(partyId);
    if (!party) throw err.partyNotFound(partyId);
    if (!this.synchronizers.some((s) => s.id === synchronizerId))
      throw err.invalidArgument(`Unknown synchronizer ${synchronizerId.slice(0, 80)}`);
    const key = hostingKey(synchronizerId, participantId);
    const hosted = party.hosting.has(key);
    if (permission === undefined) {
      if (!hosted)
        throw err.invalidArgument(`${participantId} does not host ${partyId} on ${synchronizerId}`);
      party.hosting.delete(key);
      return this.appendTopology(synchronizerId, [{ partyId, participantId, change: 'revoked' }]);
    }
    party.hosting.set(key, permission);
    return this.appendTopology(synchronizerId, [
      { partyId, participantId, permission, ...(hosted ? { change: 'changed' as const } : {}) },
    ]);
  }

  /**
   * Prunes the ledger up to `offset` (inclusive): updates, contracts archived by then, the commit counters of
   * the pruned transactions, the interner's tables, and the deduplication entries of changes last accepted by then
   * (CommandDeduplicationStore.prune) once they are older than the longest deduplication period. The
   * participant refuses to prune within that period (FirstUnsafeOffsetComputation); the sandbox prunes any
   * offset, so it keeps younger entries, whose periods still need them.
   */
  prune(offset: number): void {
    const last = this.log.at(offset)?.recordTime;
    if (last !== undefined) this.prunedPublicationMicros = BigInt(Date.parse(last)) * 1000n + 999n;
    for (const r of this.log.prune(offset)) {
      if (r.kind !== 'transaction') continue;
      const n = (this.commits.get(r.commandId) ?? 0) - 1;
      if (n > 0) this.commits.set(r.commandId, n);
      else this.commits.delete(r.commandId);
    }
    for (const [cid, c] of this.contracts) {
      if (c.archivedOffset !== undefined && c.archivedOffset <= offset) this.contracts.delete(cid);
    }
    const oldest = this.nowMicros() - BigInt(this.maxDeduplicationSeconds) * 1_000_000n;
    for (const [key, e] of this.dedup) {
      if (e.completionOffset <= offset && e.recordTimeMicros < oldest) this.dedup.delete(key);
    }
    this.interner.clear();
  }
}
