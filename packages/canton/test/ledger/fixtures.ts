/** Realistic hand-written wire values (shapes from ledger-json-api.md §1.4–1.7), shared by the ledger tests. */

export const ALICE = 'alice::1220a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1';
export const BOB = 'bob::1220b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2b2';
export const SYNC = 'global-domain::1220af85fa0c58e7f551de289be22793993ce7672cb0751afa2f2de397ce4a695677';
export const PARTICIPANT =
  'PAR::participant1::1220c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3c3';
export const PKG = 'a3f3c1d1e7b6c0b5f1a2e3d4c5b6a7f8e9d0c1b2a3f4e5d6c7b8a9f0e1d2c3b4';
export const FINGERPRINT = '1220e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';
export const UPDATE_ID = '1220f0e1d2c3b4a5968778695a4b3c2d1e0f1a2b3c4d5e6f708192a3b4c5d6e7f809';

export const createdEvent = {
  offset: 42,
  nodeId: 0,
  contractId: '00a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f90ca1112',
  templateId: `${PKG}:Splice.Amulet:Amulet`,
  contractKey: null,
  createArgument: {
    dso: ALICE,
    owner: BOB,
    amount: { initialAmount: '10.0000000000', createdAt: { number: '5' } },
  },
  createdEventBlob: '',
  interfaceViews: [],
  witnessParties: [BOB],
  signatories: [ALICE, BOB],
  observers: [],
  createdAt: '2025-03-01T10:11:12.131415Z',
  packageName: 'splice-amulet',
  representativePackageId: PKG,
  acsDelta: true,
};

export const archivedEvent = {
  offset: 42,
  nodeId: 3,
  contractId: '00ffeeddccbbaa99887766554433221100ffeeddccbbaa99887766554433221100ca1112',
  templateId: `${PKG}:Splice.Amulet:Amulet`,
  witnessParties: [ALICE],
  packageName: 'splice-amulet',
  implementedInterfaces: null,
};

export const exercisedEvent = {
  offset: 42,
  nodeId: 1,
  contractId: archivedEvent.contractId,
  templateId: `${PKG}:Splice.AmuletRules:AmuletRules`,
  interfaceId: null,
  choice: 'AmuletRules_Transfer',
  choiceArgument: { transfer: { sender: ALICE, outputs: [] }, context: {} },
  actingParties: [ALICE],
  consuming: false,
  witnessParties: [ALICE],
  lastDescendantNodeId: 3,
  exerciseResult: { round: { number: '5' } },
  packageName: 'splice-amulet',
  implementedInterfaces: [],
  acsDelta: false,
};

export const jsTransaction = {
  updateId: UPDATE_ID,
  commandId: 'cmd-7f3a',
  workflowId: null,
  effectiveAt: '2025-03-01T10:11:12.131415Z',
  events: [{ CreatedEvent: createdEvent }, { ArchivedEvent: archivedEvent }],
  offset: 42,
  synchronizerId: SYNC,
  traceContext: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: null },
  recordTime: '2025-03-01T10:11:13Z',
  externalTransactionHash: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
  paidTrafficCost: 1234,
};

export const updates = {
  transaction: { Transaction: { value: jsTransaction } },
  ledgerEffects: {
    Transaction: {
      value: {
        ...jsTransaction,
        events: [{ ExercisedEvent: exercisedEvent }, { CreatedEvent: createdEvent }],
      },
    },
  },
  checkpoint: {
    OffsetCheckpoint: {
      value: {
        offset: 42,
        synchronizerTimes: [{ synchronizerId: SYNC, recordTime: '2025-03-01T10:11:14Z' }],
      },
    },
  },
  reassignment: {
    Reassignment: {
      value: {
        updateId: UPDATE_ID,
        commandId: null,
        workflowId: null,
        offset: 43,
        events: [
          {
            JsAssignmentEvent: {
              source: 'other::1220dd',
              target: SYNC,
              reassignmentId: 'r-1',
              submitter: ALICE,
              reassignmentCounter: 1,
              createdEvent,
            },
          },
          {
            JsUnassignedEvent: {
              value: {
                reassignmentId: 'r-2',
                contractId: createdEvent.contractId,
                templateId: createdEvent.templateId,
                source: SYNC,
                target: 'other::1220dd',
                submitter: null,
                reassignmentCounter: 2,
                assignmentExclusivity: null,
                witnessParties: [ALICE],
                packageName: 'splice-amulet',
                offset: 43,
                nodeId: 0,
              },
            },
          },
        ],
        traceContext: null,
        recordTime: '2025-03-01T10:12:00Z',
        synchronizerId: SYNC,
        paidTrafficCost: null,
      },
    },
  },
  topology: {
    TopologyTransaction: {
      value: {
        updateId: UPDATE_ID,
        offset: 44,
        synchronizerId: SYNC,
        recordTime: '2025-03-01T10:13:00Z',
        events: [
          {
            event: {
              ParticipantAuthorizationAdded: {
                value: {
                  partyId: ALICE,
                  participantId: PARTICIPANT,
                  participantPermission: 'PARTICIPANT_PERMISSION_CONFIRMATION',
                },
              },
            },
          },
          {
            event: {
              ParticipantAuthorizationRevoked: { value: { partyId: BOB, participantId: PARTICIPANT } },
            },
          },
        ],
        traceContext: null,
      },
    },
  },
} as const;

