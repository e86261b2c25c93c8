// What INTERFACE.md names and the sandbox now produces (issue 19, item 7): reassignments between two
// synchronizers (sandbox admin unassign/assign) in 4.2 and 4.5 under includeReassignments, topology events when
// a party's hosting changes (Added, Changed, Revoked), and the deprecated tree form (/v2/updates/trees and the
// tree lookups by offset and id) with its rule. Every answer validates against the 3.5 spec.

import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  COIN,
  call,
  createdOf,
  expectLedgerError,
  expectRedacted,
  onboard,
  type Party,
  run,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;
let reader: string; // a user with CanReadAsAnyParty
let holding: string;
let tapOffset: number;
let tapUpdateId: string;
let unassigned: { updateId: string; offset: number; reassignmentId: string };
let assigned: { updateId: string; offset: number; reassignmentId: string };
let global: string;
let second: string;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  [global, second] = sb.state.synchronizers.map((s) => s.id) as [string, string];
  alice = await onboard(sb, admin, 'ed25519', 'alice');
  bob = await onboard(sb, admin, 'ed25519', 'bob');
  const created = await call(
    sb.url,
    'POST',
    '/v2/users',
    { user: { id: 'any-reader' }, rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }] },
    admin,
  );
  expect(created.status, created.text).toBe(200);
  reader = await sb.mintToken('any-reader');
  const tx = await run(sb, alice, [tapCommand(sb, alice.partyId, '5.0000000000')]);
  tapOffset = tx.offset;
  tapUpdateId = tx.updateId;
  holding = createdOf(tx, 'Holding', alice.partyId)[0]!;
  const un = await call(
    sb.url,
    'POST',
    '/admin/unassign',
    { contractId: holding, target: second, submitter: alice.partyId },
    admin,
  );
  expect(un.status, un.text).toBe(200);
  unassigned = un.json;
  const as = await call(
    sb.url,
    'POST',
    '/admin/assign',
    { reassignmentId: unassigned.reassignmentId, submitter: alice.partyId },
    admin,
  );
  expect(as.status, as.text).toBe(200);
  assigned = as.json;
});
afterAll(async () => {
  await sb?.close();
});

const reassignmentsFor = (eventFormat: Record<string, unknown>) => ({
  beginExclusive: 0,
  endInclusive: sb.state.log.end,
  updateFormat: { includeReassignments: eventFormat },
});

async function updates(path: string, body: unknown, token: string) {
  const a = await call(sb.url, 'POST', path, body, token);
  expect(a.status, a.text).toBe(200);
  ledgerSpec().expectValidResponse(path, 'post', 200, a.json);
  return a.json as { update: Record<string, { value: Record<string, unknown> }> }[];
}

