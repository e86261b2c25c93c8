// Each failure condition of INTERFACE.md §7 (and the neighbouring ones) returns the real participant's HTTP
// status and error code, in a JsCantonError body that validates against the spec.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
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

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin({ options: { maxListElements: 5 } }));
  alice = await onboard(sb, admin, 'ed25519', 'alice');
  for (let i = 0; i < 3; i++) await run(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
});
afterAll(async () => {
  await sb?.close();
});

function fails(
  specPath: string,
  method: string,
  path: string,
  body: unknown,
  status: number,
  code: string,
  token: string | undefined = admin,
) {
  return expectLedgerError(sb.url, { specPath, method, path, body, token }, status, code);
}

const FLATS = '/v2/updates/flats';
/** A well-formed update id (a SHA-256 multihash) of no update. */
const MISSING_ID = `1220${'ab'.repeat(32)}`;
const wildcard = (party: string) => ({
  includeTransactions: {
    eventFormat: { filtersByParty: { [party]: {} } },
    transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
  },
});

describe('INTERFACE.md §7 failure conditions', () => {
  test('package vetting: pageSize above the server maximum, bad page token', async () => {
    const e = await fails(
      '/v2/package-vetting/list',
      'POST',
      '/v2/package-vetting/list',
      { pageSize: 101 },
      400,
      'PROTO_DESERIALIZATION_FAILURE',
    );
    expect(e.cause).toContain("Page size must not exceed the server's maximum of 100");
    await fails(
      '/v2/package-vetting/list',
      'POST',
      '/v2/package-vetting/list',
      { pageToken: '!!' },
      400,
      'PROTO_DESERIALIZATION_FAILURE',
    );
  });

  test('descendingOrder without endInclusive', async () => {
    await fails(
      FLATS,
      'POST',
      FLATS,
      { beginExclusive: 0, descendingOrder: true, updateFormat: wildcard(alice.partyId) },
      400,
      'DESCENDING_ORDER_MISSING_END',
      alice.token,
    );
  });

  test('legacy fields together with updateFormat / transactionFormat', async () => {
    const both = {
      beginExclusive: 0,
      endInclusive: 1,
      filter: { filtersByParty: { [alice.partyId]: {} } },
      updateFormat: wildcard(alice.partyId),
    };
    const e = await fails(FLATS, 'POST', FLATS, both, 400, 'INVALID_ARGUMENT', alice.token);
    expect(e.cause).toContain('Both update_format and filter are set');
    const verbose = {
      beginExclusive: 0,
      endInclusive: 1,
      verbose: true,
      updateFormat: wildcard(alice.partyId),
    };
    await fails(FLATS, 'POST', FLATS, verbose, 400, 'INVALID_ARGUMENT', alice.token);
    // verbose: false next to updateFormat is the proto default (the SDK sends it): accepted.
    const sdk = await call(sb.url, 'POST', FLATS, { ...verbose, verbose: false }, alice.token);
    expect(sdk.status).toBe(200);
    const tf = {
      eventFormat: { filtersByParty: { [alice.partyId]: {} } },
      transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
    };
    for (const path of ['/v2/updates/transaction-by-offset', '/v2/updates/transaction-by-id']) {
      const body = { offset: 1, updateId: 'x', requestingParties: [alice.partyId], transactionFormat: tf };
      const r = await fails(path, 'POST', path, body, 400, 'INVALID_ARGUMENT', alice.token);
      expect(r.cause).toContain('Both transaction_format and requesting_parties are set');
    }
  });

  test('update mask with no path or an invalid path; id mismatch; resource version conflict', async () => {
    const p = '/v2/users/{user-id}';
    await call(sb.url, 'POST', '/v2/users', { user: { id: 'dave' } }, admin);
    const user = { id: 'dave', primaryParty: alice.partyId };
    const empty = await fails(
      p,
      'PATCH',
      '/v2/users/dave',
      { user, updateMask: { paths: [] } },
      400,
      'INVALID_USER_UPDATE_REQUEST',
    );
    expect(empty.cause).toContain('The update mask contains no entries');
    await fails(
      p,
      'PATCH',
      '/v2/users/dave',
      { user, updateMask: { paths: ['primaryParty'] } },
      400,
      'INVALID_USER_UPDATE_REQUEST',
    );
    // Refused by the JSON layer (A25): its own body, without context.category (user-update.test.ts).
    const mismatch = await call(
      sb.url,
      'PATCH',
      '/v2/users/dave',
      { user: { ...user, id: 'eve' }, updateMask: { paths: ['primary_party'] } },
      admin,
    );
    expect([mismatch.status, mismatch.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    const stale = {
      user: { ...user, metadata: { resourceVersion: '7' } },
      updateMask: { paths: ['primary_party'] },
    };
    await fails(p, 'PATCH', '/v2/users/dave', stale, 409, 'CONCURRENT_USER_UPDATE_DETECTED');
    await fails(
      p,
      'PATCH',
      '/v2/users/nobody',
      { user: { id: 'nobody' }, updateMask: { paths: ['primary_party'] } },
      404,
      'USER_NOT_FOUND',
    );
  });

  test('unauthorized calls: PATCH without ParticipantAdmin (403), no or bad token (401), redacted', async () => {
    const body = { user: { id: 'dave', isDeactivated: true }, updateMask: { paths: ['is_deactivated'] } };
    const patch = { specPath: '/v2/users/{user-id}', method: 'PATCH', path: '/v2/users/dave', body };
    await expectRedacted(sb.url, { ...patch, token: alice.token }, 403);
    await expectRedacted(sb.url, { ...patch, token: '' }, 401);
    await expectRedacted(sb.url, { ...patch, token: `${admin}x` }, 401);
    const end = { specPath: '/v2/state/ledger-end', method: 'GET', path: '/v2/state/ledger-end' };
    await expectRedacted(sb.url, { ...end, token: 'not-a-jwt' }, 401);
  });

  test('offsets: after ledger end, negative, not found, list too large (413)', async () => {
    const end = sb.state.log.end;
    await fails(
      FLATS,
      'POST',
      FLATS,
      { beginExclusive: end + 1, updateFormat: wildcard(alice.partyId) },
      400,
      'OFFSET_AFTER_LEDGER_END',
      alice.token,
    );
    await fails(
      FLATS,
      'POST',
      FLATS,
      { beginExclusive: -1, updateFormat: wildcard(alice.partyId) },
      400,
      'NEGATIVE_OFFSET',
      alice.token,
    );
    const nf = await fails(
      '/v2/updates/transaction-by-id',
      'POST',
      '/v2/updates/transaction-by-id',
      { updateId: MISSING_ID, requestingParties: [alice.partyId] },
      404,
      'UPDATE_NOT_FOUND',
      alice.token,
    );
    expect(nf.resources).toEqual([['UPDATE_ID', MISSING_ID]]);
    await call(
      sb.url,
      'POST',
      '/v2/users/participant_admin/rights',
      {
        userId: 'participant_admin',
        rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
      },
      admin,
    );
    const all = {
      includeTopologyEvents: { includeParticipantAuthorizationEvents: {} },
      includeTransactions: {
        eventFormat: { filtersForAnyParty: {} },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    };
    await fails(
      FLATS,
      'POST',
      FLATS,
      { beginExclusive: 0, endInclusive: end, updateFormat: all },
      413,
      'JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED',
    );
    const limited = await call(
      sb.url,
      'POST',
      `${FLATS}?limit=2`,
      { beginExclusive: 0, endInclusive: end, updateFormat: all },
      admin,
    );
    expect([limited.status, limited.json.length]).toEqual([200, 2]);
  });

  test('body decode failures are 400 text/plain, like tapir', async () => {
    const a = await call(sb.url, 'POST', FLATS, '{not json', admin);
    expect(a.status).toBe(400);
    expect(a.contentType).toContain('text/plain');
    expect(a.text).toMatch(/^Invalid value for: body/);
  });

  test('beginExclusive below the pruning offset after pruning', async () => {
    const pruned = await call(sb.url, 'POST', '/admin/prune', { offset: 3 }, admin);
    expect(pruned.json).toEqual({ participantPrunedUpToInclusive: 3 });
    const e = await fails(
      FLATS,
      'POST',
      FLATS,
      { beginExclusive: 2, updateFormat: wildcard(alice.partyId) },
      400,
      'PARTICIPANT_PRUNED_DATA_ACCESSED',
      alice.token,
    );
    expect(e.context.earliest_offset).toBe('3');
    const okFromPruned = await call(
      sb.url,
      'POST',
      FLATS,
      { beginExclusive: 3, endInclusive: sb.state.log.end, updateFormat: wildcard(alice.partyId) },
      alice.token,
    );
    expect(okFromPruned.status).toBe(200);
    const offsets = await call(sb.url, 'GET', '/v2/state/latest-pruned-offsets', undefined, admin);
    expect(offsets.json.participantPrunedUpToInclusive).toBe(3);
  });
});
