/**
 * The participant's error answers (ledger-json-api.md §1.7): a `JsCantonError` body whose HTTP status follows
 * from the error category's gRPC code, with `context.category`, `definite_answer`, `tid` and `retryInfo`
 * filled as the real JSON API does. Body-decode failures are `400 text/plain` (tapir), built elsewhere.
 *
 * Nearly every error reaches the JSON layer through gRPC: `JsCantonError.fromDecodedCantonError` leaves the
 * body's `definiteAnswer` null (`DecodedCantonError` never sets it) and the value travels only as
 * `context.definite_answer` (`SerializableErrorCodeComponents`, set for every `DamlErrorWithDefiniteAnswer`
 * and `TransactionError`). Errors the JSON layer makes itself (`JsCantonError.fromErrorCode`: the 413 of a
 * list, LEDGER_API_INTERNAL_ERROR) carry it in the body.
 */
import { randomBytes } from 'node:crypto';
import { QuillError } from '@quill/canton/errors';
import type { JsCantonError, Violation } from '@quill/canton/ledger';

interface Category {
  grpc: number;
  status: number;
  retry?: string;
}

/** Category id → gRPC code and HTTP status (ErrorCategory.scala + GrpcHttpErrorCodes). */
const CATEGORIES: Record<number, Category> = {
  1: { grpc: 14, status: 503, retry: '1 second' },
  2: { grpc: 10, status: 409, retry: '1 second' },
  3: { grpc: 4, status: 504, retry: '1 second' },
  4: { grpc: 13, status: 500 },
  5: { grpc: 3, status: 400 },
  6: { grpc: 16, status: 401 },
  7: { grpc: 7, status: 403 },
  8: { grpc: 3, status: 400 },
  9: { grpc: 9, status: 400 },
  10: { grpc: 6, status: 409 },
  11: { grpc: 5, status: 404 },
  12: { grpc: 11, status: 400, retry: '1 second' },
  13: { grpc: 2, status: 500 },
  14: { grpc: 12, status: 501 },
};

/** The body is the ledger contract's `JsCantonError`, declared once in `src/ledger`. */
export type JsCantonErrorBody = JsCantonError;

export class SandboxError extends QuillError {
  override readonly name = 'SandboxError';
  /** The submission id for errors of a submission (the participant reports it as `correlationId`). */
  correlationId?: string;
  constructor(
    code: string,
    readonly category: number,
    readonly cause_: string,
    readonly context: Record<string, string> = {},
    readonly resources: [string, string][] = [],
    readonly definiteAnswer?: boolean,
    /** Only where the JSON layer answers with its own status (413 for oversized lists). */
    readonly statusOverride?: number,
    /** Made by the JSON layer itself (`JsCantonError.fromErrorCode`): the body carries `definiteAnswer`. */
    readonly jsonLayer = false,
  ) {
    super(code, `${code}(${category}): ${cause_}`);
  }

  /** gRPC status code of the category (for completions). */
  get grpcCode(): number {
    return CATEGORIES[this.category]?.grpc ?? 13;
  }

  get status(): number {
    return this.statusOverride ?? CATEGORIES[this.category]?.status ?? 500;
  }

  body(correlationId?: string): JsCantonErrorBody {
    const cat = CATEGORIES[this.category] ?? { grpc: 13, status: 500 };
    const tid = randomBytes(16).toString('hex');
    const context: Record<string, string> = { ...this.context, category: String(this.category), tid };
    if (this.definiteAnswer !== undefined) context.definite_answer = String(this.definiteAnswer);
    return {
      code: this.code,
      cause: this.cause_,
      correlationId: correlationId ?? this.correlationId ?? null,
      traceId: tid,
      context,
      resources: this.resources,
      errorCategory: this.category,
      grpcCodeValue: cat.grpc,
      retryInfo: cat.retry ?? null,
      definiteAnswer: this.jsonLayer ? (this.definiteAnswer ?? null) : null,
    };
  }
}

