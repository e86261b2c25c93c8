// The submission record: the unit of the store's state machine, as the pipeline knows it. The store keeps it with
// its schema version (store/stored.ts) and the API names it for its document (src/api/schemas.ts `SubmissionView`);
// this schema is neither's, and descriptions here are the data's own.
import {
  CostEstimation,
  type JsTransaction,
  type MinLedgerTime,
  type PartySignatures,
  type TransactionFormat,
} from '@quill/canton/ledger';
import { HASHING_SCHEME_VERSIONS } from '@quill/canton/transaction';
import { z } from 'zod';

/**
 * The state machine, declared once: each status's rank (a record only moves to a higher rank; executing may
 * repeat) and whether it is final. The type, the API enum, the store's index lists and the Lua rank table
 * (scripts.ts) are all derived from this table. `announce`: a transition into the status writes an outbox entry
 * (and so a `submission.<status>` event); creation always writes one.
 */
export const STATUS_TABLE = {
  awaiting_approval: { rank: 0, final: false, announce: true },
  // After the approval quorum (approvals come first) and before `accepted`: every signature is in when it leaves.
  awaiting_signatures: { rank: 1, final: false, announce: true },
  accepted: { rank: 2, final: false, announce: false },
  queued: { rank: 3, final: false, announce: false },
  executing: { rank: 4, final: false, announce: false },
  committed: { rank: 5, final: true, announce: true },
  rejected: { rank: 5, final: true, announce: true },
  expired: { rank: 5, final: true, announce: true },
} as const;

type Status = keyof typeof STATUS_TABLE;
export const SUBMISSION_STATUSES = Object.keys(STATUS_TABLE) as [Status, ...Status[]];

export const SubmissionStatus = z
  .enum(SUBMISSION_STATUSES)
  .describe(
    '(awaiting_approval →) (awaiting_signatures →) accepted → queued → executing → committed | rejected | expired. ' +
      "Final states never change again. awaiting_approval: held unsigned until the approval policy's quorum " +
      "approves. awaiting_signatures: signed by Quill's keys, short of the party's signing threshold until its " +
      'external key holders post theirs.',
  );
export type SubmissionStatus = z.infer<typeof SubmissionStatus>;
export type FinalStatus = {
  [S in Status]: (typeof STATUS_TABLE)[S]['final'] extends true ? S : never;
}[Status];

export const TERMINAL: ReadonlySet<SubmissionStatus> = new Set(
  SUBMISSION_STATUSES.filter((s) => STATUS_TABLE[s].final),
);

export const STATUS_RANK = Object.fromEntries(
  SUBMISSION_STATUSES.map((s) => [s, STATUS_TABLE[s].rank]),
) as Record<SubmissionStatus, number>;

export const ErrorInfo = z.object({
  code: z.string().describe('a stable code, e.g. DUPLICATE_COMMAND'),
  message: z.string(),
  contractIds: z
    .array(z.string())
    .optional()
    .describe(
      'the contracts the ledger named in its refusal (its CONTRACT_ID resources), e.g. inputs already spent',
    ),
});
export type ErrorInfo = z.infer<typeof ErrorInfo>;

export const AttemptOutcome = z.enum([
  'pending',
  'committed',
  'duplicate',
  'rejected',
  'retryable',
  'ambiguous',
]);
export type AttemptOutcome = z.infer<typeof AttemptOutcome>;

export const Attempt = z.object({
  submissionId: z.string(),
  startedAt: z.string().describe('ISO 8601'),
  finishedAt: z.string().nullable(),
  outcome: AttemptOutcome,
  deduplicationSeconds: z.number().int(),
  error: ErrorInfo.nullable(),
});
export type Attempt = z.infer<typeof Attempt>;

export const HashingSchemeVersion = z.enum(HASHING_SCHEME_VERSIONS);
export type HashingSchemeVersion = z.infer<typeof HashingSchemeVersion>;

export const Approval = z.object({
  subject: z.string(),
  decision: z.enum(['approve', 'reject']),
  reason: z.string().nullable(),
  at: z.string().describe('ISO 8601'),
});
export type Approval = z.infer<typeof Approval>;

/** The approval policy's verdict for a submission that had to wait for approvers. */
export const ApprovalRequirement = z.object({
  rule: z.string().nullable().describe('the policy rule that matched'),
  policyVersion: z
    .number()
    .int()
    .nullable()
    .describe('the policy version whose requirement (rule, quorum, group) the submission waits under'),
  decidedByPolicyVersion: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe(
      'the policy version in force at the approval that signed it or ended it POLICY_CHANGED (null: no policy)',
    ),
  quorum: z.number().int(),
  group: z.string().nullable(),
  approvers: z.array(z.string()).nullable().describe('the subjects allowed to decide (a group)'),
  deadline: z
    .string()
    .nullable()
    .describe('approvals after this time are refused and the record ends expired'),
  summary: z
    .array(z.string())
    .optional()
    .describe(
      'what the approvers approve: one sentence per asset movement, read from the decoded transaction',
    ),
});
export type ApprovalRequirement = z.infer<typeof ApprovalRequirement>;

/** One key of the party's signing set, as the record's signature round tracks it. */
export const RoundKey = z.object({
  fingerprint: z.string(),
  holder: z.enum(['quill', 'external']).describe('quill: Quill signs with it; external: its holder posts'),
  label: z.string().nullable(),
  signedAt: z.string().nullable().describe('when its signature was counted; null: not (yet) signed'),
});
export type RoundKey = z.infer<typeof RoundKey>;

