/**
 * Quill's client for the participant's Admin API topology services (gRPC, not JSON): read a party's
 * PartyToParticipant, add signed topology transactions, authorize a proposal by hash (external-party-keys.md
 * §2.3, §3.2). Every failure is an `AdminApiError` carrying the gRPC status name and, when the node says so,
 * the Canton error code. Messages never carry request content (signatures, keys, transaction bytes).
 */
import * as grpc from '@grpc/grpc-js';
import { QuillError } from '../errors.ts';
import {
  type AddTransactionsRequest,
  type AuthorizeRequest,
  Duration,
  decodeVersionedTopologyTransaction,
  Enums_TopologyChangeOp,
  encodeVersionedTopologyTransaction,
  forceFlagOf,
  type ListPartyToParticipantRequest,
  type ListPartyToParticipantResponse,
  SIGNATURE_FORMATS,
  SIGNING_ALGORITHM_SPECS,
  type Signature,
  type SignatureFormatName,
  type SignedTopologyTransaction,
  type SigningAlgorithmSpecName,
  synchronizerStore,
  type Timestamp,
  TopologyManagerReadServiceClient,
  TopologyManagerWriteServiceClient,
} from './wire.ts';

export interface AdminSignature {
  signedBy: string;
  format: SignatureFormatName;
  signature: Uint8Array;
  signingAlgorithmSpec: SigningAlgorithmSpecName;
}

export interface PartyToParticipantState {
  serial: number;
  /**
   * The versioned transaction bytes (`UntypedVersionedMessage{data: TopologyTransaction, version: 30}`),
   * RE-SERIALIZED here: ListPartyToParticipant returns only the mapping and its context, never the bytes the
   * node hashed. Protobuf-ts writes fields in number order as Canton does, so the bytes usually hash to
   * `transactionHash`, but only `transactionHash` (the node's) is authoritative.
   */
  transaction: Uint8Array;
  /** Hex of the node's 34-byte transaction hash (`BaseResult.transaction_hash`). */
  transactionHash: string;
  /** Whether it is a proposal: echoes the query, since BaseResult has no proposal flag. */
  proposal: boolean;
  /** ISO-8601 `BaseResult.valid_from`. */
  validFrom?: string;
  partyId: string;
}

export interface AdminClientOptions {
  /** `host:port`, `grpc://host:port` or `grpcs://host:port` (TLS with the system roots unless `tlsCaPem`). */
  url: string;
  /** Sent as `authorization: Bearer …` metadata on every call. */
  token?: string;
  /** TLS with this CA when given; otherwise plaintext (unless the url says grpcs). */
  tlsCaPem?: Uint8Array;
  /** Per-call deadline; default 10 s. */
  deadlineMs?: number;
}

export class AdminApiError extends QuillError {
  override readonly name = 'AdminApiError';
  /** The Canton error id (`TOPOLOGY_SERIAL_MISMATCH`) when the status message has Canton's `CODE(cat,corr): cause` shape. */
  readonly cantonCode?: string;
  /** `code` is the gRPC status name: INVALID_ARGUMENT, UNAVAILABLE, UNAUTHENTICATED, DEADLINE_EXCEEDED, … */
  constructor(code: string, message: string, options?: { cantonCode?: string; cause?: unknown }) {
    super(code, message, options);
    if (options?.cantonCode !== undefined) this.cantonCode = options.cantonCode;
  }
}

const DEFAULT_DEADLINE_MS = 10_000;
// Canton's status description: `TOPOLOGY_SERIAL_MISMATCH(9,1a2b3c4d): The provided serial …`.
const CANTON_MESSAGE = /^([A-Z][A-Z0-9_]*)\((-?\d+),([^)]*)\): ?([\s\S]*)$/;
// Long hex/base64 runs in a node's message could be signatures or key material: redact them. Fingerprints and
// hashes (68 hex) stay; an Ed25519 signature is 88 base64 or 128 hex characters.
const LONG_BLOB = /[A-Za-z0-9+/=_-]{72,}/g;
const MAX_DETAIL = 500;
const HEX = /^(?:[0-9a-fA-F]{2})+$/;

function invalid(message: string): AdminApiError {
  return new AdminApiError('INVALID_ARGUMENT', message);
}

function statusName(code: number): string {
  const name = (grpc.status as unknown as Record<number, unknown>)[code];
  return typeof name === 'string' ? name : 'UNKNOWN';
}

/** A grpc-js error as an AdminApiError, the node's message kept (trimmed, blobs redacted), its Canton code parsed. */
function fromServiceError(method: string, err: grpc.ServiceError): AdminApiError {
  const code = statusName(err.code);
  const details = (err.details ?? '').replace(LONG_BLOB, '<redacted>').slice(0, MAX_DETAIL);
  const canton = CANTON_MESSAGE.exec(details);
  return new AdminApiError(code, `${method} failed: ${code}${details ? `: ${details}` : ''}`, {
    ...(canton ? { cantonCode: canton[1] as string } : {}),
  });
}

