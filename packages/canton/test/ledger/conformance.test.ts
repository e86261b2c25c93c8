/**
 * Conformance with the participant's OpenAPI 3.5 document:
 * - the requests our client actually sends (recorded by a real HTTP server) validate against the spec's
 *   request schema of that endpoint;
 * - realistic responses validate against the spec's response schema and parse with our schemas.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as L from '../../src/ledger/index.ts';
import { ledgerSpec } from '../support/openapi.ts';
import {
  ALICE,
  BOB,
  cantonErrors,
  execute,
  format,
  jsTransaction,
  PARTICIPANT,
  PKG,
  prepareResponse,
  SYNC,
  signatures,
  UPDATE_ID,
  updates,
  user,
  vettedPackagesResponse,
} from './fixtures.ts';
import { json, startServer, type TestServer } from './http-server.ts';

const spec = ledgerSpec();
let server: TestServer;

/** The spec path template (`/v2/users/{user-id}`) that an actual request path matches. */
function specPath(actual: string, method: string): string {
  const paths = Object.keys(spec.raw.paths as object);
  const exact = paths.find((p) => p === actual);
  if (exact) return exact;
  const match = paths.find((p) => {
    const re = new RegExp(`^${p.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const ops = (spec.raw.paths as Record<string, Record<string, unknown>>)[p] ?? {};
    return re.test(actual) && method.toLowerCase() in ops;
  });
  if (!match) throw new Error(`no spec path for ${method} ${actual}`);
  return match;
}

const B64 = new Set(['preparedTransaction', 'preparedTransactionHash', 'topologyTransactions', 'multiHash']);
const TS = new Set([
  'effectiveAt',
  'recordTime',
  'createdAt',
  'estimationTimestamp',
  'validFromInclusive',
  'validUntilExclusive',
]);
const strings = (p: string) => (B64.has(p) ? 'CgQ=' : TS.has(p) ? '2025-01-01T00:00:00Z' : undefined);

beforeAll(async () => {
  // Answers every call with a spec-generated valid response, so each client call completes.
  server = await startServer((req, res) => {
    if (req.path.startsWith('/v2/updates') && !req.path.includes('-by-')) return json(res, 200, []);
    const component = spec.responseComponent(specPath(req.path, req.method), req.method);
    let body = component ? spec.sample(component, { mode: 'full', strings }) : {};
    if (req.path.startsWith('/v2/users/') && req.method === 'PATCH' && !req.path.endsWith('/rights')) {
      body = { user: (req.body as { user: unknown }).user };
    }
    json(res, 200, body);
  });
});
afterAll(async () => {
  await server.close();
});

const calls: Array<[string, (c: L.LedgerClient) => Promise<unknown>]> = [
  [
    'package-vetting/list',
    (c) =>
      c.listVettedPackages({
        packageMetadataFilter: { packageIds: [PKG], packageNamePrefixes: ['splice-'] },
        // The filter takes unique identifiers: the participant id without its `PAR::` member prefix.
        topologyStateFilter: { participantIds: [PARTICIPANT.replace(/^PAR::/, '')], synchronizerIds: [SYNC] },
        pageToken: '',
        pageSize: 100,
      }),
  ],
  [
    'updates/flats (updateFormat, descending)',
    (c) =>
      c.updatesFlats(
        { beginExclusive: 10, endInclusive: 20, updateFormat: format, descendingOrder: true },
        { limit: 100 },
      ),
  ],
  [
    'updates/flats (legacy filter)',
    (c) =>
      c.updatesFlats({
        beginExclusive: 0,
        endInclusive: 5,
        filter: { filtersByParty: { [ALICE]: {} } },
        verbose: true,
      }),
  ],
  ['updates', (c) => c.updates({ beginExclusive: 0, endInclusive: 5, updateFormat: format })],
  [
    'transaction-by-offset (format)',
    (c) => c.transactionByOffset({ offset: 42, transactionFormat: format.includeTransactions }),
  ],
  [
    'transaction-by-offset (legacy parties)',
    (c) => c.transactionByOffset({ offset: 42, requestingParties: [ALICE] }),
  ],
  [
    'transaction-by-id',
    (c) => c.transactionById({ updateId: UPDATE_ID, transactionFormat: format.includeTransactions }),
  ],
  ['update-by-offset', (c) => c.updateByOffset({ offset: 42, updateFormat: format })],
  ['update-by-id', (c) => c.updateById({ updateId: UPDATE_ID, updateFormat: format })],
  [
    'users/{user-id} PATCH',
    (c) => c.updateUser(user.id, { user, updateMask: { paths: ['primary_party', 'metadata.annotations'] } }),
  ],
  [
    'prepare',
    (c) =>
      c.prepare({
        userId: 'quill-backend',
        commandId: 'cmd-7f3a',
        commands: [
          {
            ExerciseCommand: {
              templateId: `#splice-amulet:Splice.AmuletRules:AmuletRules`,
              contractId: '00ab',
              choice: 'AmuletRules_Transfer',
              choiceArgument: { transfer: { sender: ALICE } },
            },
          },
        ],
        minLedgerTime: { time: { MinLedgerTimeAbs: { value: '2025-03-01T10:00:00Z' } } },
        actAs: [ALICE],
        readAs: [],
        disclosedContracts: [
          { templateId: `${PKG}:M:T`, contractId: '00cd', createdEventBlob: 'CgQ=', synchronizerId: SYNC },
        ],
        synchronizerId: SYNC,
        packageIdSelectionPreference: [],
        verboseHashing: false,
        maxRecordTime: '2025-03-01T11:00:00Z',
        estimateTrafficCost: { disabled: false, expectedSignatures: ['SIGNING_ALGORITHM_SPEC_ED25519'] },
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
      }),
  ],
  ['execute', (c) => c.execute({ ...execute, deduplicationPeriod: { Empty: {} } })],
  [
    'executeAndWait',
    (c) => c.executeAndWait({ ...execute, deduplicationPeriod: { DeduplicationOffset: { value: 40 } } }),
  ],
  [
    'executeAndWaitForTransaction',
    (c) => c.executeAndWaitForTransaction({ ...execute, transactionFormat: format.includeTransactions }),
  ],
  [
    'generate-topology',
    (c) =>
      c.generateExternalPartyTopology({
        synchronizer: SYNC,
        partyHint: 'alice',
        publicKey: {
          format: 'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
          keyData: 'MCowBQYDK2VwAyEA',
          keySpec: 'SIGNING_KEY_SPEC_EC_CURVE25519',
        },
        localParticipantObservationOnly: false,
        otherConfirmingParticipantUids: [],
        confirmationThreshold: 1,
        observingParticipantUids: [],
      }),
  ],
  [
    'allocate',
    (c) =>
      c.allocateExternalParty({
        synchronizer: SYNC,
        onboardingTransactions: [{ transaction: 'CgQ=' }],
        multiHashSignatures: signatures.signatures[0]!.signatures,
        identityProviderId: '',
        waitForAllocation: true,
      }),
  ],
  [
    'events-by-contract-id',
    (c) => c.eventsByContractId({ contractId: '00ab', eventFormat: format.includeReassignments }),
  ],
  [
    'users POST',
    (c) =>
      c.createUser({
        user: { id: 'u2', primaryParty: BOB, isDeactivated: false },
        rights: [
          { kind: { CanActAs: { value: { party: BOB } } } },
          { kind: { CanReadAsAnyParty: { value: {} } } },
        ],
      }),
  ],
  [
    'rights POST',
    (c) => c.grantUserRights('u2', { rights: [{ kind: { CanExecuteAs: { value: { party: BOB } } } }] }),
  ],
  [
    'rights PATCH',
    (c) => c.revokeUserRights('u2', { rights: [{ kind: { ParticipantAdmin: { value: {} } } }] }),
  ],
];