export const cantonErrors = {
  duplicate: {
    code: 'DUPLICATE_COMMAND',
    cause: 'A command with the given command id has already been successfully processed',
    correlationId: 'sub-0001',
    traceId: 'a1b2c3',
    context: {
      category: '10',
      definite_answer: 'false',
      completion_offset: '40',
      existingSubmissionId: 'sub-0000',
      changeId: 'x',
    },
    resources: [['COMMAND_ID', 'cmd-7f3a']],
    errorCategory: 10,
    grpcCodeValue: 6,
    retryInfo: null,
    definiteAnswer: false,
  },
  pruned: {
    code: 'PARTICIPANT_PRUNED_DATA_ACCESSED',
    cause: 'Updates request from 5 to 9 precedes pruned offset 20',
    correlationId: null,
    traceId: null,
    context: { category: '9', earliest_offset: '20' },
    resources: [],
    errorCategory: 9,
    grpcCodeValue: 9,
    retryInfo: null,
    definiteAnswer: null,
  },
};

export const prepareResponse = {
  preparedTransaction: 'CgMyLjESBGNtZDEaBAoCMA==',
  preparedTransactionHash: '47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=',
  hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  hashingDetails: null,
  costEstimation: {
    estimationTimestamp: '2025-03-01T10:11:12Z',
    confirmationRequestTrafficCostEstimation: 1500,
    confirmationResponseTrafficCostEstimation: 300,
    totalTrafficCostEstimation: 1800,
  },
};

export const vettedPackagesResponse = {
  vettedPackages: [
    {
      packages: [
        {
          packageId: PKG,
          validFromInclusive: '2025-01-01T00:00:00Z',
          validUntilExclusive: null,
          packageName: 'splice-amulet',
          packageVersion: '0.1.14',
        },
        {
          packageId: PKG.replace('a', 'b'),
          validFromInclusive: null,
          validUntilExclusive: null,
          packageName: null,
          packageVersion: null,
        },
      ],
      participantId: PARTICIPANT,
      synchronizerId: SYNC,
      topologySerial: 3,
    },
  ],
  nextPageToken: '',
};

export const user = {
  id: 'quill-backend',
  primaryParty: ALICE,
  isDeactivated: false,
  metadata: { resourceVersion: '7', annotations: { team: 'custody' } },
  identityProviderId: '',
};

export const format = {
  includeTransactions: {
    eventFormat: {
      filtersByParty: {
        [ALICE]: {
          cumulative: [
            { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } },
            {
              identifierFilter: {
                TemplateFilter: { value: { templateId: '#splice-amulet:Splice.Amulet:Amulet' } },
              },
            },
            {
              identifierFilter: {
                InterfaceFilter: {
                  value: { interfaceId: `#splice-api:Holding:Holding`, includeInterfaceView: true },
                },
              },
            },
          ],
        },
      },
      filtersForAnyParty: { cumulative: [{ identifierFilter: { Empty: {} } }] },
      verbose: true,
    },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA' as const,
  },
  includeReassignments: { filtersByParty: { [ALICE]: {} }, verbose: false },
  includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [ALICE] } },
};

export const signatures = {
  signatures: [
    {
      party: ALICE,
      signatures: [
        {
          format: 'SIGNATURE_FORMAT_CONCAT' as const,
          signature: Buffer.alloc(64, 7).toString('base64'),
          signedBy: FINGERPRINT,
          signingAlgorithmSpec: 'SIGNING_ALGORITHM_SPEC_ED25519' as const,
        },
      ],
    },
  ],
};

export const execute = {
  preparedTransaction: prepareResponse.preparedTransaction,
  partySignatures: signatures,
  deduplicationPeriod: { DeduplicationDuration: { value: { seconds: 600, nanos: 0 } } },
  submissionId: '9c1c3e0e-3f4a-4b43-9b0e-0d7f0f6d2a11',
  userId: 'quill-backend',
  hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2' as const,
  minLedgerTime: { time: { MinLedgerTimeRel: { value: { seconds: 5, nanos: 0 } } } },
};
