// The participant's auth answers (issue 26, review rows A3, A38, A39), each test naming the Scala it copies:
// - A3: 401/403 bodies are redacted (base/errors `DecodedCantonError.redactedError`, `ErrorCategory.redactDetails`;
//   ledger-json-api `Endpoints.validateJwtToken` adds `ledger_api_error: "invalid token"` when resolving the token's
//   user fails, ledger-api-core `UserBasedClaimResolver`).
// - A38: with auth off an empty `userId` is 400 INVALID_TOKEN (community/base `Authorizer.defaultUserId`: wildcard
//   claims carry no user id) on prepare, the execute forms and completions.
// - A39: a token whose user differs from the request's `userId` is 403, for a ParticipantAdmin too
//   (`Claims.validForUser`, required by `RequiredClaim.MatchUserId`).
import { randomUUID } from 'node:crypto';
import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startSandbox } from '../src/index.ts';
import {
  call,
  executeBody,
  expectRedacted,
  onboard,
  type Party,
  prepareBody,
  prepareOn,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const PREPARE = '/v2/interactive-submission/prepare';
const EXECUTES = [
  '/v2/interactive-submission/execute',
  '/v2/interactive-submission/executeAndWait',
  '/v2/interactive-submission/executeAndWaitForTransaction',
];
const COMPLETIONS = '/v2/commands/completions';

describe('A3: redacted 401 and 403 bodies (DecodedCantonError.redactedError)', () => {
  let sb: Sandbox;
  let admin: string;
  let alice: Party;
  beforeAll(async () => {
    ({ sb, admin } = await sandboxWithAdmin());
    alice = await onboard(sb, admin, 'ed25519', 'alice');
  });
  afterAll(async () => {
    await sb?.close();
  });

  test('no token, a token that is not a JWT, a forged one: 401 "NA", context {}', async () => {
    const req = { specPath: '/v2/state/ledger-end', method: 'GET', path: '/v2/state/ledger-end' };
    await expectRedacted(sb.url, req, 401);
    await expectRedacted(sb.url, { ...req, token: 'not-a-jwt' }, 401);
    await expectRedacted(sb.url, { ...req, token: `${admin}x` }, 401);
  });

  test('missing rights: 403 "NA", context {}', async () => {
    await expectRedacted(
      sb.url,
      { specPath: '/v2/users', method: 'GET', path: '/v2/users', token: alice.token },
      403,
    );
  });

  test('an unknown or deactivated user: 403 "NA" with ledger_api_error "invalid token" (UserBasedClaimResolver)', async () => {
    const req = { specPath: '/v2/state/ledger-end', method: 'GET', path: '/v2/state/ledger-end' };
    const nobody = await sb.mintToken('nobody'); // creates the user: delete it again
    expect((await call(sb.url, 'DELETE', '/v2/users/nobody', undefined, admin)).status).toBe(200);
    await expectRedacted(sb.url, { ...req, token: nobody }, 403, true);
    const created = await call(sb.url, 'POST', '/v2/users', { user: { id: 'gone' }, rights: [] }, admin);
    expect(created.status, created.text).toBe(200);
    const token = await sb.mintToken('gone');
    expect((await call(sb.url, 'GET', '/v2/state/ledger-end', undefined, token)).status).toBe(200);
    const off = await call(
      sb.url,
      'PATCH',
      '/v2/users/gone',
      { user: { id: 'gone', isDeactivated: true }, updateMask: { paths: ['is_deactivated'] } },
      admin,
    );
    expect(off.status, off.text).toBe(200);
    await expectRedacted(sb.url, { ...req, token }, 403, true);
  });

  test('A39: a token for another user is 403 on prepare, execute and completions, for a ParticipantAdmin too (Claims.validForUser)', async () => {
    const prepared = await prepareOn(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    const other = await onboard(sb, admin);
    const endBefore = sb.state.log.end;
    for (const token of [admin, other.token]) {
      await expectRedacted(
        sb.url,
        {
          specPath: PREPARE,
          method: 'POST',
          path: PREPARE,
          body: prepareBody(alice, [tapCommand(sb, alice.partyId, '1.0000000000')]),
          token,
        },
        403,
      );
      for (const path of EXECUTES) {
        await expectRedacted(
          sb.url,
          { specPath: path, method: 'POST', path, body: executeBody(alice, prepared), token },
          403,
        );
      }
      await expectRedacted(
        sb.url,
        {
          specPath: COMPLETIONS,
          method: 'POST',
          path: COMPLETIONS,
          body: { userId: alice.userId, parties: [alice.partyId], beginExclusive: 0 },
          token,
        },
        403,
      );
    }
    expect(sb.state.log.end).toBe(endBefore);
    // An empty userId is the token's user (Authorizer.defaultUserId), and the own user id is accepted.
    const own = await call(
      sb.url,
      'POST',
      PREPARE,
      prepareBody(alice, [tapCommand(sb, alice.partyId, '1.0000000000')], { userId: '' }),
      alice.token,
    );
    expect(own.status, own.text).not.toBe(403);
    const exec = await call(sb.url, 'POST', EXECUTES[2]!, executeBody(alice, prepared), alice.token);
    expect(exec.status, exec.text).toBe(200);
  });
});

describe('A38: with auth off an empty userId is 400 INVALID_TOKEN (Authorizer.defaultUserId)', () => {
  let sb: Sandbox;
  let alice: Party;
  beforeAll(async () => {
    sb = await startSandbox({ port: 0, scanPort: 0, auth: 'none' });
    alice = await onboard(sb, '', 'ed25519', 'alice');
  });
  afterAll(async () => {
    await sb?.close();
  });

  async function invalidToken(specPath: string, body: unknown) {
    const a = await call(sb.url, 'POST', specPath, body);
    expect([a.status, a.json?.code], a.text).toEqual([400, 'INVALID_TOKEN']);
    expect(a.json).toMatchObject({
      cause:
        'The submitted request is missing a user-id: Cannot default user_id field because claims do not ' +
        'specify an user-id. Is authentication turned on?',
      errorCategory: 8,
      grpcCodeValue: 3,
    });
    expect(a.json.context).toMatchObject({ category: '8', definite_answer: 'false' });
    ledgerSpec().expectValidComponent('JsCantonError', a.json);
  }

  test('prepare, the three execute forms and completions', async () => {
    const prepared = await prepareOn(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    const endBefore = sb.state.log.end;
    await invalidToken(
      PREPARE,
      prepareBody(alice, [tapCommand(sb, alice.partyId, '1.0000000000')], { userId: '' }),
    );
    const { userId: _, ...noUser } = prepareBody(alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    await invalidToken(PREPARE, noUser);
    for (const path of EXECUTES) await invalidToken(path, executeBody(alice, prepared, { userId: '' }));
    await invalidToken(COMPLETIONS, { userId: '', parties: [alice.partyId], beginExclusive: 0 });
    expect(sb.state.log.end).toBe(endBefore);
    // Any non-empty user id is accepted: wildcard claims match every user.
    const exec = await call(
      sb.url,
      'POST',
      EXECUTES[2]!,
      executeBody(alice, prepared, { userId: `someone-${randomUUID()}` }),
    );
    expect(exec.status, exec.text).toBe(200);
  });
});
