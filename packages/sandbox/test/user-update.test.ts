// PATCH /v2/users/{user-id} as the participant's UserManagementService.updateUser (issue 19, item 4): no
// self-deactivation, primaryParty and annotation keys validated (Ref.Party, ResourceAnnotationValidator), a
// non-numeric resourceVersion is INVALID_FIELD, every successful update bumps resourceVersion (a no-op too),
// and the 3.5 path primary_party_authentication is applied.
import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, expectLedgerError, type Sandbox, sandboxWithAdmin } from './helpers.ts';

const SPEC = '/v2/users/{user-id}';
let sb: Sandbox;
let admin: string;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
});
afterAll(async () => {
  await sb?.close();
});

async function newUser(id: string, rights: unknown[] = []) {
  const a = await call(sb.url, 'POST', '/v2/users', { user: { id }, rights }, admin);
  expect(a.status, a.text).toBe(200);
}

const patch = (id: string, user: Record<string, unknown>, paths: string[], token = admin) =>
  call(sb.url, 'PATCH', `/v2/users/${id}`, { user: { id, ...user }, updateMask: { paths } }, token);

const refused = (id: string, user: Record<string, unknown>, paths: string[], code: string, token = admin) =>
  expectLedgerError(
    sb.url,
    {
      specPath: SPEC,
      method: 'PATCH',
      path: `/v2/users/${id}`,
      body: { user: { id, ...user }, updateMask: { paths } },
      token,
    },
    400,
    code,
  );

