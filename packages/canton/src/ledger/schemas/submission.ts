/**
 * Interactive submission: prepare, execute, executeAndWait, executeAndWaitForTransaction, signatures,
 * deduplication periods and min ledger time. The request types are hand-written `Js*` case classes on the
 * participant (strict about missing fields without a Scala default, §1.6): `synchronizerId` and
 * `packageIdSelectionPreference` on prepare and `deduplicationPeriod` on execute are required here
 * although the spec lists them as optional — the real decoder rejects a body without them.
 */
import { z } from 'zod';
import {
  Base64,
  Duration,
  Int32Input,
  Int64,
  Int64Input,
  LfValue,
  opt,
  protoDefault,
  Timestamp,
  variant,
} from './common.ts';
import { HashingSchemeVersion, SignatureFormat, SigningAlgorithmSpec } from './enums.ts';
import { JsTransaction } from './events.ts';
import { TransactionFormat } from './formats.ts';

export const Signature = z.object({
  format: SignatureFormat,
  /** base64 of the signature bytes; must be non-empty. */
  signature: Base64.min(1, 'signature must be non-empty'),
  /** Fingerprint of the signing key (`1220` + 64 hex). */
  signedBy: z.string().min(1),
  signingAlgorithmSpec: SigningAlgorithmSpec,
});
export type Signature = z.infer<typeof Signature>;

export const SinglePartySignatures = z.object({ party: z.string().min(1), signatures: z.array(Signature) });
export type SinglePartySignatures = z.infer<typeof SinglePartySignatures>;

export const PartySignatures = z.object({ signatures: z.array(SinglePartySignatures) });
export type PartySignatures = z.infer<typeof PartySignatures>;

export const DeduplicationDuration = z.object({ value: Duration });
export type DeduplicationDuration = z.infer<typeof DeduplicationDuration>;
export const DeduplicationOffset = z.object({ value: Int64Input });
export type DeduplicationOffset = z.infer<typeof DeduplicationOffset>;

/** `{"Empty":{}}` = the participant's maximum deduplication duration (default 7 days). */
export const DeduplicationPeriod = z.union([
  variant('DeduplicationDuration', DeduplicationDuration),
  variant('DeduplicationOffset', DeduplicationOffset),
  variant('Empty', z.object({})),
]);
export type DeduplicationPeriod = z.infer<typeof DeduplicationPeriod>;
/** The spec repeats the same oneof under numbered names (completions / execute requests). */
export const DeduplicationPeriod1 = DeduplicationPeriod;
export type DeduplicationPeriod1 = DeduplicationPeriod;
export const DeduplicationPeriod2 = DeduplicationPeriod;
export type DeduplicationPeriod2 = DeduplicationPeriod;

export const MinLedgerTimeAbs = z.object({ value: Timestamp });
export type MinLedgerTimeAbs = z.infer<typeof MinLedgerTimeAbs>;
export const MinLedgerTimeRel = z.object({ value: Duration });
export type MinLedgerTimeRel = z.infer<typeof MinLedgerTimeRel>;
export const Time = z.union([
  variant('Empty', z.object({})),
  variant('MinLedgerTimeAbs', MinLedgerTimeAbs),
  variant('MinLedgerTimeRel', MinLedgerTimeRel),
]);
export type Time = z.infer<typeof Time>;
export const MinLedgerTime = z.object({ time: opt(Time) });
export type MinLedgerTime = z.infer<typeof MinLedgerTime>;

