/**
 * The participant's Admin API topology subset over real gRPC (external-party-keys.md §2.3, §3.2, §4.2):
 * TopologyManagerReadService.ListPartyToParticipant and TopologyManagerWriteService.{AddTransactions, Authorize},
 * translated to and from the sandbox's topology store. Every other RPC of the two services answers UNIMPLEMENTED
 * (grpc-js's default for a method without a handler). Failures carry Canton's status description,
 * `CODE(category,correlation): cause`, with the status code of the error's category, as the node sends them.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import * as grpc from '@grpc/grpc-js';
import {
  type AddTransactionsRequest,
  type AddTransactionsResponse,
  type AuthorizeRequest,
  type AuthorizeResponse,
  decodeVersionedTopologyTransaction,
  Enums_TopologyChangeOp,
  forceFlagName,
  type ITopologyManagerReadService,
  type ITopologyManagerWriteService,
  type ListPartyToParticipantRequest,
  type ListPartyToParticipantResponse,
  type ListPartyToParticipantResponse_Result,
  nameOf,
  SIGNATURE_FORMATS,
  SIGNING_ALGORITHM_SPECS,
  type Signature,
  type StoreId,
  synchronizerOf,
  Timestamp,
  topologyManagerReadServiceDefinition,
  topologyManagerWriteServiceDefinition,
} from '@quill/canton/admin/wire';
import { logicalSynchronizerId } from '@quill/canton/transaction';
import { SandboxError } from '../errors.ts';
import type { StoredTopologyTransaction, TopologySignature, TopologyStore } from '../topology/store.ts';

/** What this server needs of the topology store (`state.topology`). */
export type TopologyStoreApi = Pick<
  TopologyStore,
  'listPartyToParticipant' | 'addTransactions' | 'authorize'
>;

export interface AdminApiOptions {
  /** 0 or absent: an ephemeral port. */
  port?: number;
  /** The participant this node is (it adds its approval on Authorize). */
  participantId: string;
  /** When set, calls without `authorization: Bearer <token>` are refused with UNAUTHENTICATED. */
  token?: string;
}

export interface AdminApiServer {
  /** `127.0.0.1:<port>`, what TopologyAdminClient takes. */
  url: string;
  close(): Promise<void>;
}

/** A failure with a gRPC status; `details` is the status description the client sees. */
class StatusError extends Error {
  constructor(
    readonly status: grpc.status,
    readonly details: string,
  ) {
    super(details);
  }
}

const correlation = (): string => randomBytes(4).toString('hex');

/** Canton's description of an error: `CODE(category,correlation): cause` (BaseError.toString). */
function cantonStatus(status: grpc.status, code: string, category: number, cause: string): StatusError {
  return new StatusError(status, `${code}(${category},${correlation()}): ${cause}`);
}

/** ProtoDeserializationFailure (category 8, INVALID_ARGUMENT): what the node answers a malformed request with. */
function malformed(cause: string): StatusError {
  return cantonStatus(
    grpc.status.INVALID_ARGUMENT,
    'PROTO_DESERIALIZATION_FAILURE',
    8,
    `Deserialization of protobuf message failed: ${cause}`,
  );
}

// ErrorCategory → gRPC code (ErrorCategory.scala), for the error's own category.
const CATEGORY_STATUS: Record<number, grpc.status> = {
  1: grpc.status.UNAVAILABLE,
  2: grpc.status.ABORTED,
  3: grpc.status.DEADLINE_EXCEEDED,
  4: grpc.status.INTERNAL,
  5: grpc.status.INVALID_ARGUMENT,
  6: grpc.status.UNAUTHENTICATED,
  7: grpc.status.PERMISSION_DENIED,
  8: grpc.status.INVALID_ARGUMENT,
  9: grpc.status.FAILED_PRECONDITION,
  10: grpc.status.ALREADY_EXISTS,
  11: grpc.status.NOT_FOUND,
  12: grpc.status.UNAVAILABLE,
  13: grpc.status.UNKNOWN,
  14: grpc.status.UNIMPLEMENTED,
};

