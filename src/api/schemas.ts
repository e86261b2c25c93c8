// Wire shapes of the wallet API (zod, the source of both validation and the OpenAPI document).
import { z } from '@hono/zod-openapi';
import {
  CostEstimation,
  checkTransactionFormat,
  DeduplicationPeriod,
  describeViolation,
  isStandardBase64,
  JsTransaction,
  ListVettedPackagesResponse,
  MinLedgerTime,
  TransactionFormat,
  Update,
  User,
} from '@quill/canton/ledger';
import { ListActivityResponseItem } from '@quill/canton/scan';
import { KEY_ALGORITHMS, KEY_BACKEND_TYPES } from '../signing/index.ts';
import {
  Approval,
  ApprovalRequirement,
  Attempt,
  ErrorInfo,
  HashingSchemeVersion,
  SignatureRound,
  SubmissionRecord,
  SubmissionStatus,
} from '../submissions/index.ts';

/** The backends Quill knows (src/signing/backends.ts), as an enum. */
const BACKEND_NAMES = KEY_BACKEND_TYPES.map((t) => t.name) as [string, ...string[]];

// Ledger data as the ledger contract declares it (packages/canton, the one source of truth), named for the
// document; `.meta` clones, so the contract's own schemas are left as they are.
export const LedgerJsTransaction = JsTransaction.meta({
  id: 'JsTransaction',
  description: 'A transaction as the JSON Ledger API v2 returns it',
});
// The submission record as the API answers it: the pipeline's record (src/submissions/record.ts), its parts named
// for the document and its transaction declared as the ledger's. The stored form is the store's own
// (store/stored.ts): a change to either is not a change to the other.
export const SubmissionStatusView = SubmissionStatus.meta({ id: 'SubmissionStatus' });
const ErrorView = ErrorInfo.meta({ id: 'SubmissionError' });
const AttemptView = Attempt.extend({ error: ErrorView.nullable() }).meta({ id: 'SubmissionAttempt' });
export const SubmissionView = SubmissionRecord.extend({
  status: SubmissionStatusView,
  attempts: z.array(AttemptView),
  error: ErrorView.nullable(),
  transaction: z.union([LedgerJsTransaction, z.null()]).describe('the committed JsTransaction'),
  // Present when the policy asked for approvals.
  approval: ApprovalRequirement.meta({ id: 'ApprovalRequirement' }).optional(),
  approvals: z
    .array(Approval.meta({ id: 'Approval' }))
    .optional()
    .describe('decisions so far, in order'),
  // Present when the party signs M of N (a signing set).
  signatureRound: SignatureRound.meta({ id: 'SignatureRound' }).optional(),
}).meta({ id: 'Submission' });

// Fields passed through to the ledger's execute request are the ledger contract's own schemas: anything the
// ledger would refuse is refused here, at accept, with the path of the bad field (never retried for a day).
// `.meta` rather than `.openapi`: these schemas may be built before @hono/zod-openapi extends zod.
const DeduplicationPeriodBody = DeduplicationPeriod.meta({
  id: 'DeduplicationPeriod',
  description:
    'A lower bound: Quill always covers every earlier attempt of the command. DeduplicationOffset is refused ' +
    '(an offset cannot cover attempts not made yet).',
  example: { DeduplicationDuration: { value: { seconds: 600, nanos: 0 } } },
});

const MinLedgerTimeBody = MinLedgerTime.meta({ id: 'MinLedgerTime' });

/** Refused here what the participant's FormatValidator would refuse after signing (the ledger's own rule). */
const TransactionFormatBody = TransactionFormat.superRefine((format, ctx) => {
  const violation = checkTransactionFormat(format);
  if (violation) ctx.addIssue({ code: 'custom', message: describeViolation(violation) });
}).meta({ id: 'TransactionFormat' });

