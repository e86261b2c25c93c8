// Issue 12 finding 9: the sandbox enforces the synchronizer's preparation time tolerance at execution in both
// directions, with the participant's LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND.

import {
  decodePreparedTransactionBase64,
  encodePreparedTransactionBase64,
  hashPreparedTransaction,
} from '@quill/canton/transaction';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
  executeBody,
  onboard,
  type Party,
  prepareOn,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;
const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
const DAY_MICROS = 86_400_000_000n;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin, 'ed25519');
});
afterAll(async () => {
  await sb?.close();
});

const prepare = () => prepareOn(sb, alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);

/** The same transaction with another preparation time, hashed again (the party signs what it is given). */
function withPreparationTime(
  prepared: { preparedTransaction: string; hashingSchemeVersion: string },
  shiftMicros: bigint,
) {
  const tx = decodePreparedTransactionBase64(prepared.preparedTransaction);
  const meta = tx.metadata;
  if (!meta) throw new Error('no metadata');
  meta.preparationTime += shiftMicros;
  const hash = hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V2');
  return {
    preparedTransaction: encodePreparedTransactionBase64(tx),
    preparedTransactionHash: Buffer.from(hash).toString('base64'),
    hashingSchemeVersion: prepared.hashingSchemeVersion,
  };
}

describe('preparation time tolerance at execution', () => {
  test('a preparation time a year ahead is refused, nothing committed', async () => {
    const ahead = withPreparationTime(await prepare(), 365n * DAY_MICROS);
    const commitsBefore = [...sb.state.commits.values()].reduce((a, b) => a + b, 0);
    const r = await call(sb.url, 'POST', EXEC, executeBody(alice, ahead), alice.token);
    expect(r.json?.code, r.text).toBe('LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND');
    expect(r.status).toBe(409);
    expect(r.json.cause).toMatch(/preparation time and the record time exceed the time tolerance/);
    expect([...sb.state.commits.values()].reduce((a, b) => a + b, 0)).toBe(commitsBefore);
  });

  test('a preparation time further back than the tolerance is refused too', async () => {
    const prepared = await prepare();
    sb.state.clockOffsetMs += 86_400_000 + 60_000; // the ledger clock passes preparation time + 24 h
    try {
      const r = await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token);
      expect(r.json?.code, r.text).toBe('LOCAL_VERDICT_PREPARATION_TIME_OUT_OF_BOUND');
    } finally {
      sb.state.clockOffsetMs -= 86_400_000 + 60_000;
    }
  });

  test('within the window, either side, it commits', async () => {
    const r = await call(sb.url, 'POST', EXEC, executeBody(alice, await prepare()), alice.token);
    expect(r.status, r.text).toBe(200);
    const soon = withPreparationTime(await prepare(), 3_600_000_000n); // an hour ahead: a skewed clock
    const s = await call(sb.url, 'POST', EXEC, executeBody(alice, soon), alice.token);
    expect(s.status, s.text).toBe(200);
  });
});
