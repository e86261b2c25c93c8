// A7 (issue 26): POST /v2/package-vetting/list refuses topologyStateFilter ids that are not unique identifiers
// `identifier::namespace` with 400 PROTO_DESERIALIZATION_FAILURE, as the participant's
// `TopologyStateFilter.fromProto` (ledger-api-core `ledger/api/package.scala`, parsing with
// `UniqueIdentifier.fromProtoPrimitive`, community/base `topology/Identifier.scala`) does.

import { checkListVettedPackagesRequest, uniqueIdentifierProblem } from '@quill/canton/ledger';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { call, expectLedgerError, type Sandbox, sandboxWithAdmin } from './helpers.ts';

const LIST = '/v2/package-vetting/list';
let sb: Sandbox;
let admin: string;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin({ demo: true }));
});
afterAll(async () => {
  await sb?.close();
});

describe('A7: topologyStateFilter ids (TopologyStateFilter.fromProto)', () => {
  test.each([
    ['participantIds', 'not-a-uid', 'participant_ids', 'with missing namespace'],
    ['participantIds', '::1220ab', 'participant_ids', 'with empty identifier'],
    ['synchronizerIds', 'global::bad!', 'synchronizer_ids', 'Fingerprint decoding'],
    ['synchronizerIds', 'bad id!::1220ab', 'synchronizer_ids', 'Identifier decoding'],
    ['synchronizerIds', '', 'synchronizer_ids', 'Empty string is not a valid unique identifier'],
  ])('%s [%j] is 400 PROTO_DESERIALIZATION_FAILURE', async (key, id, field, why) => {
    const e = await expectLedgerError(
      sb.url,
      {
        specPath: LIST,
        method: 'POST',
        path: LIST,
        body: { topologyStateFilter: { [key]: [id] } },
        token: admin,
      },
      400,
      'PROTO_DESERIALIZATION_FAILURE',
    );
    expect(e.cause).toContain(`Unable to convert field ${field}: `);
    expect(e.cause).toContain(why);
  });

  test('synchronizer ids are parsed before participant ids; valid ids that match nothing answer 200', async () => {
    const both = await call(
      sb.url,
      'POST',
      LIST,
      { topologyStateFilter: { participantIds: ['bad'], synchronizerIds: ['also-bad'] } },
      admin,
    );
    expect([both.status, both.json.cause]).toEqual([400, expect.stringContaining('synchronizer_ids')]);
    const none = await call(
      sb.url,
      'POST',
      LIST,
      {
        topologyStateFilter: {
          participantIds: ['someone::1220ab'],
          synchronizerIds: [sb.state.defaultSynchronizer],
        },
      },
      admin,
    );
    expect([none.status, none.json.vettedPackages]).toEqual([200, []]);
    const own = await call(
      sb.url,
      'POST',
      LIST,
      { topologyStateFilter: { participantIds: [sb.state.participantId], synchronizerIds: [] } },
      admin,
    );
    expect(own.status, own.text).toBe(200);
    expect(own.json.vettedPackages.length).toBeGreaterThan(0);
  });

  test('the identifier and the namespace: Daml-LF party characters, at most 185 and 68, no second "::"', () => {
    expect(uniqueIdentifierProblem(`a::${'f'.repeat(68)}`)).toBeUndefined();
    expect(uniqueIdentifierProblem(`a::${'f'.repeat(69)}`)).toContain('maximum length of 68');
    expect(uniqueIdentifierProblem(`${'a'.repeat(186)}::ff`)).toContain('maximum length of 185');
    expect(uniqueIdentifierProblem('a::b::c')).toContain('reserved delimiter');
  });

  test("the rule is the ledger contract's: the client refuses the same ids before sending", () => {
    expect(
      checkListVettedPackagesRequest({ topologyStateFilter: { participantIds: ['not-a-uid'] } }),
    ).toEqual({
      code: 'PROTO_DESERIALIZATION_FAILURE',
      reason:
        'Unable to convert field participant_ids: Invalid unique identifier `not-a-uid` with missing namespace.',
    });
    expect(
      checkListVettedPackagesRequest({ topologyStateFilter: { participantIds: ['p::1220ab'] } }),
    ).toBeUndefined();
  });
});