export const SubmissionBody = z
  .object({
    preparedTransaction: z
      .string()
      .min(4)
      .max(32 * 1024 * 1024) // the body limit; MAX_PREPARED_TRANSACTION_BYTES is checked by the route
      .refine(isStandardBase64, { error: 'must be standard base64' })
      .openapi({ description: 'base64 PreparedTransaction exactly as the participant prepared it' }),
    hashingSchemeVersion: HashingSchemeVersion,
    preparedTransactionHash: z.string().max(100).optional().openapi({
      description: 'base64 (as the participant returns it) or hex; must equal the recomputed hash',
    }),
    party: z.string().min(1).max(512).optional().openapi({ description: 'must equal the only actAs party' }),
    deduplicationPeriod: DeduplicationPeriodBody.optional(),
    userId: z.string().max(256).optional(),
    minLedgerTime: MinLedgerTimeBody.optional(),
    transactionFormat: TransactionFormatBody.optional(),
    costEstimation: CostEstimation.meta({
      id: 'CostEstimation',
      description:
        "the prepare response's costEstimation, kept on the record as sent (informative: not signed, not part " +
        "of the request's Idempotency-Key fingerprint)",
    }).optional(),
    hashingDetails: z.string().nullable().optional().openapi({
      description: "the prepare response's verbose hashing text: accepted and ignored",
    }),
  })
  .openapi('SubmissionRequest', {
    description:
      "The participant's prepare response may be posted as it is (with `party` added if wanted): fields this " +
      'document does not name are ignored. Unknown fields inside the prepared transaction are refused.',
  });
export type SubmissionBody = z.infer<typeof SubmissionBody>;

export const BatchItem = SubmissionBody.extend({
  idempotencyKey: z.string().min(1).max(200).optional(),
}).openapi('BatchSubmissionItem');

/** Items are validated one by one (a bad item is a 400 in its own result, not a failed batch). */
export const BatchBody = z
  .object({
    submissions: z
      .array(z.unknown().openapi({ $ref: '#/components/schemas/BatchSubmissionItem' } as never))
      .min(1),
  })
  .strict()
  .openapi('BatchSubmissionRequest');

export const BatchResult = z
  .object({
    items: z.array(
      z.object({
        index: z.number().int(),
        status: z.number().int().openapi({ description: 'the HTTP status this item would have had alone' }),
        submission: SubmissionView.optional(),
        error: z.object({ code: z.string(), message: z.string() }).optional(),
      }),
    ),
  })
  .openapi('BatchSubmissionResult');

export const SubmissionList = z
  .object({ items: z.array(SubmissionView), nextCursor: z.string().nullable() })
  .openapi('SubmissionList');

export const ListQuery = z.object({
  party: z.string().min(1).max(512).optional(),
  status: SubmissionStatusView.optional(),
  cursor: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  since: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: 'only submissions created at or after this time' }),
  until: z.iso
    .datetime({ offset: true })
    .optional()
    .openapi({ description: 'only submissions created before this time' }),
});

export const WaitQuery = z.object({
  wait: z.coerce.number().min(0).max(3600).optional().openapi({
    description: 'seconds to wait for the outcome before answering (capped by WAIT_MAX_SECONDS)',
  }),
});

export const IdempotencyHeader = z.object({
  'idempotency-key': z.string().min(1).max(200).optional(),
});

const KeyAlgorithmBody = z.enum(KEY_ALGORITHMS);

export const KeyView = z
  .object({
    fingerprint: z.string(),
    algorithm: KeyAlgorithmBody,
    keySpec: z.string(),
    publicKey: z.string().openapi({ description: 'DER SubjectPublicKeyInfo, base64' }),
    label: z.string().nullable().optional(),
    status: z.enum(['active', 'disabled']),
    createdAt: z.string(),
    backend: z.enum(BACKEND_NAMES).openapi({
      description: `where the private key lives: ${KEY_BACKEND_TYPES.map((t) => `${t.name} (${t.summary})`).join('; ')}`,
    }),
  })
  .openapi('Key');
export type KeyView = z.infer<typeof KeyView>;

export const KeyFileProblemView = z
  .object({
    file: z.string().openapi({ description: 'the file name in KEYS_DIR', example: 'notes.json' }),
    problem: z.enum(['wrong-passphrase', 'tampered', 'unreadable', 'missing', 'unavailable']),
  })
  .openapi('KeyFileProblem');
export type KeyFileProblemView = z.infer<typeof KeyFileProblemView>;

