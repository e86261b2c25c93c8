// A scripted scenario over real HTTP: every response of every endpoint validates against the participant's
// OpenAPI 3.5 document, and the activity feed against the scan spec after the coin renaming.

import { ledgerSpec, scanSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mint } from '../src/index.ts';
import {
  type Answer,
  COIN,
  call,
  createdOf,
  executeBody,
  newKey,
  onboard,
  type Party,
  prepareBody,
  publicKeyJson,
  type Sandbox,
  sandboxWithAdmin,
  signWith,
  tapCommand,
} from './helpers.ts';

let sb: Sandbox;
let admin: string;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
});
afterAll(async () => {
  await sb?.close();
});

/** Calls the sandbox, expects 200 and validates the body against the spec operation `specPath`. */
async function ok(
  specPath: string,
  method: string,
  path: string,
  body?: unknown,
  token = admin,
): Promise<Answer['json']> {
  const a = await call(sb.url, method, path, body, token);
  expect(a.status, `${method} ${path}: ${a.text}`).toBe(200);
  ledgerSpec().expectValidResponse(specPath, method.toLowerCase(), 200, a.json);
  return a.json;
}

describe('scripted scenario, spec-validated', () => {
  let alice: Party;
  let bob: Party;

  test('external party onboarding with a RAW Ed25519 key, SDK-style (no Content-Type, encoded path)', async () => {
    const key = newKey('ed25519');
    const synchronizer = sb.state.defaultSynchronizer;
    const topo = await ok(
      '/v2/parties/external/generate-topology',
      'POST',
      '/v2/parties/external/generate-topology',
      {
        synchronizer,
        partyHint: 'alice',
        publicKey: publicKeyJson(key, true),
        localParticipantObservationOnly: false,
        confirmationThreshold: 1,
        otherConfirmingParticipantUids: [],
        observingParticipantUids: [],
      },
    );
    expect(topo.partyId).toBe(`alice::${topo.publicKeyFingerprint}`);
    const before = await ok('/v2/parties/{party}', 'GET', `/v2/parties/${encodeURIComponent(topo.partyId)}`);
    expect(before.partyDetails).toEqual([]);
    const alloc = await ok('/v2/parties/external/allocate', 'POST', '/v2/parties/external/allocate', {
      synchronizer,
      identityProviderId: '',
      onboardingTransactions: topo.topologyTransactions.map((transaction: string) => ({ transaction })),
      multiHashSignatures: [signWith(key, Buffer.from(topo.multiHash, 'base64'), topo.publicKeyFingerprint)],
    });
    expect(alloc.partyId).toBe(topo.partyId);
    const after = await ok('/v2/parties/{party}', 'GET', `/v2/parties/${encodeURIComponent(topo.partyId)}`);
    expect(after.partyDetails[0].party).toBe(topo.partyId);
    expect((await ok('/v2/parties', 'GET', '/v2/parties')).partyDetails.length).toBeGreaterThan(1);
    const userId = 'alice-user';
    await ok('/v2/users', 'POST', '/v2/users', {
      user: { id: userId, primaryParty: topo.partyId, isDeactivated: false, identityProviderId: '' },
    });
    const granted = await ok('/v2/users/{user-id}/rights', 'POST', `/v2/users/${userId}/rights`, {
      userId,
      identityProviderId: '',
      rights: [{ kind: { CanActAs: { value: { party: topo.partyId } } } }],
    });
    expect(granted.newlyGrantedRights).toHaveLength(1);
    alice = {
      partyId: topo.partyId,
      fingerprint: topo.publicKeyFingerprint,
      key,
      userId,
      token: await sb.mintToken(userId),
    };
    bob = await onboard(sb, admin, 'p256', 'bob');
  });

  test('coin flows: tap, transfer, transfer instructions (accept, reject, withdraw), V2 and V3', async () => {
    const prep = await ok(
      '/v2/interactive-submission/prepare',
      'POST',
      '/v2/interactive-submission/prepare',
      prepareBody(alice, [tapCommand(sb, alice.partyId, '100.0000000000')]),
      alice.token,
    );
    expect(prep.hashingSchemeVersion).toBe('HASHING_SCHEME_VERSION_V2');
    const tapped = await ok(
      '/v2/interactive-submission/executeAndWaitForTransaction',
      'POST',
      '/v2/interactive-submission/executeAndWaitForTransaction',
      executeBody(alice, prep),
      alice.token,
    );
    expect(tapped.transaction.externalTransactionHash).toBe(
      Buffer.from(prep.preparedTransactionHash, 'base64').toString('hex'),
    );
    const [holding] = createdOf(tapped.transaction, 'Holding', alice.partyId);

    const prep2 = await ok(
      '/v2/interactive-submission/prepare',
      'POST',
      '/v2/interactive-submission/prepare',
      prepareBody(
        alice,
        [
          {
            ExerciseCommand: {
              templateId: COIN('Holding'),
              contractId: holding,
              choice: 'Holding_Transfer',
              choiceArgument: { receiver: bob.partyId, amount: '30.0000000000' },
            },
          },
        ],
        { hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3' },
      ),
      alice.token,
    );
    expect(prep2.hashingSchemeVersion).toBe('HASHING_SCHEME_VERSION_V3');
    const done = await ok(
      '/v2/interactive-submission/executeAndWait',
      'POST',
      '/v2/interactive-submission/executeAndWait',
      executeBody(alice, prep2),
      alice.token,
    );
    const byId = await ok(
      '/v2/updates/transaction-by-id',
      'POST',
      '/v2/updates/transaction-by-id',
      {
        updateId: done.updateId,
        transactionFormat: {
          eventFormat: {
            filtersByParty: {
              [bob.partyId]: {
                cumulative: [
                  { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } },
                ],
              },
            },
            verbose: false,
          },
          transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
        },
      },
      bob.token,
    );
    expect(byId.transaction.offset).toBe(done.completionOffset);
    const bobHolding = createdOf(byId.transaction, 'Holding', bob.partyId)[0]!;
    const change = createdOf(
      (
        await ok(
          '/v2/updates/transaction-by-offset',
          'POST',
          '/v2/updates/transaction-by-offset',
          { offset: done.completionOffset, requestingParties: [alice.partyId] },
          alice.token,
        )
      ).transaction,
      'Holding',
      alice.partyId,
    )[0]!;
    const wildcard = {
      includeTransactions: {
        eventFormat: { filtersByParty: { [alice.partyId]: {} }, verbose: true },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    };
    await ok(
      '/v2/updates/update-by-offset',
      'POST',
      '/v2/updates/update-by-offset',
      { offset: done.completionOffset, updateFormat: wildcard },
      alice.token,
    );
    await ok(
      '/v2/updates/update-by-id',
      'POST',
      '/v2/updates/update-by-id',
      { updateId: done.updateId, updateFormat: wildcard },
      alice.token,
    );

    const instruct = async (amount: string, from: string) => {
      const p = await ok(
        '/v2/interactive-submission/prepare',
        'POST',
        '/v2/interactive-submission/prepare',
        prepareBody(alice, [
          {
            ExerciseCommand: {
              templateId: COIN('Holding'),
              contractId: from,
              choice: 'Holding_CreateTransferInstruction',
              choiceArgument: { receiver: bob.partyId, amount, description: 'rent' },
            },
          },
        ]),
        alice.token,
      );
      const e = await ok(
        '/v2/interactive-submission/executeAndWaitForTransaction',
        'POST',
        '/v2/interactive-submission/executeAndWaitForTransaction',
        executeBody(alice, p),
        alice.token,
      );
      return {
        instruction: createdOf(e.transaction, 'TransferInstruction')[0]!,
        change: createdOf(e.transaction, 'Holding', alice.partyId)[0]!,
      };
    };
    const act = async (who: Party, cid: string, choice: string) => {
      const p = await ok(
        '/v2/interactive-submission/prepare',
        'POST',
        '/v2/interactive-submission/prepare',
        prepareBody(who, [
          {
            ExerciseCommand: {
              templateId: COIN('TransferInstruction'),
              contractId: cid,
              choice,
              choiceArgument: {},
            },
          },
        ]),
        who.token,
      );
      expect(
        await ok(
          '/v2/interactive-submission/execute',
          'POST',
          '/v2/interactive-submission/execute',
          executeBody(who, p),
          who.token,
        ),
      ).toEqual({});
    };
    const i1 = await instruct('10.0000000000', change);
    await act(bob, i1.instruction, 'TransferInstruction_Accept');
    const i2 = await instruct('5.0000000000', i1.change);
    await act(bob, i2.instruction, 'TransferInstruction_Reject');
    const i3 = await instruct('5.0000000000', i2.change);
    await act(alice, i3.instruction, 'TransferInstruction_Withdraw');
    mint(sb.state, bob.partyId, '7.5000000000');

    const events = await ok(
      '/v2/events/events-by-contract-id',
      'POST',
      '/v2/events/events-by-contract-id',
      {
        contractId: bobHolding,
        eventFormat: { filtersByParty: { [bob.partyId]: { cumulative: [] } }, verbose: true },
      },
      bob.token,
    );
    expect(events.created.createdEvent.createArgument).toEqual({
      operator: sb.state.operator,
      owner: bob.partyId,
      amount: '30.0000000000',
    });
  });

  test('updates: flats with updateFormat and with the legacy filter, vetting list', async () => {
    const end = (await ok('/v2/state/ledger-end', 'GET', '/v2/state/ledger-end')).offset;
    const modern = await ok(
      '/v2/updates/flats',
      'POST',
      '/v2/updates/flats?limit=100',
      {
        beginExclusive: 0,
        endInclusive: end,
        verbose: false,
        updateFormat: {
          includeTransactions: {
            eventFormat: {
              filtersByParty: { [alice.partyId]: { cumulative: [{ identifierFilter: { Empty: {} } }] } },
              verbose: false,
            },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
          includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [alice.partyId] } },
        },
      },
      alice.token,
    );
    const kinds = modern.map((u: { update: object }) => Object.keys(u.update)[0]);
    expect(kinds).toContain('Transaction');
    expect(kinds).toContain('TopologyTransaction');
    const legacy = await ok(
      '/v2/updates/flats',
      'POST',
      '/v2/updates/flats',
      {
        beginExclusive: 0,
        endInclusive: end,
        filter: { filtersByParty: { [bob.partyId]: {} } },
        verbose: true,
      },
      bob.token,
    );
    expect(legacy.length).toBeGreaterThan(2);
    const desc = await ok(
      '/v2/updates/flats',
      'POST',
      '/v2/updates/flats',
      {
        beginExclusive: 0,
        endInclusive: end,
        descendingOrder: true,
        filter: { filtersByParty: { [bob.partyId]: {} } },
      },
      bob.token,
    );
    const offsets = desc.map(
      (u: { update: Record<string, { value: { offset: number } }> }) =>
        Object.values(u.update)[0]!.value.offset,
    );
    expect(offsets).toEqual([...offsets].sort((a, b) => b - a));
    const vetted = await ok('/v2/package-vetting/list', 'POST', '/v2/package-vetting/list', { pageSize: 0 });
    expect(vetted.vettedPackages[0].packages.map((p: { packageName: string }) => p.packageName)).toContain(
      'quill-coin',
    );
  });

  test('activity feed validates against the scan spec (coin renaming) and pages as INTERFACE.md 4.8 says', async () => {
    const page = await call(sb.scanUrl, 'POST', '/v0/activities', { page_size: 100 });
    expect(page.status).toBe(200);
    scanSpec().expectValidResponse('/v0/activities', 'post', 200, page.json);
    const types = page.json.activities.map(
      (a: {
        activity_type: string;
        transfer: { transfer_kind: string } | null;
        abort_transfer_instruction: { abort_kind: string } | null;
      }) => a.transfer?.transfer_kind ?? a.abort_transfer_instruction?.abort_kind ?? a.activity_type,
    );
    // Oldest first: the document's "event_id greater than begin_after_id" pages forward.
    expect(types).toEqual([
      'devnet_tap',
      'transfer',
      'create_transfer_instruction',
      'transfer_instruction_accept',
      'create_transfer_instruction',
      'reject',
      'create_transfer_instruction',
      'withdraw',
      'mint',
    ]);
    // Event ids increase monotonically as strings (INTERFACE.md: Activity.event_id).
    const ids = page.json.activities.map((a: { event_id: string }) => a.event_id);
    expect(ids).toEqual([...ids].sort());
    expect(new Set(ids).size).toBe(ids.length);
    const first = await call(sb.scanUrl, 'POST', '/api/scan/v0/activities', { page_size: 4 });
    const next = await call(sb.scanUrl, 'POST', '/v0/activities', {
      page_size: 4,
      begin_after_id: first.json.activities[3].event_id,
    });
    expect(next.json.activities.map((a: { event_id: string }) => a.event_id)).toEqual(ids.slice(4, 8));
    // Any string is a bound, known or not: every activity has an id greater than it.
    for (const bound of ['', '#', ids[2]!.slice(0, -1)]) {
      const after = await call(sb.scanUrl, 'POST', '/v0/activities', {
        page_size: 100,
        begin_after_id: bound,
      });
      expect(after.json.activities.map((a: { event_id: string }) => a.event_id)).toEqual(
        ids.filter((id: string) => id > bound),
      );
    }
    expect(
      (
        await call(sb.scanUrl, 'POST', '/v0/activities', {
          page_size: 4,
          begin_after_id: '~after everything',
        })
      ).json,
    ).toEqual({ activities: [] });
    const zero = await call(sb.scanUrl, 'POST', '/v0/activities', { page_size: 0 });
    expect([zero.status, zero.json]).toEqual([400, { error: 'Limit must be at least 1.' }]);
    const big = await call(sb.scanUrl, 'POST', '/v0/activities', { page_size: 1001 });
    expect([big.status, big.json]).toEqual([400, { error: 'Exceeded limit maximum (1001 > 1000).' }]);
  });
});
