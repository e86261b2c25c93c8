// The synchronizer id a prepared transaction signs (review row A40): protocol version 35, the only one hashed
// with V3, names the physical id `<logical>::35-<serial>`; 34 the logical id
// (PhysicalSynchronizerId.forExternalTransactionHashing). Execute refuses the other form up front
// (ExternalTransactionProcessor: "Please use a Physical Synchronizer ID … on PVs > 34"), and
// /v2/state/connected-synchronizers keeps listing logical ids.
import {
  decodePreparedTransactionBase64,
  encodePreparedTransaction,
  hashPreparedTransaction,
} from '@quill/canton/transaction';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
  executeBody,
  expectLedgerError,
  onboard,
  type Party,
  prepareOn,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
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

const tap = (scheme: string) =>
  prepareOn(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')], { hashingSchemeVersion: scheme });

/** The prepared transaction with its metadata naming `synchronizerId` instead, hashed again. */
function renamed(
  prepared: { preparedTransaction: string; hashingSchemeVersion: string },
  synchronizerId: string,
) {
  const tx = decodePreparedTransactionBase64(prepared.preparedTransaction);
  tx.metadata!.synchronizerId = synchronizerId;
  const scheme = prepared.hashingSchemeVersion as 'HASHING_SCHEME_VERSION_V2' | 'HASHING_SCHEME_VERSION_V3';
  return {
    preparedTransaction: Buffer.from(encodePreparedTransaction(tx)).toString('base64'),
    preparedTransactionHash: Buffer.from(hashPreparedTransaction(tx, scheme)).toString('base64'),
    hashingSchemeVersion: scheme,
  };
}

describe('the synchronizer id in what is signed', () => {
  test('V3 (protocol 35) names the physical id, V2 (protocol 34) the logical one; the listing stays logical', async () => {
    const logical = sb.state.defaultSynchronizer;
    const v3 = decodePreparedTransactionBase64((await tap('HASHING_SCHEME_VERSION_V3')).preparedTransaction);
    const v2 = decodePreparedTransactionBase64((await tap('HASHING_SCHEME_VERSION_V2')).preparedTransaction);
    expect(v3.metadata?.synchronizerId).toBe(`${logical}::35-0`);
    expect(v2.metadata?.synchronizerId).toBe(logical);
    const listed = await call(
      sb.url,
      'GET',
      `/v2/state/connected-synchronizers?party=${alice.partyId}`,
      undefined,
      alice.token,
    );
    expect(
      listed.json.connectedSynchronizers.map((s: { synchronizerId: string }) => s.synchronizerId),
    ).toContain(logical);
  });

  test('both commit as prepared', async () => {
    for (const scheme of ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3']) {
      const res = await call(sb.url, 'POST', EXEC, executeBody(alice, await tap(scheme)), alice.token);
      expect(res.status, res.text).toBe(200);
    }
  });

  test('the other form is FAILED_TO_EXECUTE_TRANSACTION, nothing committed', async () => {
    const logical = sb.state.defaultSynchronizer;
    const end = sb.state.log.end;
    const v3 = renamed(await tap('HASHING_SCHEME_VERSION_V3'), logical);
    const a = await expectLedgerError(
      sb.url,
      { specPath: EXEC, method: 'POST', path: EXEC, body: executeBody(alice, v3), token: alice.token },
      400,
      'FAILED_TO_EXECUTE_TRANSACTION',
    );
    expect(a.cause).toContain(
      'Please use a Physical Synchronizer ID in the prepared transaction metadata on PVs > 34',
    );
    const v2 = renamed(await tap('HASHING_SCHEME_VERSION_V2'), `${logical}::35-0`);
    const b = await expectLedgerError(
      sb.url,
      { specPath: EXEC, method: 'POST', path: EXEC, body: executeBody(alice, v2), token: alice.token },
      400,
      'FAILED_TO_EXECUTE_TRANSACTION',
    );
    expect(b.cause).toContain(
      'Please use a Logical Synchronizer ID in the prepared transaction metadata on PVs <= 34',
    );
    expect(sb.state.log.end).toBe(end);
  });
});
