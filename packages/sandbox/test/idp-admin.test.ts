// Issue 19, item 0: an identity provider admin acts only on users of its own provider (any other user is "not
// found", whatever provider the request names) and never grants or revokes ParticipantAdmin — as the
// participant's user management. Before the fix an IDP admin of idp1 could grant itself ParticipantAdmin and
// deactivate a user of the default provider by naming idp1 in the request.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, type Sandbox, sandboxWithAdmin } from './helpers.ts';

let sb: Sandbox;
let admin: string;
let idpAdmin: string;

const user = (id: string, identityProviderId: string) => ({
  user: {
    id,
    primaryParty: '',
    isDeactivated: false,
    identityProviderId,
    metadata: { resourceVersion: '', annotations: {} },
  },
});

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  for (const [id, idp] of [
    ['idp1-admin', 'idp1'],
    ['idp1-user', 'idp1'],
    ['default-user', ''],
  ] as const) {
    const r = await call(sb.url, 'POST', '/v2/users', user(id, idp), admin);
    expect(r.status, r.text).toBe(200);
  }
  const granted = await call(
    sb.url,
    'POST',
    '/v2/users/idp1-admin/rights',
    {
      userId: 'idp1-admin',
      identityProviderId: 'idp1',
      rights: [{ kind: { IdentityProviderAdmin: { value: {} } } }],
    },
    admin,
  );
  expect(granted.status, granted.text).toBe(200);
  idpAdmin = await sb.mintToken('idp1-admin');
});
afterAll(() => sb?.close());

const rights = (kind: string) => [{ kind: { [kind]: { value: {} } } }];
const grant = (userId: string, idp: string, kind: string, token = idpAdmin) =>
  call(
    sb.url,
    'POST',
    `/v2/users/${userId}/rights`,
    { userId, identityProviderId: idp, rights: rights(kind) },
    token,
  );

describe('an identity provider admin', () => {
  it('cannot grant or revoke ParticipantAdmin, not even to itself (403, redacted)', async () => {
    for (const path of ['rights']) {
      const g = await grant('idp1-admin', 'idp1', 'ParticipantAdmin');
      expect(g.status, path).toBe(403);
      expect(g.json).toMatchObject({ code: 'NA', errorCategory: -1 });
      const r = await call(
        sb.url,
        'PATCH',
        '/v2/users/idp1-admin/rights',
        { userId: 'idp1-admin', identityProviderId: 'idp1', rights: rights('ParticipantAdmin') },
        idpAdmin,
      );
      expect(r.status).toBe(403);
    }
    const created = await call(
      sb.url,
      'POST',
      '/v2/users',
      { ...user('new-admin', 'idp1'), rights: rights('ParticipantAdmin') },
      idpAdmin,
    );
    expect(created.status).toBe(403);
    // Still not an admin: listing every user stays refused.
    expect((await call(sb.url, 'GET', '/v2/users', undefined, idpAdmin)).status).toBe(403);
  });

  it("does not see another provider's users, whatever provider the request names (404 USER_NOT_FOUND)", async () => {
    for (const idp of ['idp1', '']) {
      const g = await grant('default-user', idp, 'IdentityProviderAdmin');
      expect([403, 404], `grant naming "${idp}"`).toContain(g.status);
      const patch = await call(
        sb.url,
        'PATCH',
        '/v2/users/default-user',
        {
          user: { ...user('default-user', idp).user, isDeactivated: true },
          updateMask: { paths: ['is_deactivated'] },
        },
        idpAdmin,
      );
      expect([403, 404], `update naming "${idp}"`).toContain(patch.status);
    }
    const named = await grant('default-user', 'idp1', 'CanReadAsAnyParty');
    expect(named.status).toBe(404);
    expect(named.json).toMatchObject({ code: 'USER_NOT_FOUND' });
    const revoke = await call(
      sb.url,
      'PATCH',
      '/v2/users/participant_admin/rights',
      { userId: 'participant_admin', identityProviderId: 'idp1', rights: rights('ParticipantAdmin') },
      idpAdmin,
    );
    expect(revoke.status).toBe(404); // the participant admin's user is not in idp1: invisible
    expect(revoke.json).toMatchObject({ code: 'USER_NOT_FOUND' });
    // The default-provider user is untouched.
    const seen = await call(sb.url, 'GET', '/v2/users/default-user', undefined, admin);
    expect(seen.json.user).toMatchObject({ isDeactivated: false });
    const theirRights = await call(sb.url, 'GET', '/v2/users/default-user/rights', undefined, admin);
    expect(JSON.stringify(theirRights.json)).not.toContain('IdentityProviderAdmin');
  });

  it('still manages users of its own provider', async () => {
    const g = await grant('idp1-user', 'idp1', 'CanReadAsAnyParty');
    expect(g.status, g.text).toBe(200);
    const patch = await call(
      sb.url,
      'PATCH',
      '/v2/users/idp1-user',
      {
        user: { ...user('idp1-user', 'idp1').user, isDeactivated: true },
        updateMask: { paths: ['is_deactivated'] },
      },
      idpAdmin,
    );
    expect(patch.status, patch.text).toBe(200);
    // And a participant admin still manages everyone.
    expect((await grant('default-user', '', 'CanReadAsAnyParty', admin)).status).toBe(200);
  });
});
