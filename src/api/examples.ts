// Example bodies for the OpenAPI document, taken from a demo run (`npm start`) and shortened: they show callers
// (and the generated client's readers) real shapes, so they are values, not schemas.

const PARTY = 'demo::1220e981dd00a938c4dbfe6f23e5abdd23c68930fec6f44d9deffb4ab76ba1ab09e6';
const FINGERPRINT = '1220e981dd00a938c4dbfe6f23e5abdd23c68930fec6f44d9deffb4ab76ba1ab09e6';
const SYNCHRONIZER = 'global-domain::12201a6ae9606fdc39ad5d166c335160e5c9f55152654565c8a86eda7861610194fb';
const HASH_HEX = '68b4c473186cdfa8101c6659e0c85b1dbf6237dfc26500f2b301b7846a0dd898';
const UPDATE_ID = '1220525a4257cddcc65d548c16c9def8fe1c2848e26d825e910caf37f5ad5e118955';

/** The participant's prepare response as it is, plus `party` (the body may be either this or only the first three). */
export const submissionRequestExample = {
  // Cut short (still base64): a real one is the participant's whole answer, about 1 KB for this transaction.
  preparedTransaction: 'Cr8ECgMyLjESATAakAQKATDCPokECoYECgMyLjESQjAwNjMyNDJkYWU5NDlkZTZjOTY0YTY4YzEw',
  preparedTransactionHash: 'aLTEcxhs36gQHGZZ4MhbHb9iN9/CZQDyswG3hGoN2Jg=',
  hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  party: PARTY,
};

const base = {
  id: 'sub_Jv8bj7IHoah0oOndAh2y',
  party: PARTY,
  commandId: 'greeting-1',
  userId: 'participant_admin',
  synchronizerId: SYNCHRONIZER,
  keyFingerprint: FINGERPRINT,
  preparedTransactionHash: HASH_HEX,
  hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  maxRecordTime: null,
  canCommitUntil: '2026-11-26T22:54:11.176Z',
  requestedBy: 'custody-backend',
  createdAt: '2026-11-25T22:54:11.475Z',
  error: null,
  reconciledThroughOffset: null,
};

/** The 202 answer: accepted, signed and queued. */
export const queuedSubmissionExample = {
  ...base,
  status: 'queued',
  updatedAt: '2026-11-25T22:54:11.488Z',
  attempts: [],
  updateId: null,
  completionOffset: null,
  transaction: null,
  reconcileFromOffset: null,
};

/** A final record: committed, with its update id and the ledger's transaction. */
export const committedSubmissionExample = {
  ...base,
  status: 'committed',
  updatedAt: '2026-11-25T22:54:11.524Z',
  attempts: [
    {
      submissionId: '4995b4e7-db3d-4bac-a5a3-638453ce8728',
      startedAt: '2026-11-25T22:54:11.508Z',
      finishedAt: '2026-11-25T22:54:11.524Z',
      outcome: 'committed',
      deduplicationSeconds: 120,
      error: null,
    },
  ],
  updateId: UPDATE_ID,
  completionOffset: 25,
  transaction: {
    updateId: UPDATE_ID,
    commandId: 'greeting-1',
    workflowId: '',
    effectiveAt: '2026-11-25T22:54:11.521Z',
    events: [
      {
        CreatedEvent: {
          offset: 25,
          nodeId: 0,
          contractId: '0063242dae949de6c964a68c10ceec3ec40db56a45e76414644edef6f6ffd1d20d',
          templateId: 'ffc18723a04c707bcf343a3f3845e472d763bcfde99657e53bea2f3045fbf771:Demo:Greeting',
          contractKey: null,
          createArgument: { owner: PARTY, message: 'hello' },
          createdEventBlob: '',
          interfaceViews: [],
          witnessParties: [PARTY],
          signatories: [PARTY],
          observers: [],
          createdAt: '2026-11-25T22:54:11.521Z',
          packageName: 'quill-demo',
          representativePackageId: 'ffc18723a04c707bcf343a3f3845e472d763bcfde99657e53bea2f3045fbf771',
          acsDelta: true,
        },
      },
    ],
    offset: 25,
    synchronizerId: SYNCHRONIZER,
    recordTime: '2026-11-25T22:54:11.521Z',
    externalTransactionHash: HASH_HEX,
    paidTrafficCost: 1217,
  },
  reconcileFromOffset: 24,
  paidTrafficCost: 1217,
};

/** One error body per status the routes declare: the code a caller most often meets there. */
export const ERROR_EXAMPLES = {
  400: { code: 'INVALID_REQUEST', message: 'preparedTransaction: must be standard base64' },
  401: { code: 'UNAUTHENTICATED', message: 'a bearer token is required' },
  403: { code: 'PARTY_NOT_ALLOWED', message: 'this token may not submit for that party' },
  404: { code: 'NOT_FOUND', message: 'no submission sub_Jv8bj7IHoah0oOndAh2y' },
  409: { code: 'COMMAND_ID_IN_USE', message: 'command id greeting-1 is already used by another transaction' },
  410: {
    code: 'EVENTS_EXPIRED',
    message: 'events after this id were removed by retention: resume without Last-Event-ID and reconcile',
  },
  413: {
    code: 'TOO_LARGE',
    message: 'preparedTransaction: 9000000 bytes, more than the 8388608 this wallet accepts',
  },
  422: { code: 'HASH_MISMATCH', message: 'preparedTransactionHash does not match the recomputed hash' },
  429: {
    code: 'RATE_LIMITED',
    message: 'this token may have at most 1000 submissions accepted per 1 s; retry after 1 s',
  },
  502: {
    code: 'REGISTRY_UNAVAILABLE',
    message: 'the registry of DSO::1220… did not answer (TimeoutError): retry later',
  },
  503: { code: 'UNAVAILABLE', message: 'the ledger is unavailable, try again' },
  504: {
    code: 'ALLOCATION_PENDING',
    message:
      'party treasury::1220… is not yet hosted on p2::1220…; onboarding again with the same request resumes',
  },
} as const;

/** What `GET /wallet/v1/events` sends: a comment on connect, then one event per `id`/`event`/`data` block. */
export const eventStreamExample = [
  ': connected',
  '',
  'id: 1795647251524-0',
  'event: submission.committed',
  `data: {"id":"1795647251524-0","type":"submission.committed","party":"${PARTY}","at":"2026-11-25T22:54:11.524Z","body":{"id":"sub_Jv8bj7IHoah0oOndAh2y","status":"committed","updateId":"${UPDATE_ID}","…":"…"}}`,
  '',
  ': ping',
  '',
  '',
].join('\n');