/**
 * A failure that leaves PartyOps as a plain gRPC `Status(code, description)` without ErrorInfo
 * (participant/sync/PartyAllocation.scala L100–108): the JSON API's Endpoints.handleError answers the legacy
 * JsCantonError, `code` = the description, `cause` = "<GRPC_CODE>: <description>", errorCategory -1
 * (external-party-keys.md §1.7.5, §4.4).
 */
export class LegacyStatusError extends SandboxError {
  constructor(
    readonly description: string,
    readonly grpc: number,
    status = 400,
  ) {
    super(description, -1, `${GRPC_NAMES[grpc] ?? 'UNKNOWN'}: ${description}`, {}, [], undefined, status);
  }

  /** The legacy error of a CantonError: its description is `CODE(category,correlation): cause`. */
  static of(e: SandboxError): LegacyStatusError {
    const corr = randomBytes(4).toString('hex');
    return new LegacyStatusError(`${e.code}(${e.category},${corr}): ${e.cause_}`, e.grpcCode, e.status);
  }

  override get grpcCode(): number {
    return this.grpc;
  }

  override body(correlationId?: string): JsCantonErrorBody {
    return {
      code: this.code,
      cause: this.cause_,
      correlationId: correlationId ?? this.correlationId ?? null,
      traceId: null,
      context: {},
      resources: [],
      errorCategory: -1,
      grpcCodeValue: this.grpc,
      retryInfo: null,
      definiteAnswer: null,
    };
  }
}

const GRPC_NAMES: Record<number, string> = {
  3: 'INVALID_ARGUMENT',
  5: 'NOT_FOUND',
  6: 'ALREADY_EXISTS',
  9: 'FAILED_PRECONDITION',
};

/** A request body the participant's decoder refuses: tapir answers 400 text/plain. */
export class BodyDecodeError extends Error {
  override readonly name = 'BodyDecodeError';
}

const ARGS = 'The submitted request has invalid arguments: ';

/** Scala's `ChangeId(userId, commandId, actAs)` as `BaseError.extractContext` prints it (`field.toString`). */
export function changeIdText(userId: string, commandId: string, actAs: readonly string[]): string {
  return `ChangeId(${userId},${commandId},Set(${actAs.join(', ')}))`;
}

/** java.time.Duration#toString (`PT192H`, `PT0.5S`), as the participant prints durations in error context. */
export function javaDuration(micros: bigint): string {
  if (micros === 0n) return 'PT0S';
  const neg = micros < 0n;
  let rest = neg ? -micros : micros;
  const hours = rest / 3_600_000_000n;
  rest %= 3_600_000_000n;
  const minutes = rest / 60_000_000n;
  rest %= 60_000_000n;
  const seconds = rest / 1_000_000n;
  const frac = rest % 1_000_000n;
  const sign = neg ? '-' : '';
  let out = 'PT';
  if (hours > 0n) out += `${sign}${hours}H`;
  if (minutes > 0n) out += `${sign}${minutes}M`;
  if (seconds > 0n || frac > 0n) {
    const f = frac > 0n ? `.${frac.toString().padStart(6, '0').replace(/0+$/, '')}` : '';
    out += `${sign}${seconds}${f}S`;
  }
  return out;
}

