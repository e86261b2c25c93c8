// What the accept step works with: the inspected transaction, its ports (inspection, party keys, signing, the
// policy in force), the caller's request and the step's dependencies.
import type {
  CostEstimation,
  DeduplicationPeriod,
  MinLedgerTime,
  Signature,
  TransactionFormat,
} from '@quill/canton/ledger';
import type { Log } from '../../log.ts';
import type { PolicyDocument, TransactionFacts, VelocityLookup } from '../../policy/index.ts';
import type { Durability } from '../../redis/index.ts';
import type { PipelineMetrics } from '../metrics.ts';
import type { HashingSchemeVersion, Intent, SubmissionRecord } from '../record.ts';
import type { SigningSet } from '../round.ts';
import type { SubmissionStore } from '../store/index.ts';

/** What the accept step needs to know about a prepared transaction (inspect.ts decodes and hashes it). */
export interface InspectedTransaction {
  hash: Uint8Array;
  actAs: string[];
  commandId: string;
  synchronizerId: string;
  maxRecordTime?: Date;
  /** Signed in every scheme; the ledger refuses the transaction once record time is this far past it. */
  preparationTime?: Date;
  /** What the transaction does, for the approval policy (computed on demand: it walks every node). */
  facts?: () => TransactionFacts;
}

/** The approval policy in force: the current document and the party's recent activity. */
export interface PolicyPort {
  current(): Promise<{ document: PolicyDocument; version: number | null } | undefined>;
  velocity?: VelocityLookup;
  /**
   * Runs `fn` as the only decide-and-store step of `party` in flight, across API processes: with a velocity
   * rule, what one request counts must include what the one before it stored.
   */
  serialize?<T>(party: string, fn: () => Promise<T>): Promise<T>;
}

/** Adapters over the codec, src/signing and src/parties (see src/server/adapters.ts). */
export interface AcceptPorts {
  /**
   * Throws (or rejects with) an error with `code` and a one-line `message` on bytes that are not a valid
   * PreparedTransaction; a `SubmissionRefused` (busy, too large to decode) passes through as it is.
   */
  inspect(
    preparedTransactionBase64: string,
    scheme: HashingSchemeVersion,
  ): InspectedTransaction | Promise<InspectedTransaction>;
  /** The key that controls the party, if this wallet holds it. */
  partyKey(party: string): Promise<string | undefined>;
  /**
   * The party's signing set (M of N keys, each held by Quill or an external holder). Absent, or undefined for a
   * party: its `partyKey`, threshold 1.
   */
  signingSet?(party: string): Promise<SigningSet | undefined>;
  /**
   * Signs the 32-byte hash and verifies the signature before returning it. A disabled or missing key is a
   * SubmissionRefused (KEY_DISABLED / UNKNOWN_KEY): the key's status is checked where it is used.
   */
  sign(fingerprint: string, hash: Uint8Array): Promise<Signature>;
  /** Of `names`, the package names the participant does not have; absent: not checked. */
  unknownPackageNames?(names: readonly string[]): Promise<string[]>;
}

export interface SubmissionRequest {
  preparedTransaction: string;
  hashingSchemeVersion: HashingSchemeVersion;
  preparedTransactionHash?: string | undefined;
  party?: string | undefined;
  deduplicationPeriod?: DeduplicationPeriod | undefined;
  userId?: string | undefined;
  minLedgerTime?: MinLedgerTime | undefined;
  transactionFormat?: TransactionFormat | undefined;
  /** The prepare response's traffic estimate, kept on the record: informative, not signed, not fingerprinted. */
  costEstimation?: CostEstimation | undefined;
}

export interface AcceptDeps {
  store: SubmissionStore;
  ports: AcceptPorts;
  enqueue: (record: SubmissionRecord) => Promise<void>;
  allowedSynchronizers: string[];
  defaultUserId: string;
  dedupMaxSeconds: number;
  /** The synchronizer's preparationTimeRecordTimeTolerance (Canton's default: 24 h). */
  preparationToleranceMs: number;
  metrics?: PipelineMetrics;
  /** The approval policy; none means every transaction that passes the checks is signed. */
  policy?: PolicyPort;
  /** One line per new submission, naming the key that signed it (the audit stream has every signature). */
  log?: Log;
  now?: () => number;
  /**
   * Replica acknowledgement (REDIS_MIN_REPLICAS_ACK). `mark()` before the store's writes names the connection
   * they travel on; `confirm(mark)` resolves once they reached enough replicas through that same connection and
   * server, and throws a StoreError UNAVAILABLE (503, retry with the same Idempotency-Key) when they did not or
   * when the connection was re-established in between (a failover: the writes may be on the lost master only).
   * Absent: no wait.
   */
  durable?: Durability;
}

/** What accept checks of a transaction Quill prepared itself from an intent (src/intents). */
export interface IntentCheck {
  intent: Intent;
  /** Binds an Idempotency-Key to the intent (a new prepare gives a new transaction for the same request). */
  fingerprint: string;
  /** Throws a SubmissionRefused (422 INTENT_MISMATCH, naming the difference) unless it does exactly that. */
  verify(facts: TransactionFacts): void;
  /** The expired record this intent is prepared again for. */
  reprepareOf?: string;
}

export interface AcceptResult {
  record: SubmissionRecord;
  /** False when an earlier identical request's record was returned. */
  created: boolean;
}