/**
 * The party's signing set as the submission collects signatures over its hash: M (`threshold`) distinct keys of
 * the set must sign before it is queued. Present on every record signed for a party with a signing set.
 */
export const SignatureRound = z.object({
  threshold: z.number().int().describe('how many distinct keys of the set must sign (M)'),
  deadline: z
    .string()
    .nullable()
    .describe(
      'signatures after this time are refused and a round short of M ends expired (SIGNATURES_MISSING)',
    ),
  keys: z.array(RoundKey).describe("the set's keys, in its order"),
});
export type SignatureRound = z.infer<typeof SignatureRound>;

const InstrumentRef = z.object({ admin: z.string(), id: z.string() });

/**
 * What a record made by Quill's own prepare was asked to do (POST /wallet/v1/transfers, …/transfer-instructions/…,
 * /commands), as verified against the prepared transaction before anything was signed.
 */
export const Intent = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('transfer'),
    receiver: z.string(),
    instrument: InstrumentRef,
    amount: z.string(),
    memo: z.string().nullable(),
    executeBefore: z.string(),
    inputHoldingCids: z.array(z.string()).describe('the holdings Quill chose to spend'),
    factoryId: z.string().describe("the registry's TransferFactory"),
    transferKind: z.string().describe("the registry's answer: self, direct or offer"),
  }),
  z.object({
    kind: z.literal('instruction'),
    action: z.enum(['accept', 'reject', 'withdraw']),
    instructionCid: z.string(),
    sender: z.string(),
    receiver: z.string(),
    amount: z.string(),
    instrument: InstrumentRef,
  }),
  z.object({ kind: z.literal('commands'), commandCount: z.number().int() }),
]);
export type Intent = z.infer<typeof Intent>;

export const SubmissionRecord = z.object({
  id: z.string().describe('sub_ followed by 20 base64url characters'),
  status: SubmissionStatus,
  party: z.string(),
  commandId: z.string(),
  userId: z.string(),
  synchronizerId: z.string(),
  keyFingerprint: z.string(),
  preparedTransactionHash: z.string().describe('lowercase hex of the signed 32-byte hash'),
  hashingSchemeVersion: HashingSchemeVersion,
  maxRecordTime: z.string().nullable(),
  canCommitUntil: z
    .string()
    .nullable()
    .describe(
      'after this time the ledger refuses the transaction: the earlier of max record time and preparation ' +
        'time + PREPARATION_TIME_TOLERANCE_SECONDS. A submission whose outcome is unknown stays open until then.',
    ),
  requestedBy: z.string().describe('subject of the token that asked for it'),
  createdAt: z.string(),
  updatedAt: z.string(),
  attempts: z.array(Attempt),
  updateId: z.string().nullable(),
  completionOffset: z.number().int().nullable(),
  // Typed, not parsed again on every read: it is the ledger's answer, stored as the executor got it.
  transaction: z.custom<JsTransaction>().nullable().describe('the committed JsTransaction'),
  error: ErrorInfo.nullable(),
  reconcileFromOffset: z
    .number()
    .int()
    .nullable()
    .describe('ledger end before the first attempt; reconciliation scans after it'),
  reconciledThroughOffset: z
    .number()
    .int()
    .nullable()
    .describe('offset up to which the ledger was already searched for this transaction'),
  searchedAt: z
    .string()
    .nullable()
    .optional()
    .describe(
      'when the ledger was last searched for this transaction (an unknown outcome, an operator search)',
    ),
  approval: ApprovalRequirement.optional().describe('present when the policy asked for approvals'),
  approvals: z.array(Approval).optional().describe('decisions so far, in order'),
  signatureRound: SignatureRound.optional().describe(
    "the party's signing set and who signed: present when the party signs M of N (a signing set)",
  ),
  outflows: z
    .array(z.object({ instrument: z.object({ admin: z.string(), id: z.string() }), amount: z.string() }))
    .optional()
    .describe(
      'what the party sends, per instrument, as the approval policy read it (exact decimals; velocity sums ' +
        'only the same instrument)',
    ),
  amount: z
    .string()
    .optional()
    .describe(
      'the outflow when exactly one instrument leaves the party (see outflows); absent otherwise, never a sum ' +
        'of instruments',
    ),
  // Fees (issue 27): what the participant estimated at prepare, and what the committed transaction paid.
  costEstimation: CostEstimation.optional().describe(
    "the prepare response's costEstimation (traffic), when the caller sent it with the submission",
  ),
  paidTrafficCost: z
    .number()
    .int()
    .optional()
    .describe("the traffic the committed transaction paid for (the ledger transaction's paidTrafficCost)"),
  intent: Intent.optional().describe('present when Quill prepared the transaction from an intent'),
  reprepareOf: z
    .string()
    .optional()
    .describe('the expired record this one prepared again (POST /wallet/v1/submissions/{id}/reprepare)'),
});
export type SubmissionRecord = z.infer<typeof SubmissionRecord>;

/** What the worker needs to execute, kept beside the record but never returned by the API. */
export interface SubmissionPayload {
  preparedTransaction: string;
  partySignatures: PartySignatures;
  deduplicationSeconds?: number;
  minLedgerTime?: MinLedgerTime;
  transactionFormat?: TransactionFormat;
}

export function isTerminal(status: SubmissionStatus): status is FinalStatus {
  return TERMINAL.has(status);
}