/** Template ids: `<packageId>:<Module>:<Entity>` or `#<package-name>:<Module>:<Entity>`. */
const TemplateId = z.string().regex(/^#?[^:]+:[^:]+:[^:]+$/, 'expected <package>:<Module>:<Entity>');

export const CreateCommand = z.object({ templateId: TemplateId, createArguments: LfValue });
export type CreateCommand = z.infer<typeof CreateCommand>;
export const ExerciseCommand = z.object({
  templateId: TemplateId,
  contractId: z.string(),
  choice: z.string(),
  choiceArgument: LfValue,
});
export type ExerciseCommand = z.infer<typeof ExerciseCommand>;
export const CreateAndExerciseCommand = z.object({
  templateId: TemplateId,
  createArguments: LfValue,
  choice: z.string(),
  choiceArgument: LfValue,
});
export type CreateAndExerciseCommand = z.infer<typeof CreateAndExerciseCommand>;
export const ExerciseByKeyCommand = z.object({
  templateId: TemplateId,
  contractKey: LfValue,
  choice: z.string(),
  choiceArgument: LfValue,
});
export type ExerciseByKeyCommand = z.infer<typeof ExerciseByKeyCommand>;
export const Command = z.union([
  variant('CreateAndExerciseCommand', CreateAndExerciseCommand),
  variant('CreateCommand', CreateCommand),
  variant('ExerciseByKeyCommand', ExerciseByKeyCommand),
  variant('ExerciseCommand', ExerciseCommand),
]);
export type Command = z.infer<typeof Command>;

export const DisclosedContract = z.object({
  templateId: opt(z.string()),
  contractId: opt(z.string()),
  createdEventBlob: Base64,
  synchronizerId: opt(z.string()),
});
export type DisclosedContract = z.infer<typeof DisclosedContract>;

export const PrefetchContractKey = z.object({
  templateId: z.string(),
  contractKey: LfValue,
  limit: opt(Int32Input),
});
export type PrefetchContractKey = z.infer<typeof PrefetchContractKey>;

export const CostEstimationHints = z.object({
  disabled: opt(z.boolean()),
  expectedSignatures: opt(z.array(SigningAlgorithmSpec)),
});
export type CostEstimationHints = z.infer<typeof CostEstimationHints>;

export const JsPrepareSubmissionRequest = z.object({
  userId: opt(z.string()),
  commandId: z.string().min(1),
  /** Exactly one command is supported by the participant. */
  commands: z.array(Command),
  minLedgerTime: opt(MinLedgerTime),
  actAs: z.array(z.string()),
  readAs: opt(z.array(z.string())),
  disclosedContracts: opt(z.array(DisclosedContract)),
  /** No decoder default: always send (`""` lets the participant choose). */
  synchronizerId: z.string(),
  /** No decoder default: always send (`[]` is fine). */
  packageIdSelectionPreference: z.array(z.string()),
  verboseHashing: opt(z.boolean()),
  prefetchContractKeys: opt(z.array(PrefetchContractKey)),
  maxRecordTime: opt(Timestamp),
  estimateTrafficCost: opt(CostEstimationHints),
  tapsMaxPasses: opt(Int32Input),
  /** 3.5+: defaults to V2. */
  hashingSchemeVersion: opt(HashingSchemeVersion),
});
export type JsPrepareSubmissionRequest = z.infer<typeof JsPrepareSubmissionRequest>;

export const CostEstimation = z.object({
  estimationTimestamp: Timestamp,
  confirmationRequestTrafficCostEstimation: Int64,
  confirmationResponseTrafficCostEstimation: Int64,
  totalTrafficCostEstimation: Int64,
});
export type CostEstimation = z.infer<typeof CostEstimation>;

export const JsPrepareSubmissionResponse = z.object({
  /** base64 of the serialized `PreparedTransaction` protobuf. */
  preparedTransaction: Base64,
  /** base64 of the raw 32-byte hash (untrusted: recompute it). */
  preparedTransactionHash: Base64,
  hashingSchemeVersion: HashingSchemeVersion,
  hashingDetails: opt(z.string()),
  costEstimation: opt(CostEstimation),
});
export type JsPrepareSubmissionResponse = z.infer<typeof JsPrepareSubmissionResponse>;

const executeFields = {
  preparedTransaction: Base64.min(1, 'preparedTransaction must be non-empty'),
  partySignatures: PartySignatures,
  /** No decoder default: always send (`{"Empty":{}}` = participant maximum). */
  deduplicationPeriod: DeduplicationPeriod,
  /**
   * New random id per attempt; not signed. Required by the participant's decoder (`submissionId: String`
   * without a default in JsExecuteSubmission*Request: a body without it is 400 text/plain). Empty: the
   * participant generates one.
   */
  submissionId: z.string(),
  userId: protoDefault(z.string(), ''),
  hashingSchemeVersion: HashingSchemeVersion,
  minLedgerTime: opt(MinLedgerTime),
};

export const JsExecuteSubmissionRequest = z.object(executeFields);
export type JsExecuteSubmissionRequest = z.infer<typeof JsExecuteSubmissionRequest>;
export const JsExecuteSubmissionAndWaitRequest = z.object(executeFields);
export type JsExecuteSubmissionAndWaitRequest = z.infer<typeof JsExecuteSubmissionAndWaitRequest>;
export const JsExecuteSubmissionAndWaitForTransactionRequest = z.object({
  ...executeFields,
  transactionFormat: opt(TransactionFormat),
});
export type JsExecuteSubmissionAndWaitForTransactionRequest = z.infer<
  typeof JsExecuteSubmissionAndWaitForTransactionRequest
>;

export const ExecuteSubmissionResponse = z.object({});
export type ExecuteSubmissionResponse = z.infer<typeof ExecuteSubmissionResponse>;
export const ExecuteSubmissionAndWaitResponse = z.object({ updateId: z.string(), completionOffset: Int64 });
export type ExecuteSubmissionAndWaitResponse = z.infer<typeof ExecuteSubmissionAndWaitResponse>;
export const JsExecuteSubmissionAndWaitForTransactionResponse = z.object({ transaction: JsTransaction });
export type JsExecuteSubmissionAndWaitForTransactionResponse = z.infer<
  typeof JsExecuteSubmissionAndWaitForTransactionResponse
>;