/** A store failure as the node's status; anything that is not a SandboxError is an INTERNAL without details. */
function toStatus(err: unknown): StatusError {
  if (err instanceof StatusError) return err;
  if (err instanceof SandboxError) {
    // Topology errors of the legacy shape (category -1) reach gRPC as INVALID_ARGUMENT, except a missing transaction.
    const status =
      CATEGORY_STATUS[err.category] ??
      (err.code.endsWith('_NOT_FOUND') ? grpc.status.NOT_FOUND : grpc.status.INVALID_ARGUMENT);
    return new StatusError(
      status,
      `${err.code}(${err.category},${err.correlationId ?? correlation()}): ${err.cause_}`,
    );
  }
  return cantonStatus(
    grpc.status.INTERNAL,
    'INTERNAL_ERROR',
    4,
    'An internal error occurred in the topology store',
  );
}

/** The decoder's bytes are views into the request's Buffer: the store gets plain copies of its own. */
const plain = (b: Uint8Array): Uint8Array => new Uint8Array(b);

function toTopologySignature(s: Signature, where: string): TopologySignature {
  const format = nameOf(SIGNATURE_FORMATS, s.format);
  const spec = nameOf(SIGNING_ALGORITHM_SPECS, s.signingAlgorithmSpec);
  if (format === undefined) throw malformed(`${where}: unsupported signature format ${s.format}`);
  if (spec === undefined)
    throw malformed(`${where}: unsupported signing algorithm spec ${s.signingAlgorithmSpec}`);
  if (!s.signedBy) throw malformed(`${where}: signed_by is empty`);
  return { signedBy: s.signedBy, format, signature: plain(s.signature), signingAlgorithmSpec: spec };
}

/** The store's synchronizer for a request's store id: the logical id (the store keys on it). */
function requireSynchronizer(store: StoreId | undefined): string {
  const id = synchronizerOf(store);
  if (id === undefined) {
    // The sandbox has synchronizer stores only (no authorized or temporary store).
    throw cantonStatus(
      grpc.status.INVALID_ARGUMENT,
      'INVALID_ARGUMENT',
      8,
      'The submitted request has invalid arguments: store must be a synchronizer store',
    );
  }
  return logicalSynchronizerId(id);
}

function isoTimestamp(iso: string): Timestamp | undefined {
  const ms = Date.parse(iso);
  return Number.isNaN(ms) ? undefined : Timestamp.fromDate(new Date(ms));
}

/** One stored P2P as a ListPartyToParticipant result; undefined when its bytes hold another mapping. */
function toResult(
  tx: StoredTopologyTransaction,
  store: StoreId | undefined,
): ListPartyToParticipantResponse_Result | undefined {
  const decoded = decodeVersionedTopologyTransaction(tx.transaction);
  if (decoded.mapping?.mapping.oneofKind !== 'partyToParticipant') return undefined;
  const validFrom = isoTimestamp(tx.validFrom);
  return {
    context: {
      ...(store ? { store } : {}),
      ...(validFrom ? { validFrom, sequenced: validFrom } : {}),
      operation:
        tx.operation === 'remove' ? Enums_TopologyChangeOp.REMOVE : Enums_TopologyChangeOp.ADD_REPLACE,
      transactionHash: Buffer.from(tx.hashHex, 'hex'),
      serial: tx.serial,
      signedByFingerprints: [...tx.signedBy],
    },
    item: decoded.mapping.mapping.partyToParticipant,
  };
}