export const NewKeyBody = z
  .object({
    algorithm: KeyAlgorithmBody,
    label: z.string().max(200).optional(),
    backend: z.enum(BACKEND_NAMES).optional().openapi({
      description: 'a configured backend that makes keys (default: KEYS_DEFAULT_BACKEND, else file)',
    }),
  })
  .strict()
  .openapi('NewKeyRequest');

export const AdoptKeyBody = z
  .object({
    backend: z
      .enum(BACKEND_NAMES)
      .openapi({ description: 'a configured backend that takes over keys (pkcs11)' }),
    ref: z.string().min(1).max(300).openapi({
      description: 'the key as its backend names it: for pkcs11, label:<CKA_LABEL> or id:<hex CKA_ID>',
      example: 'label:treasury',
    }),
    label: z.string().max(200).optional(),
  })
  .strict()
  .openapi('AdoptKeyRequest');

/** A key backend as Quill knows it (src/signing/backends.ts), and what it can do here. */
export const KeyBackendView = z
  .object({
    name: z.enum(BACKEND_NAMES),
    summary: z.string(),
    configured: z.boolean(),
    default: z.boolean().openapi({ description: 'where a key is made when a request names no backend' }),
    generate: z.boolean().openapi({ description: 'it makes keys (POST /wallet/v1/keys)' }),
    adopt: z
      .boolean()
      .openapi({ description: 'it takes over keys made outside Quill (POST /wallet/v1/keys/adopt)' }),
    setUp: z.string().optional().openapi({ description: 'what to set to use it, when it is not configured' }),
  })
  .openapi('KeyBackend');
export type KeyBackendView = z.infer<typeof KeyBackendView>;

export const FingerprintParam = z.object({
  fingerprint: z
    .string()
    .min(1)
    .max(200)
    .openapi({ param: { name: 'fingerprint', in: 'path' } }),
});

// Further ledger data as the ledger contract declares it, named for the document (see LedgerJsTransaction).
export const LedgerUpdateValue = Update.meta({
  id: 'Update',
  description:
    'One update: { Transaction | Reassignment | TopologyTransaction | OffsetCheckpoint: { value } }',
});
export const LedgerUserValue = User.meta({
  id: 'User',
  description: 'A ledger user as the ledger returns it',
});
export const Activity = ListActivityResponseItem.meta({
  id: 'ListActivityResponseItem',
  description: "One entry of the network's activity feed (snake_case, `coin` names)",
});

export const LedgerTransaction = z
  .object({ transaction: LedgerJsTransaction })
  .openapi('LedgerTransaction', { description: 'The JsTransaction as the party sees it (ledger effects)' });

export const LedgerUpdates = z.object({ updates: z.array(LedgerUpdateValue) }).openapi('LedgerUpdates', {
  description: 'Update objects (JsTransaction, JsReassignment, JsTopologyTransaction)',
});

/** The ledger's answer as it is: `update` is absent only if the ledger left it out. */
export const LedgerUpdate = z.object({ update: LedgerUpdateValue.optional() }).openapi('LedgerUpdate');

export const LedgerUser = z.object({ user: LedgerUserValue }).openapi('LedgerUser', {
  description: 'The User as the ledger returns it (id, primaryParty, isDeactivated, metadata)',
});

export const VettedPackagesPage = ListVettedPackagesResponse.meta({
  id: 'VettedPackagesPage',
  description: "The ledger's answer: `vettedPackages` and `nextPageToken` (empty on the last page)",
});

export const PartyActivities = z
  .object({ activities: z.array(Activity), next_begin_after_id: z.string().nullable() })
  .openapi('PartyActivities');

// The decoded prepared transaction (@quill/canton/transaction previewPreparedTransaction), documented field by
// field: the preview route returns the codec's value as is, so the compiler holds the two together.
const Parties = z.array(z.string());
const RenderedValue = z.unknown().openapi({ description: 'a Daml value rendered as JSON' });

const PreviewKey = z.object({
  templateId: z.string().nullable(),
  packageName: z.string(),
  key: RenderedValue,
  maintainers: Parties,
});

