/**
 * The sandbox participant's whole state: identities, parties, users, packages, active contracts, the update
 * log, command deduplication, the activity feed and commit counters. Mutations happen synchronously (one
 * event-loop turn), which is what makes each commit atomic.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { RegisteredKey } from '../keys.ts';
import { isoFromMicros } from '../lfjson.ts';
import { UpdateLog } from './log.ts';
import { PackageStore } from './packages.ts';
import type {
  ActivityRecord,
  CommittedNode,
  Contract,
  PartyRecord,
  Synchronizer,
  TopologyEventRecord,
  TopologyUpdate,
  TransactionUpdate,
} from './types.ts';
import { UserStore } from './users.ts';

export interface SandboxStateOptions {
  /** Namespace-qualified id of this participant (default `sandbox::1220…`). */
  participantId?: string;
  otherParticipants?: string[];
  synchronizers?: Synchronizer[];
  /** Longest deduplication period the participant accepts (default 7 days). */
  maxDeduplicationSeconds?: number;
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
export function qualifiedId(name: string): string {
  return `${name}::1220${hash64(`quill-sandbox-namespace:${name}`)}`;
}

export class SandboxState {
  readonly participantId: string;
  readonly otherParticipants: string[];
  readonly synchronizers: Synchronizer[];
  readonly maxDeduplicationSeconds: number;
  readonly log = new UpdateLog();
  readonly users = new UserStore();
  readonly packages: PackageStore;
  readonly parties = new Map<string, PartyRecord>();
  readonly contracts = new Map<string, Contract>();
  readonly activities: ActivityRecord[] = [];
  private readonly activityIndex = new Map<string, number>();
  readonly dedup = new Map<string, DedupEntry>();
  readonly inFlight = new Map<string, string>();
  /** How many times each command id was committed (exactly-once tests read this). */
  readonly commits = new Map<string, number>();
  /** The coin rules contract and its operator (set by bootstrapCoin). */
  coinRules?: string;
  operator?: string;
  /** Added to the wall clock (tests move time forward to pass max record times). */
  clockOffsetMs = 0;
  private lastMicros = 0n;
  private readonly startedAt = Date.now();

  constructor(opts: SandboxStateOptions = {}) {
    this.participantId = opts.participantId ?? qualifiedId('sandbox-participant');
    this.otherParticipants = opts.otherParticipants ?? [];
    this.synchronizers = opts.synchronizers ?? [{ alias: 'global', id: qualifiedId('global-domain') }];
    this.maxDeduplicationSeconds = opts.maxDeduplicationSeconds ?? 7 * 24 * 3600;
    this.packages = new PackageStore(opts.maxVettingPageSize ?? 100);
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

  newUpdateId(): string {
    return `1220${randomBytes(32).toString('hex')}`;
  }

  newContractId(): string {
    return `00${randomBytes(32).toString('hex')}`;
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
      identityProviderId: '',
      annotations: {},
    };
    this.parties.set(partyId, party);
    this.appendTopology(synchronizerId, [
      { partyId, participantId: this.participantId, permission: 'PARTICIPANT_PERMISSION_SUBMISSION' },
    ]);
    return party;
  }

  /** Registers an onboarded external party (its key signs; this participant confirms). */
  registerExternalParty(
    partyId: string,
    key: RegisteredKey,
    synchronizerId: string,
    hosting: TopologyEventRecord[],
  ): PartyRecord {
    let party = this.parties.get(partyId);
    if (!party) {
      party = {
        partyId,
        isLocal: false,
        keys: new Map(),
        synchronizers: new Set(),
        identityProviderId: '',
        annotations: {},
      };
      this.parties.set(partyId, party);
    }
    party.keys.set(key.fingerprint, key);
    party.synchronizers.add(synchronizerId);
    this.appendTopology(synchronizerId, hosting);
    return party;
  }

  private appendTopology(synchronizerId: string, events: TopologyEventRecord[]): TopologyUpdate {
    return this.log.append({
      kind: 'topology',
      updateId: this.newUpdateId(),
      synchronizerId,
      recordTime: isoFromMicros(this.nowMicros()),
      events,
    });
  }

  /**
   * Commits a transaction atomically: appends the update, activates created contracts, archives consumed
   * ones, records deduplication and activities. Callers have validated everything before.
   */
  commit(
    draft: Omit<TransactionUpdate, 'offset' | 'kind' | 'nodes'> & { nodes: CommittedNode[] },
    changeKey: string | undefined,
    activities: (offset: number) => ActivityRecord[],
  ): TransactionUpdate {
    const record = this.log.append({ kind: 'transaction', ...draft });
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
    for (const a of activities(record.offset)) {
      this.activityIndex.set(a.eventId, this.activities.length);
      this.activities.push(a);
    }
    return record;
  }

  isActive(contractId: string): boolean {
    const c = this.contracts.get(contractId);
    return c !== undefined && c.archivedOffset === undefined;
  }

  activityPosition(eventId: string): number | undefined {
    return this.activityIndex.get(eventId);
  }

  /** Prunes the ledger up to `offset` (inclusive): updates and archived contracts are gone. */
  prune(offset: number): void {
    this.log.prune(offset);
    for (const [cid, c] of this.contracts) {
      if (c.archivedOffset !== undefined && c.archivedOffset <= offset) this.contracts.delete(cid);
    }
  }
}