export const err = {
  // RequestValidationErrors.*.Reject are DamlErrorWithDefiniteAnswer: context.definite_answer "false".
  invalidArgument: (why: string) => new SandboxError('INVALID_ARGUMENT', 8, `${ARGS}${why}`, {}, [], false),
  invalidField: (field: string, why: string) =>
    new SandboxError(
      'INVALID_FIELD',
      8,
      `The submitted command has a field with invalid value: Invalid field ${field}: ${why}`,
      {},
      [],
      false,
    ),
  /** RequestValidationErrors.MissingField.Reject: `extraContext = Map("field_name" -> missingField)`. */
  missingField: (field: string) =>
    new SandboxError(
      'MISSING_FIELD',
      8,
      `The submitted command is missing a mandatory field: ${field}`,
      { field_name: field },
      [],
      false,
    ),
  negativeOffset: (
    field: string,
    offset: number,
    message = 'the offset has to be either a positive integer or zero',
  ) =>
    new SandboxError('NEGATIVE_OFFSET', 8, `Offset ${offset} in ${field} is a negative integer: ${message}`),
  nonPositiveOffset: (field: string, offset: number) =>
    new SandboxError(
      'NON_POSITIVE_OFFSET',
      8,
      `Offset ${offset} in ${field} is not a positive integer: the offset has to be a positive integer (>0)`,
    ),
  offsetAfterLedgerEnd: (which: 'Begin' | 'End', offset: number, end: number) =>
    new SandboxError(
      'OFFSET_AFTER_LEDGER_END',
      12,
      `${which} offset (${offset}) is after ledger end (${end})`,
      {},
      [],
      false,
    ),
  offsetOutOfRange: (why: string) => new SandboxError('OFFSET_OUT_OF_RANGE', 9, why, {}, [], false),
  pruned: (cause: string, pruned: number) =>
    new SandboxError(
      'PARTICIPANT_PRUNED_DATA_ACCESSED',
      9,
      cause,
      { earliest_offset: String(pruned) },
      [],
      false,
    ),
  updateNotFound: (resource: 'UPDATE_ID' | 'OFFSET', value: string) =>
    new SandboxError(
      'UPDATE_NOT_FOUND',
      11,
      'Update not found, or not visible.',
      {},
      [[resource, value]],
      false,
    ),
  userNotFound: (userId: string) =>
    new SandboxError(
      'USER_NOT_FOUND',
      11,
      `getting user failed for unknown user "${userId}"`,
      {},
      [['USER', userId]],
      false,
    ),
  userExists: (userId: string) =>
    new SandboxError(
      'USER_ALREADY_EXISTS',
      10,
      `creating user failed, as user "${userId}" already exists`,
      {},
      [['USER', userId]],
      false,
    ),
  concurrentUserUpdate: (userId: string) =>
    new SandboxError(
      'CONCURRENT_USER_UPDATE_DETECTED',
      2,
      `Update operation for user id '${userId}' failed due to a concurrent update to the same user`,
      {},
      [['USER', userId]],
    ),
  invalidUserUpdateRequest: (userId: string, reason: string) =>
    new SandboxError(
      'INVALID_USER_UPDATE_REQUEST',
      8,
      `Update operation for user id '${userId}' failed due to: ${reason}`,
      {},
      [['USER', userId]],
    ),
  unauthenticated: (why: string) =>
    new SandboxError('UNAUTHENTICATED', 6, 'The command is missing a (valid) JWT token', {
      ledger_api_error: why,
    }),
  permissionDenied: (why: string) =>
    new SandboxError(
      'PERMISSION_DENIED',
      7,
      `The provided authorization token is not sufficient to authorize the intended command: ${why}`,
    ),
  /** CommandExecutionErrors.InteractiveSubmissionPreparationError.Reject (DamlErrorWithDefiniteAnswer, false). */
  prepareFailed: (why: string) =>
    new SandboxError(
      'FAILED_TO_PREPARE_TRANSACTION',
      8,
      `The participant failed to prepare the transaction: ${why}`,
      {},
      [],
      false,
    ),
  /** CommandExecutionErrors.InteractiveSubmissionExecuteError.Reject (DamlErrorWithDefiniteAnswer, false). */
  executeFailed: (why: string) =>
    new SandboxError(
      'FAILED_TO_EXECUTE_TRANSACTION',
      8,
      `The participant failed to execute the transaction: ${why}`,
      {},
      [],
      false,
    ),
  /**
   * CommandDeduplicationError.DuplicateCommandReject (participant/sync/CommandDeduplicationError.scala), not the
   * Ledger API's ConsistencyErrors.DuplicateCommand wording: a TransactionErrorImpl with `definiteAnswer = true`
   * whose context is its fields as `BaseError.extractContext` prints them (`existingSubmissionId` an Option).
   */
  duplicateCommand: (completionOffset: number, existingSubmissionId: string | undefined, changeId: string) =>
    new SandboxError(
      'DUPLICATE_COMMAND',
      10,
      'Command submission already exists.',
      {
        changeId,
        completion_offset: String(completionOffset),
        accepted: 'true',
        existingSubmissionId: existingSubmissionId === undefined ? 'None' : `Some(${existingSubmissionId})`,
      },
      [],
      true,
    ),
  /**
   * SUBMISSION_ALREADY_IN_FLIGHT, category 2, definite false. With another submission id it is the
   * participant's TransactionProcessor.SubmissionErrors.SubmissionAlreadyInFlight (its fields as context);
   * with the same one the Ledger API tracker's ConsistencyErrors.SubmissionAlreadyInFlight.Reject
   * (SubmissionTracker.Errors.duplicated).
   */
  inFlight: (
    existingSubmissionId: string,
    changeId: string,
    synchronizerId: string,
    sameSubmission = false,
  ) =>
    sameSubmission
      ? new SandboxError(
          'SUBMISSION_ALREADY_IN_FLIGHT',
          2,
          'A submission with the given change ID (user ID, command ID, actAs) and submission ID is already in flight',
          {},
          [],
          false,
        )
      : new SandboxError(
          'SUBMISSION_ALREADY_IN_FLIGHT',
          2,
          'The submission is already in-flight',
          {
            changeId,
            existingSubmissionId: `Some(${existingSubmissionId})`,
            existingSubmissionSynchronizerId: synchronizerId,
          },
          [],
          false,
        ),
  /** CommonErrors.RequestTimeOut from SubmissionTracker.Errors.timedOut, definite false. */
  requestTimeout: (commandId?: string, submissionId?: string) =>
    new SandboxError(
      'REQUEST_TIME_OUT',
      3,
      commandId === undefined
        ? 'Timed out while awaiting for a completion corresponding to a command submission.'
        : `Timed out while awaiting for a completion corresponding to a command submission with command-id=${commandId} and submission-id=${submissionId}.`,
      {},
      [],
      false,
    ),
  /**
   * LocalRejectError.ConsistencyRejections.InactiveContracts (canton/protocol/LocalRejectError.scala): category
   * InvalidGivenCurrentSystemStateResourceMissing (11, NOT_FOUND, not retryable), a LocalError whose cause is
   * the prefix alone (`_details` is empty), one CONTRACT_ID resource per contract and the context entry
   * `CONTRACT_ID -> _resources.show` (cats' Show of a Seq); definite false (TransactionError's default).
   */
  inactiveContracts: (cids: string[]) =>
    new SandboxError(
      'LOCAL_VERDICT_INACTIVE_CONTRACTS',
      11,
      'Rejected transaction is referring to inactive contracts ',
      { CONTRACT_ID: `Seq(${cids.join(', ')})` },
      cids.map((c) => ['CONTRACT_ID', c] as [string, string]),
      false,
    ),
  /**
   * The ledger time is further than the synchronizer's ledgerTimeRecordTimeTolerance from the record time
   * (LocalRejectError.TimeRejects.LedgerTime; TimeValidator.checkTimestamps), category 2, definite false.
   */
  ledgerTimeOutOfBound: (ledgerTime: string, recordTime: string, maxDelta: string) =>
    new SandboxError(
      'LOCAL_VERDICT_LEDGER_TIME_OUT_OF_BOUND',
      2,
      `Rejected transaction as delta of the ledger time and the record time exceed the time tolerance ledgerTime=${ledgerTime}, recordTime=${recordTime}, maxDelta=${maxDelta}`,
      {},
      [],
      false,
    ),
  /**
   * The preparation time is further than the synchronizer's tolerance from the record time, either way
   * (LocalRejectError.TimeRejects.PreparationTime), category ContentionOnSharedResources, definite false.
   */
  preparationTimeOutOfBound: (preparationTime: string, recordTime: string, maxDelta: string) =>
    new SandboxError(
      'LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND',
      2,
      `Rejected transaction as delta of the preparation time and the record time exceed the time tolerance preparationTime=${preparationTime}, recordTime=${recordTime}, maxDelta=${maxDelta}`,
      {},
      [],
      false,
    ),
  /**
   * Protocol 35 (hashing V3): sequenced, then refused in phase 3 (TimeValidator.checkTimestamps →
   * TransactionConfirmationResponsesFactory → LocalRejectError.TimeRejects.MaxRecordTimeExceeded), category 2.
   */
  maxRecordTimeExceeded: (recordTime: string, maxRecordTime: string) =>
    new SandboxError(
      'LOCAL_VERDICT_MAX_RECORD_TIME_EXCEEDED',
      2,
      `Rejected transaction as record time exceeds the maximum record time: recordTime=${recordTime}, maxRecordTime=${maxRecordTime}`,
      {},
      [],
      false,
    ),
  contractNotFound: (cid: string) =>
    new SandboxError(
      'CONTRACT_NOT_FOUND',
      11,
      `Contract could not be found with id ${cid}`,
      {},
      [['CONTRACT_ID', cid]],
      false,
    ),
  /**
   * Protocol 34 (hashing V2): the max sequencing time is min(maxRecordTime, ledger time + tolerance), so a
   * passed max record time is never sequenced (TransactionProcessor.SubmissionErrors.TimeoutError, definite
   * false; TransactionProcessingSteps.createSubmission).
   */
  notSequencedTimeout: () =>
    new SandboxError(
      'NOT_SEQUENCED_TIMEOUT',
      2,
      'Transaction was not sequenced within the pre-defined max sequencing time and has therefore timed out',
      {},
      [],
      false,
    ),
  /**
   * CommandDeduplicationError.DeduplicationPeriodStartsTooEarlyErrorWithOffset: the period starts before the
   * last pruning (CommandDeduplicator.checkAgainstPruning); reported after in-flight registration, definite.
   */
  dedupStartsTooEarly: (changeId: string, requestedPeriod: string, earliestOffset: number) =>
    new SandboxError(
      'INVALID_DEDUPLICATION_PERIOD',
      9,
      'Deduplication period starts too early. The error metadata field earliest_offset contains the earliest deduplication offset currently allowed.',
      { changeId, requestedPeriod, earliest_offset: String(earliestOffset) },
      [],
      true,
    ),
  /** …WithDuration: the period reaches before the earliest timestamp (CantonTimestamp.MinValue). */
  dedupStartsTooEarlyDuration: (changeId: string, requestedPeriod: string, longest: string) =>
    new SandboxError(
      'INVALID_DEDUPLICATION_PERIOD',
      9,
      'Deduplication period starts too early. The error metadata field longest_duation contains the longest deduplication duration currently allowed.',
      { changeId, requestedPeriod, longest_duration: longest },
      [],
      true,
    ),
  partyNotFound: (party: string) =>
    new SandboxError(
      'PARTY_NOT_KNOWN_ON_LEDGER',
      9,
      `Party not known on ledger: Parties not known on ledger: [${party}]`,
    ),
  /**
   * PartyOps' EXTERNAL_PARTY_ALREADY_EXISTS ("Party X already exists on synchronizer Y", gRPC ALREADY_EXISTS), which
   * ApiPartyManagementService.alreadyExistsError rewrites as INVALID_ARGUMENT with its description: HTTP 400.
   */
  externalPartyExists: (party: string, synchronizerId: string) =>
    err.invalidArgument(`Party ${party} already exists on synchronizer ${synchronizerId}`),
  /** TopologyManagerError.SerialMismatch (InvalidGivenCurrentSystemStateOther); serials print as Scala Options. */
  serialMismatch: (expected: number, actual: number) =>
    new SandboxError(
      'TOPOLOGY_SERIAL_MISMATCH',
      9,
      `The provided serial Some(${actual}) did not match the expected serial Some(${expected}).`,
    ),
  /** TopologyManagerError.UnauthorizedTransaction (an Alarm: SecurityAlert, gRPC INVALID_ARGUMENT); `cause` is one of its cases. */
  topologyUnauthorized: (cause: string) => new SandboxError('TOPOLOGY_UNAUTHORIZED_TRANSACTION', 5, cause),
  /** TopologyManagerError.InvalidSignatureError.Failure (an Alarm). */
  topologyInvalidSignature: () =>
    new SandboxError('TOPOLOGY_INVALID_TX_SIGNATURE', 5, 'Transaction signature verification failed'),
  /** TopologyManagerError.MultiTransactionHashMismatch: a multi-transaction signature not covering the transaction. */
  multiTransactionHashMismatch: (expected: string, actual: string[]) =>
    new SandboxError(
      'TOPOLOGY_MULTI_TRANSACTION_HASH_MISMATCH',
      9,
      `The given transaction hash set Set(${actual.join(', ')}) did not contain the expected hash ${expected} of the transaction.`,
    ),
  /**
   * TopologyManagerError.UnknownMembers (InvalidGivenCurrentSystemStateResourceMissing): hosts without a
   * SynchronizerTrustCertificate (TopologyMappingChecks.scala L585–672). Participants print as `PAR::uid`.
   */
  topologyUnknownMembers: (participants: string[]) =>
    new SandboxError(
      'TOPOLOGY_UNKNOWN_MEMBERS',
      11,
      `Members ${participants
        .map((p) => `PAR::${p}`)
        .sort()
        .join(', ')} are unknown.`,
    ),
  /** TopologyManagerError.SigningThresholdCannotBeReached (TopologyManager.scala L1071–1120). */
  signingThresholdUnreachable: (threshold: number, keys: number) =>
    new SandboxError(
      'TOPOLOGY_SIGNING_THRESHOLD_CANNOT_BE_REACHED',
      10,
      `Tried to set a signing threshold (${threshold}) above the number of signing keys (${keys}).`,
    ),
  /** TopologyManagerError.ConfirmingThresholdCannotBeReached: the threshold counts every hosting participant. */
  confirmingThresholdUnreachable: (threshold: number, hosts: number) =>
    new SandboxError(
      'TOPOLOGY_CONFIRMING_THRESHOLD_CANNOT_BE_REACHED',
      10,
      `Tried to set a confirming threshold (${threshold}) above the number of hosting nodes (${hosts}).`,
    ),
  /** TopologyManagerError.InvalidTopologyMapping (a mapping the manager refuses, e.g. a self-signed P2P dropping its namespace key). */
  invalidTopologyMapping: (why: string) =>
    new SandboxError(
      'TOPOLOGY_INVALID_TOPOLOGY_MAPPING',
      8,
      `The topology transaction was rejected due to an invalid mapping: ${why}`,
    ),
  /** TopologyManagerError.NoCorrespondingActiveTxToRevoke. */
  noActiveTransactionToRevoke: () =>
    new SandboxError(
      'TOPOLOGY_NO_CORRESPONDING_ACTIVE_TX_TO_REVOKE',
      9,
      'There is no active topology transaction matching the mapping of the revocation request',
    ),
  /** TopologyManagerError.RemoveMustNotChangeMapping (the cause's actual/expected mappings are left out). */
  removeMustNotChangeMapping: () =>
    new SandboxError(
      'TOPOLOGY_REMOVE_MUST_NOT_CHANGE_MAPPING',
      9,
      'REMOVE must not change the topology mapping',
    ),
  /** TopologyManagerError.TopologyTransactionNotFound (authorize of an unknown hash). */
  topologyTransactionNotFound: (hash: string) =>
    new SandboxError(
      'TOPOLOGY_TRANSACTION_NOT_FOUND',
      11,
      `Topology transaction with hash ${hash} does not exist or is not active or is not an active proposal at the given store`,
    ),
  /**
   * What the JSON layer answers for an exception nothing else handled (json/v2/Endpoints.handleErrorResponse):
   * LedgerApiErrors.InternalError.Generic(message) through `JsCantonError.fromErrorCode`, so the body carries
   * `definiteAnswer: false`; category SystemInternalAssumptionViolated (4), 500.
   */
  internal: (message = 'Unexpected or unknown exception occurred.') =>
    new SandboxError(
      'LEDGER_API_INTERNAL_ERROR',
      4,
      message,
      { throwableO: 'None' },
      [],
      false,
      undefined,
      true,
    ),
  /**
   * A websocket request message the endpoint's decoder cannot read: tapir's `WebSocketFrameDecodeFailure`
   * (`PekkoWebSockets.pipeToBody`) fails the flow, whose `recover` (`Endpoints.websocket`, `handleError`'s
   * `NonFatal` case) answers LedgerApiErrors.InternalError.Generic(message, Some(error)) as one frame.
   */
  frameDecode: (frame: string, reason: string) => {
    const message = `Cannot decode frame: ${frame}, due to: ${reason}`;
    return new SandboxError(
      'LEDGER_API_INTERNAL_ERROR',
      4,
      message,
      { throwableO: `Some(sttp.tapir.model.WebSocketFrameDecodeFailure: ${message})` },
      [],
      false,
      undefined,
      true,
    );
  },
  listTooLarge: (max: number) =>
    new SandboxError(
      'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
      2,
      `Exceeded maximum list size of ${max} elements. Use websocket or limit the result with the limit parameter.`,
      {},
      [],
      false,
      413,
      true,
    ),
  vettingPageSize: (max: number) =>
    new SandboxError(
      'PROTO_DESERIALIZATION_FAILURE',
      8,
      `Deserialization of protobuf message failed: Page size must not exceed the server's maximum of ${max}`,
    ),
  vettingPageToken: (why: string) =>
    new SandboxError(
      'PROTO_DESERIALIZATION_FAILURE',
      8,
      `Deserialization of protobuf message failed: Invalid page token for ListVettedPackagesRequest: ${why}`,
    ),
};