function checkSynchronizer(synchronizerId: unknown): string {
  if (typeof synchronizerId !== 'string' || !synchronizerId.includes('::')) {
    throw invalid('synchronizerId must be a synchronizer id (<identifier>::<namespace>)');
  }
  return synchronizerId;
}

function toSignature(s: AdminSignature, where: string): Signature {
  if (s === null || typeof s !== 'object') throw invalid(`${where}: a signature must be an object`);
  if (typeof s.signedBy !== 'string' || !HEX.test(s.signedBy)) {
    throw invalid(`${where}: signedBy must be a key fingerprint (hex)`);
  }
  const format = SIGNATURE_FORMATS[s.format];
  if (format === undefined) throw invalid(`${where}: unknown signature format`);
  const spec = SIGNING_ALGORITHM_SPECS[s.signingAlgorithmSpec];
  if (spec === undefined) throw invalid(`${where}: unknown signing algorithm spec`);
  if (!(s.signature instanceof Uint8Array) || s.signature.length === 0) {
    throw invalid(`${where}: signature must be non-empty bytes`);
  }
  return { format, signature: s.signature, signedBy: s.signedBy.toLowerCase(), signingAlgorithmSpec: spec };
}

function timestampIso(t: Timestamp | undefined): string | undefined {
  if (t === undefined) return undefined;
  return new Date(Number(t.seconds) * 1000 + Math.floor(t.nanos / 1e6)).toISOString();
}

function address(url: string, tls: boolean): { target: string; tls: boolean } {
  const m = /^(?:(grpcs?):\/\/)?([^/\s]+?)\/?$/.exec(url ?? '');
  if (!m || !/^(\[[0-9a-fA-F:]+\]|[A-Za-z0-9.-]+):\d{1,5}$/.test(m[2] as string)) {
    throw invalid('url must be host:port, grpc://host:port or grpcs://host:port');
  }
  return { target: m[2] as string, tls: tls || m[1] === 'grpcs' };
}

export class TopologyAdminClient {
  readonly #read: TopologyManagerReadServiceClient;
  readonly #write: TopologyManagerWriteServiceClient;
  readonly #token: string | undefined;
  readonly #deadlineMs: number;

  constructor(opts: AdminClientOptions) {
    const { target, tls } = address(opts.url, opts.tlsCaPem !== undefined);
    if (
      opts.token !== undefined &&
      (typeof opts.token !== 'string' || /[\r\n]/.test(opts.token) || !opts.token)
    ) {
      throw invalid('token must be a non-empty single-line string');
    }
    const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    if (!Number.isFinite(deadlineMs) || deadlineMs <= 0)
      throw invalid('deadlineMs must be a positive number');
    const credentials = tls
      ? grpc.credentials.createSsl(opts.tlsCaPem ? Buffer.from(opts.tlsCaPem) : null)
      : grpc.credentials.createInsecure();
    // One channel for both services; grpc-js shares it when the options are the same.
    this.#read = new TopologyManagerReadServiceClient(target, credentials);
    this.#write = new TopologyManagerWriteServiceClient(target, credentials);
    this.#token = opts.token;
    this.#deadlineMs = deadlineMs;
  }

