// Asynchronous execute (rejections after acceptance become failed completions, listed by
// /v2/commands/completions) and model conformance of signed transactions (forged consequences refused).
import { randomUUID } from 'node:crypto';
import { ledgerSpec } from '@quill/canton/testing/openapi';
import {
  decodePreparedTransactionBase64,
  encodePreparedTransaction,
  hashPreparedTransaction,
} from '@quill/canton/transaction';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  COIN,
  call,
  createdOf,
  executeBody,
  onboard,
  type Party,
  prepareBody,
  run,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;
const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin, 'ed25519');
  bob = await onboard(sb, admin, 'p384');
});
afterAll(async () => {
  await sb?.close();
});

async function prepare(party: Party, commands: unknown[], extra: Record<string, unknown> = {}) {
  const prep = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/prepare',
    prepareBody(party, commands, { commandId: `c-${randomUUID()}`, ...extra }),
    party.token,
  );
  expect(prep.status, prep.text).toBe(200);
  return prep.json as {
    preparedTransaction: string;
    preparedTransactionHash: string;
    hashingSchemeVersion: string;
  };
}

const commandIdOf = (prepared: { preparedTransaction: string }) =>
  decodePreparedTransactionBase64(prepared.preparedTransaction).metadata?.submitterInfo?.commandId ?? '';

describe('asynchronous execute and completions', () => {
  test('execute answers {}; a duplicate becomes a failed completion (ALREADY_EXISTS), both listed', async () => {
    const begin = sb.state.log.end;
    const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '9.0000000000')]);
    const first = await call(
      sb.url,
      'POST',
      '/v2/interactive-submission/execute',
      executeBody(alice, prepared),
      alice.token,
    );
    const second = await call(
      sb.url,
      'POST',
      '/v2/interactive-submission/execute',
      executeBody(alice, prepared),
      alice.token,
    );
    expect([first.status, first.json, second.status, second.json]).toEqual([200, {}, 200, {}]);
    const list = await call(
      sb.url,
      'POST',
      '/v2/commands/completions?stream_idle_timeout_ms=50',
      {
        userId: alice.userId,
        parties: [alice.partyId],
        beginExclusive: begin,
      },
      alice.token,
    );
    expect(list.status, list.text).toBe(200);
    ledgerSpec().expectValidResponse('/v2/commands/completions', 'post', 200, list.json);
    const completions = list.json
      .map(
        (c: { completionResponse: { Completion?: { value: unknown } } }) =>
          c.completionResponse.Completion?.value,
      )
      .filter(Boolean);
    expect(completions).toHaveLength(2);
    expect(completions[0]).toMatchObject({ commandId: commandIdOf(prepared), status: { code: 0 } });
    expect(completions[0].updateId).toMatch(/^1220/);
    expect(completions[1]).toMatchObject({
      commandId: commandIdOf(prepared),
      status: { code: 6 },
      updateId: '',
    });
    expect(completions[1].status.message).toContain('DUPLICATE_COMMAND');
    // A bad signature is still refused synchronously.
    const bad = await call(
      sb.url,
      'POST',
      '/v2/interactive-submission/execute',
      executeBody(alice, prepared, { hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3' }),
      alice.token,
    );
    expect([bad.status, bad.json.code]).toEqual([400, 'FAILED_TO_EXECUTE_TRANSACTION']);
  });
});

describe('model conformance', () => {
  /** Re-signs a modified transaction properly: only the templates can refuse it. */
  function resign(party: Party, tx: ReturnType<typeof decodePreparedTransactionBase64>) {
    const bytes = Buffer.from(encodePreparedTransaction(tx)).toString('base64');
    const hash = Buffer.from(hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V2')).toString('base64');
    return executeBody(party, {
      preparedTransaction: bytes,
      preparedTransactionHash: hash,
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    });
  }

  test('a properly signed transaction that inflates a transfer, or creates a Holding alone, is refused', async () => {
    const tapped = await run(sb, alice, [tapCommand(sb, alice.partyId, '10.0000000000')]);
    const holding = createdOf(tapped, 'Holding', alice.partyId)[0]!;
    const prepared = await prepare(alice, [
      {
        ExerciseCommand: {
          templateId: COIN('Holding'),
          contractId: holding,
          choice: 'Holding_Transfer',
          choiceArgument: { receiver: bob.partyId, amount: '4.0000000000' },
        },
      },
    ]);
    const tx = decodePreparedTransactionBase64(prepared.preparedTransaction);
    for (const n of tx.transaction!.nodes) {
      const node = n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType : undefined;
      if (node?.oneofKind !== 'create' || node.create.argument?.sum.oneofKind !== 'record') continue;
      for (const f of node.create.argument.sum.record.fields) {
        if (f.label === 'amount') f.value = { sum: { oneofKind: 'numeric', numeric: '1000000.0000000000' } };
      }
    }
    const inflated = await call(sb.url, 'POST', EXEC, resign(alice, tx), alice.token);
    expect([inflated.status, inflated.json.code]).toEqual([
      400,
      'LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK',
    ]);

    const forged = decodePreparedTransactionBase64(prepared.preparedTransaction);
    const child = forged.transaction!.nodes.find(
      (n) => n.versionedNode.oneofKind === 'v1' && n.versionedNode.v1.nodeType.oneofKind === 'create',
    )!;
    forged.transaction!.roots = [child.nodeId];
    forged.transaction!.nodes = [child];
    forged.transaction!.nodeSeeds = forged.transaction!.nodeSeeds.filter(
      (s) => String(s.nodeId) === child.nodeId,
    );
    forged.metadata!.inputContracts = [];
    const minted = await call(sb.url, 'POST', EXEC, resign(alice, forged), alice.token);
    expect([minted.status, minted.json.code]).toEqual([400, 'LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK']);
    // The honest transaction still commits.
    expect((await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token)).status).toBe(200);
  });
});

test('a retry after the max record time of a committed command is still a DUPLICATE_COMMAND', async () => {
  const maxRecordTime = new Date(Date.now() + sb.state.clockOffsetMs + 60_000).toISOString();
  const prepared = await prepare(alice, [tapCommand(sb, alice.partyId, '1.0000000000')], {
    maxRecordTime,
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V3',
  });
  expect((await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token)).status).toBe(200);
  sb.state.clockOffsetMs += 120_000;
  const late = await call(sb.url, 'POST', EXEC, executeBody(alice, prepared), alice.token);
  expect([late.status, late.json.code]).toEqual([409, 'DUPLICATE_COMMAND']);
});
