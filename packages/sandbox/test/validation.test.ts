// Bad input is a 400 with the participant's code, never a 404, an empty list or a text/plain decode failure
// (issue 19, item 3). Each case names the participant's rule it follows (canton 3.5: UpdateServiceRequestValidator,
// FormatValidator, FieldValidator, UserManagementService); every answer validates against the 3.5 spec.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  expectLedgerError,
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
let updateId: string;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin, 'ed25519', 'alice');
  updateId = (await run(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')])).updateId;
});
afterAll(async () => {
  await sb?.close();
});

const FLATS = '/v2/updates/flats';
const UPDATES = '/v2/updates';
const transactionsOf = (filtersByParty: Record<string, unknown>, shape = 'TRANSACTION_SHAPE_ACS_DELTA') => ({
  includeTransactions: { eventFormat: { filtersByParty }, transactionShape: shape },
});

function refused(path: string, body: unknown, code: string, token = admin, status = 400) {
  return expectLedgerError(
    sb.url,
    { specPath: path.split('?')[0]!, method: 'POST', path, body, token },
    status,
    code,
  );
}

describe('updates: offsets and order (UpdateServiceRequestValidator)', () => {
  test('endInclusive 0 is NON_POSITIVE_OFFSET, as validatePositive(end_inclusive)', async () => {
    const e = await refused(
      UPDATES,
      { beginExclusive: 0, endInclusive: 0, updateFormat: transactionsOf({ [alice.partyId]: {} }) },
      'NON_POSITIVE_OFFSET',
    );
    expect(e.cause).toBe(
      'Offset 0 in end_inclusive is not a positive integer: the offset has to be a positive integer (>0)',
    );
    expect(e.errorCategory).toBe(8);
  });

  test('descending order without endInclusive is DESCENDING_ORDER_MISSING_END', async () => {
    const e = await refused(
      FLATS,
      { beginExclusive: 0, descendingOrder: true, updateFormat: transactionsOf({ [alice.partyId]: {} }) },
      'DESCENDING_ORDER_MISSING_END',
    );
    expect(e.cause).toBe('end_inclusive is not provided when descending_order is true');
  });
});

describe('formats (FormatValidator)', () => {
  test('an invalid party id in filtersByParty is INVALID_ARGUMENT naming it (Ref.Party.fromString)', async () => {
    const e = await refused(
      UPDATES,
      { beginExclusive: 0, updateFormat: transactionsOf({ 'alice!': {} }) },
      'INVALID_ARGUMENT',
      alice.token,
    );
    expect(e.cause).toContain('non expected character 0x21 in Daml-LF Party "alice!"');
  });

  test('empty filters are INVALID_ARGUMENT, in updateFormat and in the legacy filter', async () => {
    for (const body of [
      { beginExclusive: 0, updateFormat: transactionsOf({}) },
      { beginExclusive: 0, filter: { filtersByParty: {} } },
      { beginExclusive: 0, updateFormat: { includeReassignments: { filtersByParty: {} } } },
    ]) {
      const e = await refused(UPDATES, body, 'INVALID_ARGUMENT');
      expect(e.cause).toContain('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
    }
  });

  test('TRANSACTION_SHAPE_UNSPECIFIED is MISSING_FIELD transaction_shape', async () => {
    const e = await refused(
      UPDATES,
      {
        beginExclusive: 0,
        updateFormat: transactionsOf({ [alice.partyId]: {} }, 'TRANSACTION_SHAPE_UNSPECIFIED'),
      },
      'MISSING_FIELD',
    );
    expect(e.cause).toBe('The submitted command is missing a mandatory field: transaction_shape');
  });

  test('an invalid party in a topology format is INVALID_FIELD parties', async () => {
    const e = await refused(
      UPDATES,
      {
        beginExclusive: 0,
        updateFormat: {
          includeTopologyEvents: { includeParticipantAuthorizationEvents: { parties: ['a b!'] } },
        },
      },
      'INVALID_FIELD',
    );
    expect(e.cause).toContain('Invalid field parties');
  });
});

describe('point lookups', () => {
  test('a missing updateFormat is a JSON MISSING_FIELD, not a text/plain decode failure', async () => {
    const byOffset = await refused('/v2/updates/update-by-offset', { offset: 1 }, 'MISSING_FIELD');
    expect(byOffset.cause).toContain('update_format');
    const byId = await refused('/v2/updates/update-by-id', { updateId }, 'MISSING_FIELD');
    expect(byId.cause).toContain('update_format');
  });

  test('a malformed update id is INVALID_ARGUMENT, not UPDATE_NOT_FOUND (UpdateId.fromLedgerString)', async () => {
    const format = transactionsOf({ [alice.partyId]: {} });
    const notHex = await refused(
      '/v2/updates/update-by-id',
      { updateId: 'nope', updateFormat: format },
      'INVALID_ARGUMENT',
    );
    expect(notHex.cause).toContain('Failed to parse hex string: nope');
    await refused('/v2/updates/update-by-id', { updateId: 'abcd', updateFormat: format }, 'INVALID_ARGUMENT');
    await refused('/v2/updates/update-by-id', { updateId: 'a/b', updateFormat: format }, 'INVALID_ARGUMENT');
    await refused(
      '/v2/updates/transaction-by-id',
      { updateId: 'nope', requestingParties: [alice.partyId] },
      'INVALID_ARGUMENT',
    );
    // A well-formed id of no update is still 404 UPDATE_NOT_FOUND.
    await refused(
      '/v2/updates/update-by-id',
      { updateId: `1220${'00'.repeat(32)}`, updateFormat: format },
      'UPDATE_NOT_FOUND',
      alice.token,
      404,
    );
  });

  test('an invalid party in requestingParties is INVALID_ARGUMENT, not 404', async () => {
    for (const [path, key] of [
      ['/v2/updates/transaction-by-id', { updateId }],
      ['/v2/updates/transaction-by-offset', { offset: 1 }],
    ] as const) {
      const e = await refused(path, { ...key, requestingParties: ['not a party!'] }, 'INVALID_ARGUMENT');
      expect(e.cause).toContain('Daml-LF Party');
    }
  });

  test('events by contract id: empty filters are INVALID_ARGUMENT', async () => {
    await refused(
      '/v2/events/events-by-contract-id',
      { contractId: '00abcd', eventFormat: { filtersByParty: {} } },
      'INVALID_ARGUMENT',
    );
  });
});

describe('user update: a missing mask is JSON MISSING_FIELD (UserManagementService.updateUser)', () => {
  test('without updateMask (without user: user-update.test.ts, the JSON layer answers first)', async () => {
    const path = '/v2/users/{user-id}';
    const noMask = await expectLedgerError(
      sb.url,
      {
        specPath: path,
        method: 'PATCH',
        path: '/v2/users/alice',
        body: { user: { id: 'alice' } },
        token: admin,
      },
      400,
      'MISSING_FIELD',
    );
    expect(noMask.cause).toContain(': update_mask');
  });
});

describe('package vetting (4.1, ListVettedPackagesOpts.fromProto)', () => {
  test('an invalid package id in the filter is PROTO_DESERIALIZATION_FAILURE, not an empty page', async () => {
    const e = await refused(
      '/v2/package-vetting/list',
      { packageMetadataFilter: { packageIds: ['not/a/package'] } },
      'PROTO_DESERIALIZATION_FAILURE',
    );
    expect(e.cause).toContain('package_ids');
    expect(e.cause).toContain('Daml-LF Package ID');
  });
});