describe('reassignments (4.2, 4.5)', () => {
  test('unassign then assign: two Reassignment updates for a stakeholder, on source then target', async () => {
    const list = await updates(
      '/v2/updates',
      reassignmentsFor({ filtersByParty: { [alice.partyId]: {} } }),
      alice.token,
    );
    const re = list.filter((u) => 'Reassignment' in u.update).map((u) => u.update.Reassignment!.value);
    expect(re.map((r) => r.offset)).toEqual([unassigned.offset, assigned.offset]);
    const [out, back] = re as [
      { synchronizerId: string; events: [{ JsUnassignedEvent: { value: Record<string, unknown> } }] },
      {
        synchronizerId: string;
        events: [{ JsAssignmentEvent: Record<string, unknown> & { createdEvent: Record<string, unknown> } }];
      },
    ];
    expect(out.synchronizerId).toBe(global);
    expect(out.events[0].JsUnassignedEvent.value).toMatchObject({
      reassignmentId: unassigned.reassignmentId,
      contractId: holding,
      source: global,
      target: second,
      submitter: alice.partyId,
      reassignmentCounter: 0,
      witnessParties: [alice.partyId],
    });
    expect(back.synchronizerId).toBe(second);
    expect(back.events[0].JsAssignmentEvent).toMatchObject({
      source: global,
      target: second,
      reassignmentId: unassigned.reassignmentId,
      reassignmentCounter: 1,
    });
    expect(back.events[0].JsAssignmentEvent.createdEvent).toMatchObject({
      contractId: holding,
      offset: assigned.offset,
    });
    // Transactions are not asked for: the tap is not in the list.
    expect(list.some((u) => 'Transaction' in u.update)).toBe(false);
  });

  test('filtersForAnyParty sees them; a party that is no stakeholder does not; without includeReassignments none', async () => {
    const any = await updates('/v2/updates', reassignmentsFor({ filtersForAnyParty: {} }), reader);
    expect(any.filter((u) => 'Reassignment' in u.update)).toHaveLength(2);
    const other = await updates(
      '/v2/updates',
      reassignmentsFor({ filtersByParty: { [bob.partyId]: {} } }),
      bob.token,
    );
    expect(other.filter((u) => 'Reassignment' in u.update)).toHaveLength(0);
    const txOnly = await updates(
      '/v2/updates',
      {
        beginExclusive: 0,
        updateFormat: {
          includeTransactions: {
            eventFormat: { filtersByParty: { [alice.partyId]: {} } },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      },
      alice.token,
    );
    expect(txOnly.filter((u) => 'Reassignment' in u.update)).toHaveLength(0);
  });

  test('the legacy filter includes reassignments (INTERFACE.md 4.2 default updateFormat)', async () => {
    const flats = await updates(
      '/v2/updates/flats',
      { beginExclusive: 0, filter: { filtersByParty: { [alice.partyId]: {} } } },
      alice.token,
    );
    expect(flats.filter((u) => 'Reassignment' in u.update)).toHaveLength(2);
  });

  test('read rights are needed for the reassignment filters (403 otherwise)', async () => {
    await expectRedacted(
      sb.url,
      {
        specPath: '/v2/updates',
        method: 'POST',
        path: '/v2/updates',
        body: reassignmentsFor({ filtersByParty: { [alice.partyId]: {} } }),
        token: bob.token,
      },
      403,
    );
  });

  test('4.5: update-by-offset and update-by-id return a Reassignment under includeReassignments, 404 without', async () => {
    const format = { includeReassignments: { filtersByParty: { [alice.partyId]: {} } } };
    const byOffset = await updates(
      '/v2/updates/update-by-offset',
      { offset: unassigned.offset, updateFormat: format },
      alice.token,
    );
    expect(
      (byOffset as unknown as { update: { Reassignment: { value: { updateId: string } } } }).update
        .Reassignment.value.updateId,
    ).toBe(unassigned.updateId);
    const byId = await updates(
      '/v2/updates/update-by-id',
      { updateId: assigned.updateId, updateFormat: format },
      alice.token,
    );
    expect(
      (byId as unknown as { update: { Reassignment: { value: { offset: number } } } }).update.Reassignment
        .value.offset,
    ).toBe(assigned.offset);
    const txFormat = {
      includeTransactions: {
        eventFormat: { filtersByParty: { [alice.partyId]: {} } },
        transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
      },
    };
    await expectLedgerError(
      sb.url,
      {
        specPath: '/v2/updates/update-by-offset',
        method: 'POST',
        path: '/v2/updates/update-by-offset',
        body: { offset: unassigned.offset, updateFormat: txFormat },
        token: alice.token,
      },
      404,
      'UPDATE_NOT_FOUND',
    );
  });

  test('an unassigned contract is usable nowhere; a second assignment or a bad target is refused', async () => {
    const un = await call(sb.url, 'POST', '/admin/unassign', { contractId: holding, target: global }, admin);
    expect(un.status, un.text).toBe(200);
    expect(sb.state.isActive(holding)).toBe(false);
    const again = await call(
      sb.url,
      'POST',
      '/admin/unassign',
      { contractId: holding, target: global },
      admin,
    );
    // LOCAL_VERDICT_INACTIVE_CONTRACTS is category 11 (LocalRejectError.ConsistencyRejections.InactiveContracts).
    expect(again.status).toBe(404);
    const back = await call(
      sb.url,
      'POST',
      '/admin/assign',
      { reassignmentId: un.json.reassignmentId },
      admin,
    );
    expect(back.status, back.text).toBe(200);
    expect(sb.state.isActive(holding)).toBe(true);
    expect(sb.state.contracts.get(holding)).toMatchObject({ synchronizerId: global, reassignmentCounter: 2 });
    expect(
      (await call(sb.url, 'POST', '/admin/assign', { reassignmentId: un.json.reassignmentId }, admin)).status,
    ).toBe(400);
    expect(
      (await call(sb.url, 'POST', '/admin/unassign', { contractId: holding, target: 'nowhere::1220' }, admin))
        .status,
    ).toBe(400);
    expect(
      (await call(sb.url, 'POST', '/admin/unassign', { contractId: holding, target: second }, alice.token))
        .status,
    ).toBe(403);
  });
});

describe('topology events when hosting changes', () => {
  test('Added at onboarding, Changed on a new permission, Revoked when the hosting ends', async () => {
    const changed = await call(
      sb.url,
      'POST',
      '/admin/hosting',
      { partyId: bob.partyId, permission: 'OBSERVATION' },
      admin,
    );
    expect(changed.status, changed.text).toBe(200);
    const revoked = await call(
      sb.url,
      'POST',
      '/admin/hosting',
      { partyId: bob.partyId, permission: null },
      admin,
    );
    expect(revoked.status, revoked.text).toBe(200);
    const list = await updates(
      '/v2/updates',
      {
        beginExclusive: 0,
        updateFormat: {
          includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [bob.partyId] } },
        },
      },
      bob.token,
    );
    const events = list.flatMap((u) =>
      (
        (u.update.TopologyTransaction?.value.events ?? []) as {
          event: Record<string, { value: Record<string, string> }>;
        }[]
      ).map((e) => Object.entries(e.event)[0]!),
    );
    expect(events.map(([kind]) => kind)).toEqual([
      'ParticipantAuthorizationAdded',
      'ParticipantAuthorizationChanged',
      'ParticipantAuthorizationRevoked',
    ]);
    expect(events[1]![1].value).toMatchObject({
      partyId: bob.partyId,
      participantPermission: 'PARTICIPANT_PERMISSION_OBSERVATION',
    });
    expect(events[2]![1].value).toEqual({ partyId: bob.partyId, participantId: sb.state.participantId });
    // Alice's topology filter does not see bob's.
    const alices = await updates(
      '/v2/updates',
      {
        beginExclusive: 0,
        updateFormat: {
          includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: [alice.partyId] } },
        },
      },
      alice.token,
    );
    expect(JSON.stringify(alices)).not.toContain(bob.partyId);
    // Revoking what is not hosted, an unknown synchronizer or party, and garbage are refused.
    expect((await call(sb.url, 'POST', '/admin/hosting', { partyId: bob.partyId }, admin)).status).toBe(400);
    const elsewhere = { partyId: bob.partyId, synchronizerId: 'nowhere::1220', permission: 'OBSERVATION' };
    expect((await call(sb.url, 'POST', '/admin/hosting', elsewhere, admin)).status).toBe(400);
    const nobody = await call(sb.url, 'POST', '/admin/hosting', { partyId: 'nobody::1220' }, admin);
    expect([nobody.status, nobody.json.code]).toEqual([400, 'PARTY_NOT_KNOWN_ON_LEDGER']);
    expect((await call(sb.url, 'POST', '/admin/hosting', '{nope', admin)).status).toBe(400);
  });
});