describe('user update', () => {
  test('a user cannot deactivate itself (INVALID_ARGUMENT); an admin can deactivate it', async () => {
    await newUser('self-admin', [{ kind: { ParticipantAdmin: { value: {} } } }]);
    const token = await sb.mintToken('self-admin');
    const e = await refused(
      'self-admin',
      { isDeactivated: true },
      ['is_deactivated'],
      'INVALID_ARGUMENT',
      token,
    );
    expect(e.cause).toContain('Requesting user cannot self-deactivate');
    expect(sb.state.users.require('self-admin').isDeactivated).toBe(false);
    const byAdmin = await patch('self-admin', { isDeactivated: true }, ['is_deactivated']);
    expect(byAdmin.status, byAdmin.text).toBe(200);
    expect(byAdmin.json.user.isDeactivated).toBe(true);
  });

  test('an invalid primaryParty is INVALID_ARGUMENT', async () => {
    await newUser('pp');
    const e = await refused('pp', { primaryParty: 'bad party!' }, ['primary_party'], 'INVALID_ARGUMENT');
    expect(e.cause).toContain('non expected character 0x21 in Daml-LF Party');
  });

  test.each([
    ['a/b/c', "contains more than one forward slash ('/') character"],
    ['-leading', 'has invalid syntax'],
    ['x'.repeat(64), 'exceeds maximum length of 63 characters'],
    ['bad_prefix!/name', 'Key prefix segment'],
  ])('annotation key %j is INVALID_ARGUMENT (%s)', async (key, why) => {
    await newUser(`ann-${why.length}-${key.length}`);
    const id = `ann-${why.length}-${key.length}`;
    const e = await refused(
      id,
      { metadata: { annotations: { [key]: 'v' } } },
      ['metadata.annotations'],
      'INVALID_ARGUMENT',
    );
    expect(e.cause).toContain(why);
  });

  test('a valid prefixed annotation key is accepted, and creation checks keys too', async () => {
    await newUser('ann-ok');
    const ok = await patch('ann-ok', { metadata: { annotations: { 'quill.example.com/role': 'ops' } } }, [
      'metadata.annotations',
    ]);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.user.metadata.annotations).toEqual({ 'quill.example.com/role': 'ops' });
    await expectLedgerError(
      sb.url,
      {
        specPath: '/v2/users',
        method: 'POST',
        path: '/v2/users',
        body: { user: { id: 'ann-bad', metadata: { annotations: { 'a/b/c': 'v' } } } },
        token: admin,
      },
      400,
      'INVALID_ARGUMENT',
    );
  });

  test('a non-numeric resourceVersion is INVALID_FIELD; a stale one is a conflict', async () => {
    await newUser('rv');
    const e = await refused(
      'rv',
      { metadata: { resourceVersion: 'abc' } },
      ['is_deactivated'],
      'INVALID_FIELD',
    );
    expect(e.cause).toContain(
      'Invalid field user.metadata.resource_version: Invalid resource version number',
    );
    const stale = await patch('rv', { metadata: { resourceVersion: '7' } }, ['is_deactivated']);
    expect([stale.status, stale.json.code]).toEqual([409, 'CONCURRENT_USER_UPDATE_DETECTED']);
  });

  test('every successful update increments resourceVersion, a no-op included', async () => {
    await newUser('bump');
    const versions: string[] = [];
    for (let i = 0; i < 3; i++) {
      const a = await patch('bump', { isDeactivated: false }, ['is_deactivated']);
      expect(a.status, a.text).toBe(200);
      versions.push(a.json.user.metadata.resourceVersion);
    }
    expect(versions).toEqual(['1', '2', '3']);
    const withVersion = await patch('bump', { isDeactivated: false, metadata: { resourceVersion: '3' } }, [
      'is_deactivated',
    ]);
    expect(withVersion.json.user.metadata.resourceVersion).toBe('4');
  });

  test('primary_party_authentication (3.5) is applied and returned', async () => {
    await newUser('ppa');
    const a = await patch('ppa', { primaryPartyAuthentication: true }, ['primary_party_authentication']);
    expect(a.status, a.text).toBe(200);
    expect(a.json.user.primaryPartyAuthentication).toBe(true);
    const got = await call(sb.url, 'GET', '/v2/users/ppa', undefined, admin);
    expect(got.json.user.primaryPartyAuthentication).toBe(true);
  });

  test('A24: paths are split on "." only (UpdatePath.parseSingle): a !replace or !merge suffix is an unknown field', async () => {
    await newUser('suffix', []);
    await patch('suffix', { metadata: { annotations: { k: 'v' } } }, ['metadata.annotations']);
    for (const path of [
      'metadata.annotations!replace',
      'metadata.annotations!merge',
      'is_deactivated!replace',
    ]) {
      const e = await refused(
        'suffix',
        { metadata: { annotations: { z: '9' } } },
        [path],
        'INVALID_USER_UPDATE_REQUEST',
      );
      expect(e.cause).toContain(`The update path: '${path}' points to an unknown field.`);
      expect(e.resources).toEqual([['USER', 'suffix']]);
    }
    // Annotations are always merged (LocalAnnotationsUtils): a new key joins, an empty value deletes.
    const merged = await patch('suffix', { metadata: { annotations: { z: '9' } } }, ['metadata.annotations']);
    expect(merged.json.user.metadata.annotations).toEqual({ k: 'v', z: '9' });
  });

  test('A25: PATCH without user, or naming another, is 400 INVALID_ARGUMENT from the JSON layer (JsUserManagementService.updateUser unmatchedUserId)', async () => {
    await newUser('a25');
    for (const [body, shown] of [
      [{ updateMask: { paths: ['is_deactivated'] } }, 'None'],
      [{ user: { id: 'other' }, updateMask: { paths: ['is_deactivated'] } }, 'Some(other)'],
    ] as const) {
      const a = await call(sb.url, 'PATCH', '/v2/users/a25', body, admin);
      expect([a.status, a.json?.code], a.text).toEqual([400, 'INVALID_ARGUMENT']);
      expect(a.json).toMatchObject({
        cause: `The submitted request has invalid arguments: a25 does not match user in body: ${shown} `,
        errorCategory: 8,
        grpcCodeValue: 3,
        definiteAnswer: false,
        resources: [],
      });
      // Built by JsCantonError.fromErrorCode, not decoded from a gRPC status: no category, no tid.
      expect(a.json.context).toEqual({});
      ledgerSpec().expectValidComponent('JsCantonError', a.json);
      // Checked before the gRPC call, so before its authorization: a user without rights gets the same answer.
      const plain = await call(sb.url, 'PATCH', '/v2/users/a25', body, await sb.mintToken('a25'));
      expect([plain.status, plain.json?.code]).toEqual([400, 'INVALID_ARGUMENT']);
    }
  });
});
