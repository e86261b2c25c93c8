// State, version and user management endpoints over real HTTP; every response validates against the spec.

import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { type Answer, call, type Sandbox, sandboxWithAdmin } from './helpers.ts';

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

describe('state and user management, spec-validated', () => {
  test('local party allocation and the 3.5 /v2/updates list', async () => {
    const allocated = await ok('/v2/parties', 'POST', '/v2/parties', {
      partyIdHint: 'local-one',
      identityProviderId: '',
      userId: 'participant_admin',
    });
    expect(allocated.partyDetails.party).toMatch(/^local-one::1220/);
    const end = (await ok('/v2/state/ledger-end', 'GET', '/v2/state/ledger-end')).offset;
    const updates = await ok('/v2/updates', 'POST', '/v2/updates', {
      beginExclusive: 0,
      endInclusive: end,
      updateFormat: {
        includeTopologyEvents: {
          includeParticipantAuthorizationEvents: { parties: [allocated.partyDetails.party] },
        },
      },
    });
    expect(updates).toHaveLength(1);
  });

  test('state and version', async () => {
    expect((await ok('/v2/version', 'GET', '/v2/version')).version).toMatch(/^3\.5/);
    expect((await ok('/v2/state/ledger-end', 'GET', '/v2/state/ledger-end')).offset).toBeGreaterThan(0);
    await ok('/v2/state/latest-pruned-offsets', 'GET', '/v2/state/latest-pruned-offsets');
    const syncs = await ok('/v2/state/connected-synchronizers', 'GET', '/v2/state/connected-synchronizers');
    expect(syncs.connectedSynchronizers[0].synchronizerId).toBe(sb.state.defaultSynchronizer);
    expect((await ok('/v2/authenticated-user', 'GET', '/v2/authenticated-user')).user.id).toBe(
      'participant_admin',
    );
    await ok('/v2/parties/participant-id', 'GET', '/v2/parties/participant-id');
  });

  test('user management', async () => {
    await ok('/v2/users', 'POST', '/v2/users', { user: { id: 'carol', isDeactivated: false }, rights: [] });
    expect((await ok('/v2/users/{user-id}', 'GET', '/v2/users/carol')).user.id).toBe('carol');
    expect((await ok('/v2/users', 'GET', '/v2/users')).users.map((u: { id: string }) => u.id)).toEqual([
      'carol',
      'participant_admin',
    ]);
    const patched = await ok('/v2/users/{user-id}', 'PATCH', '/v2/users/carol', {
      user: {
        id: 'carol',
        primaryParty: sb.state.operator,
        metadata: { resourceVersion: '0', annotations: { team: 'ops' } },
      },
      updateMask: { paths: ['primary_party', 'metadata.annotations'], unknownFields: { fields: {} } },
    });
    expect(patched.user).toMatchObject({
      primaryParty: sb.state.operator,
      metadata: { resourceVersion: '1', annotations: { team: 'ops' } },
    });
    await ok('/v2/users/{user-id}/rights', 'POST', '/v2/users/carol/rights', {
      userId: 'carol',
      rights: [
        { kind: { CanReadAs: { value: { party: sb.state.operator } } } },
        { kind: { CanReadAsAnyParty: { value: {} } } },
      ],
    });
    const revoked = await ok('/v2/users/{user-id}/rights', 'PATCH', '/v2/users/carol/rights', {
      userId: 'carol',
      rights: [{ kind: { CanReadAsAnyParty: { value: {} } } }],
    });
    expect(revoked.newlyRevokedRights).toHaveLength(1);
    expect((await ok('/v2/users/{user-id}/rights', 'GET', '/v2/users/carol/rights')).rights).toHaveLength(1);
    await ok('/v2/users/{user-id}', 'DELETE', '/v2/users/carol');
    expect((await call(sb.url, 'GET', '/v2/users/carol', undefined, admin)).status).toBe(404);
  });
});