describe('the deprecated tree form', () => {
  const treeFilter = (party: string) => ({ filtersByParty: { [party]: {} } });

  test('/v2/updates/trees: transaction trees keyed by node id, and reassignments', async () => {
    const list = await updates(
      '/v2/updates/trees',
      { beginExclusive: 0, filter: treeFilter(alice.partyId), verbose: true },
      alice.token,
    );
    const trees = list
      .filter((u) => 'TransactionTree' in u.update)
      .map((u) => u.update.TransactionTree!.value);
    const tap = trees.find((t) => t.updateId === tapUpdateId) as {
      eventsById: Record<string, Record<string, { value: { nodeId: number } }>>;
    };
    expect(tap).toBeDefined();
    for (const [id, ev] of Object.entries(tap.eventsById)) {
      const [kind, body] = Object.entries(ev)[0]!;
      expect(['CreatedTreeEvent', 'ExercisedTreeEvent']).toContain(kind);
      expect(String(body.value.nodeId)).toBe(id);
    }
    // LEDGER_EFFECTS: the tap's exercise is there, not only its create.
    expect(Object.values(tap.eventsById).some((e) => 'ExercisedTreeEvent' in e)).toBe(true);
    expect(list.filter((u) => 'Reassignment' in u.update).length).toBeGreaterThanOrEqual(2);
  });

  test('its rule: updateFormat unset, template filters empty', async () => {
    const path = '/v2/updates/trees';
    const refuse = (body: unknown) =>
      expectLedgerError(
        sb.url,
        { specPath: path, method: 'POST', path, body, token: alice.token },
        400,
        'INVALID_ARGUMENT',
      );
    const withFormat = await refuse({
      beginExclusive: 0,
      updateFormat: { includeReassignments: treeFilter(alice.partyId) },
    });
    expect(withFormat.cause).toContain('update_format must be unset');
    const templated = await refuse({
      beginExclusive: 0,
      filter: {
        filtersByParty: {
          [alice.partyId]: {
            cumulative: [
              { identifierFilter: { TemplateFilter: { value: { templateId: COIN('Holding') } } } },
            ],
          },
        },
      },
    });
    expect(templated.cause).toContain('template filters must be empty');
  });

  test('tree lookups by offset and by id; unknown is 404, a bad offset or no party 400', async () => {
    for (const path of [
      `/v2/updates/transaction-tree-by-offset/${tapOffset}?parties=${encodeURIComponent(alice.partyId)}`,
      `/v2/updates/transaction-tree-by-id/${tapUpdateId}?parties=${encodeURIComponent(alice.partyId)}&parties=${encodeURIComponent(bob.partyId)}`,
    ]) {
      const token = path.includes('by-id') ? reader : alice.token;
      const a = await call(sb.url, 'GET', path, undefined, token);
      expect(a.status, a.text).toBe(200);
      const spec = path.includes('by-id')
        ? '/v2/updates/transaction-tree-by-id/{update-id}'
        : '/v2/updates/transaction-tree-by-offset/{offset}';
      ledgerSpec().expectValidResponse(spec, 'get', 200, a.json);
      expect(a.json.transaction).toMatchObject({ updateId: tapUpdateId, offset: tapOffset });
    }
    const q = `?parties=${encodeURIComponent(alice.partyId)}`;
    const get = (path: string, spec: string, status: number, code: string) =>
      expectLedgerError(sb.url, { specPath: spec, method: 'GET', path, token: alice.token }, status, code);
    const byOffset = '/v2/updates/transaction-tree-by-offset/{offset}';
    await get(
      `/v2/updates/transaction-tree-by-offset/${unassigned.offset}${q}`,
      byOffset,
      404,
      'UPDATE_NOT_FOUND',
    );
    await get(`/v2/updates/transaction-tree-by-offset/0${q}`, byOffset, 400, 'NON_POSITIVE_OFFSET');
    await get(`/v2/updates/transaction-tree-by-offset/abc${q}`, byOffset, 400, 'INVALID_ARGUMENT');
    await get(`/v2/updates/transaction-tree-by-offset/${tapOffset}`, byOffset, 400, 'INVALID_ARGUMENT');
    await get(
      `/v2/updates/transaction-tree-by-id/nope${q}`,
      '/v2/updates/transaction-tree-by-id/{update-id}',
      400,
      'INVALID_ARGUMENT',
    );
  });
});