const PreviewNode = z
  .object({
    nodeId: z.string(),
    parentId: z.string().nullable().openapi({ description: 'null for a root' }),
    depth: z.number().int().openapi({ description: '0 for roots' }),
    kind: z.enum(['create', 'exercise', 'fetch', 'rollback', 'queryByKey']),
    lfVersion: z.string().optional(),
    templateId: z.string().nullable().optional(),
    packageName: z.string().optional(),
    contractId: z.string().optional(),
    interfaceId: z.string().nullable().optional(),
    signatories: Parties.optional(),
    stakeholders: Parties.optional(),
    actingParties: Parties.optional(),
    argument: RenderedValue.optional(),
    choice: z.string().optional(),
    consuming: z.boolean().optional(),
    choiceArgument: RenderedValue.optional(),
    choiceObservers: Parties.optional(),
    exerciseResult: RenderedValue.optional(),
    key: PreviewKey.nullable().optional(),
    byKey: z.boolean().optional(),
    exhaustive: z.boolean().optional(),
    result: z.array(z.string()).optional(),
    children: z.array(z.string()).optional().openapi({ description: 'node ids' }),
  })
  .openapi('PreviewNode');

const PreviewInputContract = z.object({
  contractId: z.string(),
  templateId: z.string().nullable(),
  packageName: z.string(),
  createdAt: z.string(),
  signatories: Parties,
  stakeholders: Parties,
  argument: RenderedValue,
});

export const TransactionPreview = z
  .object({
    hashingSchemeVersion: HashingSchemeVersion,
    hash: z.string().openapi({ description: 'hex' }),
    hashBase64: z.string(),
    actAs: Parties,
    commandId: z.string(),
    synchronizerId: z
      .string()
      .openapi({ description: 'as signed: the physical id under protocol version 35' }),
    logicalSynchronizerId: z
      .string()
      .openapi({ description: 'as /v2/state/connected-synchronizers lists it' }),
    transactionUuid: z.string(),
    mediatorGroup: z.number().int(),
    preparationTime: z.string(),
    minLedgerEffectiveTime: z.string().nullable(),
    maxLedgerEffectiveTime: z.string().nullable(),
    maxRecordTime: z.string().nullable(),
    maxRecordTimeSigned: z.boolean().openapi({ description: 'max record time is signed only under V3' }),
    transactionVersion: z.string(),
    roots: z.array(z.string()).openapi({ description: 'root node ids, in order' }),
    nodes: z.array(PreviewNode).openapi({ description: 'every node in execution (pre-)order' }),
    nodeCount: z.number().int(),
    inputContracts: z.array(PreviewInputContract),
    parties: Parties.openapi({ description: 'every party named anywhere in the transaction, sorted' }),
  })
  .openapi('TransactionPreview', {
    description: 'the decoded transaction: templates, choices, arguments, input contracts, time bounds',
  });

/** `InstrumentId {admin, id}`: an instrument is named by its registry party and its id there. */
export const Instrument = z
  .object({ admin: z.string().openapi({ description: 'the registry party' }), id: z.string() })
  .openapi('InstrumentId');
const Holding = z.object({
  contractId: z.string(),
  template: z.string().openapi({ description: 'package-name qualified' }),
  owner: z.string(),
  instrument: Instrument,
  amount: z.string(),
  locked: z.boolean(),
});

/** What the transaction does to holdings, per party and instrument (src/policy/movements.ts). */
export const AssetMovementsSchema = z
  .object({
    created: z.array(Holding),
    consumed: z.array(Holding),
    deltas: z.array(
      z.object({
        party: z.string(),
        instrument: Instrument,
        outflow: z.string(),
        inflow: z.string(),
        locked: z.string(),
        unlocked: z.string(),
      }),
    ),
    transfers: z.array(
      z.object({
        nodeId: z.string(),
        choice: z.string(),
        sender: z.string(),
        receiver: z.string(),
        amount: z.string(),
        instrument: Instrument,
        executeBefore: z.string().nullable(),
        memo: z.string().nullable(),
      }),
    ),
    unrecognized: z.array(z.object({ contractId: z.string(), template: z.string(), why: z.string() })),
  })
  .openapi('AssetMovements', {
    description: 'holdings created and consumed, valued by the recognizers; deltas per party and instrument',
  });