export async function startAdminApi(store: TopologyStoreApi, opts: AdminApiOptions): Promise<AdminApiServer> {
  const { participantId } = opts;
  const expected = opts.token === undefined ? undefined : Buffer.from(`Bearer ${opts.token}`);

  function authenticate(metadata: grpc.Metadata): void {
    if (expected === undefined) return;
    const given = metadata.get('authorization')[0];
    const got = Buffer.from(typeof given === 'string' ? given : '');
    if (got.length !== expected.length || !timingSafeEqual(got, expected)) {
      // The node's authorizer: no details about the token.
      throw new StatusError(
        grpc.status.UNAUTHENTICATED,
        'An error occurred. Please contact the operator and inquire about the request',
      );
    }
  }

  /** A unary handler: authenticate, run, answer the result or the failure's status. */
  function unary<Req, Res>(run: (req: Req) => Res): grpc.handleUnaryCall<Req, Res> {
    return (call, callback) => {
      try {
        authenticate(call.metadata);
        callback(null, run(call.request));
      } catch (e) {
        const s = toStatus(e);
        callback({ code: s.status, details: s.details });
      }
    };
  }

  const read: Partial<ITopologyManagerReadService> = {
    listPartyToParticipant: unary<ListPartyToParticipantRequest, ListPartyToParticipantResponse>((req) => {
      const base = req.baseQuery;
      const kind = base?.store?.store.oneofKind;
      if (kind === 'temporary') throw malformed('the sandbox has no temporary stores');
      const synchronizer = synchronizerOf(base?.store);
      // The sandbox keeps head state only: snapshot and range queries are answered with it.
      const stored = store.listPartyToParticipant({
        filterParty: req.filterParty,
        proposals: base?.proposals ?? false,
        ...(synchronizer === undefined ? {} : { synchronizerId: logicalSynchronizerId(synchronizer) }),
      });
      const results: ListPartyToParticipantResponse_Result[] = [];
      for (const tx of stored) {
        const r = toResult(tx, base?.store);
        if (r === undefined) continue;
        if (base?.operation && r.context?.operation !== base.operation) continue;
        // As the node: a substring of the participant id's proto form, `PAR::<uid>`.
        const participant = req.filterParticipant;
        if (
          participant &&
          !r.item?.participants.some((p) => `PAR::${p.participantUid}`.includes(participant))
        )
          continue;
        results.push(r);
      }
      return { results };
    }),
  };

  const write: Partial<ITopologyManagerWriteService> = {
    addTransactions: unary<AddTransactionsRequest, AddTransactionsResponse>((req) => {
      const synchronizerId = requireSynchronizer(req.store);
      if (req.transactions.length === 0) throw malformed('transactions is empty');
      const txs = req.transactions.map((t, i) => ({
        transaction: plain(t.transaction),
        signatures: t.signatures.map((s, j) => toTopologySignature(s, `transactions[${i}].signatures[${j}]`)),
        multiTransactionSignatures: t.multiTransactionSignatures.map((m, j) => ({
          transactionHashes: m.transactionHashes.map(plain),
          signatures: m.signatures.map((s, k) =>
            toTopologySignature(s, `transactions[${i}].multi_transaction_signatures[${j}].signatures[${k}]`),
          ),
        })),
        proposal: t.proposal,
      }));
      const forceChanges = req.forceChanges.map((f) => {
        const name = forceFlagName(f);
        if (name === undefined) throw malformed(`unknown force flag ${f}`);
        return name;
      });
      // The store applies synchronously: the transactions are effective on return, so wait_to_become_effective needs no wait.
      store.addTransactions(txs, {
        synchronizerId,
        participantId,
        ...(forceChanges.length > 0 ? { forceChanges } : {}),
      });
      return {};
    }),
    authorize: unary<AuthorizeRequest, AuthorizeResponse>((req) => {
      if (req.type.oneofKind !== 'transactionHash') {
        throw cantonStatus(
          grpc.status.UNIMPLEMENTED,
          'UNSUPPORTED_OPERATION',
          14,
          'The sandbox authorizes existing proposals by hash only',
        );
      }
      const hash = req.type.transactionHash;
      if (!/^(?:[0-9a-fA-F]{2})+$/.test(hash)) throw malformed('transaction_hash is not hex');
      const synchronizerId = requireSynchronizer(req.store);
      const tx = store.authorize(hash.toLowerCase(), { participantId, synchronizerId });
      // The store keeps signer fingerprints, not the signatures: the echoed transaction carries none.
      return {
        transaction: {
          transaction: tx.transaction,
          signatures: [],
          proposal: tx.proposal,
          multiTransactionSignatures: [],
        },
      };
    }),
  };

  const server = new grpc.Server();
  server.addService(topologyManagerReadServiceDefinition, read as ITopologyManagerReadService);
  server.addService(topologyManagerWriteServiceDefinition, write as ITopologyManagerWriteService);
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync(`127.0.0.1:${opts.port ?? 0}`, grpc.ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    );
  });
  return {
    url: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        // Graceful first; calls still open after a second are cut.
        const timer = setTimeout(() => server.forceShutdown(), 1000);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}