/** The participant's error for a violated request rule (`src/ledger/rules.ts` decides, this says it). */
export function violationError(v: Violation): SandboxError {
  switch (v.code) {
    case 'INVALID_ARGUMENT':
      return err.invalidArgument(v.reason);
    case 'MISSING_FIELD':
      return err.missingField(v.field);
    case 'INVALID_FIELD':
      return err.invalidField(v.field, v.reason);
    case 'DESCENDING_ORDER_MISSING_END':
      return new SandboxError(v.code, 8, 'end_inclusive is not provided when descending_order is true');
    case 'NEGATIVE_OFFSET':
      return err.negativeOffset(v.field, v.offset);
    case 'NON_POSITIVE_OFFSET':
      return err.nonPositiveOffset(v.field, v.offset);
    case 'OFFSET_OUT_OF_RANGE':
      return err.offsetOutOfRange(v.reason);
    case 'PROTO_DESERIALIZATION_FAILURE':
      return new SandboxError(v.code, 8, `Deserialization of protobuf message failed: ${v.reason}`);
    case 'INVALID_USER_UPDATE_REQUEST':
      return err.invalidUserUpdateRequest(v.userId, v.reason);
  }
}

/** Bad options: one line on stderr, exit code 2 (what every quill command does). */
export class SandboxUsageError extends Error {
  override readonly name = 'SandboxUsageError';
  readonly exitCode = 2;
}