describe('requests the client builds validate against the spec', () => {
  for (const [name, call] of calls) {
    it(name, async () => {
      const before = server.requests.length;
      await call(new L.LedgerClient({ baseUrl: server.url, token: 'tok' }));
      const sent = server.requests.slice(before);
      expect(sent).toHaveLength(1);
      const req = sent[0]!;
      spec.expectValidRequest(specPath(req.path, req.method), req.method, req.body);
    });
  }

  it('GET endpoints take no body and answer with spec-shaped responses we parse', async () => {
    const c = new L.LedgerClient({ baseUrl: server.url });
    await c.version();
    await c.ledgerEnd();
    await c.latestPrunedOffsets();
    await c.connectedSynchronizers({ party: ALICE });
    await c.listParties({ pageSize: 10 });
    await c.getParty(ALICE);
    await c.participantId();
    await c.authenticatedUser();
    await c.listUsers({ pageSize: 5 });
    await c.getUser('u2');
    await c.listUserRights('u2');
    await c.deleteUser('u2');
    expect(server.requests.slice(-12).every((r) => r.raw === '')).toBe(true);
  });
});

describe('realistic responses conform to the spec and parse with our schemas', () => {
  const cases: Array<[string, string, string, unknown, { parse(v: unknown): unknown }]> = [
    [
      'transaction-by-id',
      '/v2/updates/transaction-by-id',
      'post',
      { transaction: jsTransaction },
      L.JsGetTransactionResponse,
    ],
    [
      'update-by-offset',
      '/v2/updates/update-by-offset',
      'post',
      { update: updates.ledgerEffects },
      L.JsGetUpdateResponse,
    ],
    [
      'updates/flats',
      '/v2/updates/flats',
      'post',
      Object.values(updates).map((update) => ({ update })),
      L.JsGetUpdatesResponseList,
    ],
    ['prepare', '/v2/interactive-submission/prepare', 'post', prepareResponse, L.JsPrepareSubmissionResponse],
    [
      'executeAndWaitForTransaction',
      '/v2/interactive-submission/executeAndWaitForTransaction',
      'post',
      { transaction: { ...jsTransaction, events: [] } },
      L.JsExecuteSubmissionAndWaitForTransactionResponse,
    ],
    [
      'package-vetting/list',
      '/v2/package-vetting/list',
      'post',
      vettedPackagesResponse,
      L.ListVettedPackagesResponse,
    ],
    ['users PATCH', '/v2/users/{user-id}', 'patch', { user }, L.UpdateUserResponse],
    ['ledger-end', '/v2/state/ledger-end', 'get', { offset: 42 }, L.GetLedgerEndResponse],
    [
      'latest-pruned-offsets',
      '/v2/state/latest-pruned-offsets',
      'get',
      { participantPrunedUpToInclusive: 0, allDivulgedContractsPrunedUpToInclusive: null },
      L.GetLatestPrunedOffsetsResponse,
    ],
    [
      'duplicate command error',
      '/v2/interactive-submission/executeAndWaitForTransaction',
      'post',
      cantonErrors.duplicate,
      L.JsCantonError,
    ],
    ['pruned error', '/v2/updates/flats', 'post', cantonErrors.pruned, L.JsCantonError],
  ];
  for (const [name, path, method, body, schema] of cases) {
    it(name, () => {
      const status = name.includes('error') ? 409 : 200;
      spec.expectValidResponse(path, method, status, body);
      expect(() => schema.parse(body)).not.toThrow();
    });
  }

  it('the spec validator is not vacuous: it rejects a transaction without updateId', () => {
    const { updateId: _omit, ...broken } = jsTransaction;
    expect(
      spec.validateResponse('/v2/updates/transaction-by-id', 'post', 200, { transaction: broken }).valid,
    ).toBe(false);
    expect(L.JsGetTransactionResponse.safeParse({ transaction: broken }).success).toBe(false);
  });
});

describe('real prepare responses', () => {
  it('the captured prepared transactions and hashes parse as JsPrepareSubmissionResponse and conform', async () => {
    const { readFileSync } = await import('node:fs');
    const file = new URL('../fixtures/vectors/participant-captured.json', import.meta.url);
    const captured = JSON.parse(readFileSync(file, 'utf8')) as Array<{
      preparedTransactionBase64: string;
      expectedHashBase64: string;
      hashingSchemeVersion: string;
    }>;
    expect(captured.length).toBeGreaterThan(0);
    for (const c of captured) {
      const body = {
        preparedTransaction: c.preparedTransactionBase64,
        preparedTransactionHash: c.expectedHashBase64,
        hashingSchemeVersion: c.hashingSchemeVersion,
        hashingDetails: null,
        costEstimation: null,
      };
      spec.expectValidResponse('/v2/interactive-submission/prepare', 'post', 200, body);
      const parsed = L.JsPrepareSubmissionResponse.parse(body);
      expect(Buffer.from(parsed.preparedTransactionHash, 'base64')).toHaveLength(32);
    }
  });
});