  async listPartyToParticipant(q: {
    party: string;
    synchronizerId: string;
    proposals?: boolean;
  }): Promise<PartyToParticipantState[]> {
    if (typeof q?.party !== 'string' || !q.party.includes('::') || /\s/.test(q.party)) {
      throw invalid('party must be a party id (<hint>::<namespace>)');
    }
    const synchronizerId = checkSynchronizer(q.synchronizerId);
    const proposals = q.proposals ?? false;
    const request: ListPartyToParticipantRequest = {
      baseQuery: {
        store: synchronizerStore(synchronizerId),
        proposals,
        operation: Enums_TopologyChangeOp.UNSPECIFIED,
        timeQuery: { oneofKind: 'headState', headState: {} },
        filterSignedKey: '',
      },
      filterParty: q.party,
      filterParticipant: '',
    };
    const response = await this.#unary<ListPartyToParticipantResponse>(
      'ListPartyToParticipant',
      0,
      (md, opts, cb) => this.#read.listPartyToParticipant(request, md, opts, cb),
    );
    const out: PartyToParticipantState[] = [];
    for (const r of response.results) {
      // filter_party is a prefix match on the node: keep only this exact party.
      if (r.item?.party !== q.party || r.context === undefined) continue;
      const ctx = r.context;
      const validFrom = timestampIso(ctx.validFrom);
      out.push({
        serial: ctx.serial,
        transaction: encodeVersionedTopologyTransaction({
          operation: ctx.operation,
          serial: ctx.serial,
          mapping: { mapping: { oneofKind: 'partyToParticipant', partyToParticipant: r.item } },
        }),
        transactionHash: Buffer.from(ctx.transactionHash).toString('hex'),
        proposal: proposals,
        ...(validFrom === undefined ? {} : { validFrom }),
        partyId: r.item.party,
      });
    }
    return out;
  }

  async addTransactions(
    txs: { transaction: Uint8Array; signatures: AdminSignature[]; proposal?: boolean }[],
    opts: { synchronizerId: string; waitToBecomeEffectiveMs?: number; forceChanges?: string[] },
  ): Promise<void> {
    if (!Array.isArray(txs) || txs.length === 0)
      throw invalid('addTransactions needs at least one transaction');
    const synchronizerId = checkSynchronizer(opts?.synchronizerId);
    const transactions: SignedTopologyTransaction[] = txs.map((t, i) => {
      const where = `transactions[${i}]`;
      if (!(t?.transaction instanceof Uint8Array) || t.transaction.length === 0) {
        throw invalid(`${where}: transaction must be non-empty bytes`);
      }
      try {
        decodeVersionedTopologyTransaction(t.transaction);
      } catch {
        throw invalid(`${where}: transaction is not a versioned topology transaction`);
      }
      if (!Array.isArray(t.signatures) || t.signatures.length === 0) {
        throw invalid(`${where}: at least one signature is required`);
      }
      return {
        transaction: t.transaction,
        signatures: t.signatures.map((s, j) => toSignature(s, `${where}.signatures[${j}]`)),
        proposal: t.proposal ?? false,
        multiTransactionSignatures: [],
      };
    });
    const forceChanges = (opts.forceChanges ?? []).map((name) => {
      const flag = typeof name === 'string' ? forceFlagOf(name) : undefined;
      if (flag === undefined)
        throw invalid(`unknown force flag ${JSON.stringify(String(name)).slice(0, 80)}`);
      return flag;
    });
    const waitMs = opts.waitToBecomeEffectiveMs;
    if (waitMs !== undefined && (!Number.isFinite(waitMs) || waitMs < 0)) {
      throw invalid('waitToBecomeEffectiveMs must be a non-negative number');
    }
    const request: AddTransactionsRequest = {
      transactions,
      forceChanges,
      store: synchronizerStore(synchronizerId),
      ...(waitMs === undefined
        ? {}
        : {
            waitToBecomeEffective: Duration.create({
              seconds: BigInt(Math.floor(waitMs / 1000)),
              nanos: Math.round((waitMs % 1000) * 1e6),
            }),
          }),
    };
    // The node holds the call while it waits for the transaction to become effective: allow for that wait.
    await this.#unary('AddTransactions', waitMs ?? 0, (md, o, cb) =>
      this.#write.addTransactions(request, md, o, cb),
    );
  }

  async authorize(q: {
    transactionHash: string;
    synchronizerId: string;
    mustFullyAuthorize?: boolean;
  }): Promise<void> {
    if (typeof q?.transactionHash !== 'string' || !HEX.test(q.transactionHash)) {
      throw invalid('transactionHash must be hex');
    }
    const synchronizerId = checkSynchronizer(q.synchronizerId);
    const request: AuthorizeRequest = {
      type: { oneofKind: 'transactionHash', transactionHash: q.transactionHash.toLowerCase() },
      mustFullyAuthorize: q.mustFullyAuthorize ?? false,
      forceChanges: [],
      signedBy: [],
      store: synchronizerStore(synchronizerId),
    };
    await this.#unary('Authorize', 0, (md, o, cb) => this.#write.authorize(request, md, o, cb));
  }

  close(): void {
    this.#read.close();
    this.#write.close();
  }

  #unary<R>(
    method: string,
    extraMs: number,
    call: (
      md: grpc.Metadata,
      opts: grpc.CallOptions,
      cb: (err: grpc.ServiceError | null, value?: R) => void,
    ) => grpc.ClientUnaryCall,
  ): Promise<R> {
    const md = new grpc.Metadata();
    if (this.#token !== undefined) md.set('authorization', `Bearer ${this.#token}`);
    const deadline = new Date(Date.now() + this.#deadlineMs + extraMs);
    return new Promise<R>((resolve, reject) => {
      try {
        call(md, { deadline }, (err, value) => {
          if (err) reject(fromServiceError(method, err));
          else if (value === undefined)
            reject(new AdminApiError('INTERNAL', `${method} failed: empty response`));
          else resolve(value);
        });
      } catch (e) {
        // grpc-js throws synchronously on a closed channel.
        reject(
          new AdminApiError('FAILED_PRECONDITION', `${method} failed: the client is closed`, { cause: e }),
        );
      }
    });
  }
}
