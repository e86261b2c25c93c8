// The `tamperPrepare` fault: the sandbox prepares something other than what was asked (another amount, another
// receiver, an extra command), and answers a valid prepared transaction of it, correct hash included: what a
// dishonest participant could return, for testing that the wallet verifies before it signs.
import { TRANSFER_FACTORY_INTERFACE } from '@quill/canton/token';
import {
  decodePreparedTransactionBase64,
  hashPreparedTransaction,
  type PreviewNode,
  previewPreparedTransaction,
} from '@quill/canton/transaction';
import { mintHolding } from '@quill/sandbox';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import {
  COIN,
  call,
  createdOf,
  onboard,
  type Party,
  prepareBody,
  run,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from '../../../packages/sandbox/test/helpers.ts';

const PREPARE = '/v2/interactive-submission/prepare';

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;
let mallory: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  [alice, bob, mallory] = await Promise.all([onboard(sb, admin), onboard(sb, admin), onboard(sb, admin)]);
});
afterEach(() => sb.faults.configure({}));
afterAll(async () => {
  await sb?.close();
});

/** A USDQ TransferFactory_Transfer of `amount` from alice to bob, as a wallet asks the registry and the ledger. */
async function transferRequest(amount: string) {
  const reg = sb.registries.usdq;
  const input = mintHolding(sb.state, 'usdq', alice.partyId, '1000.0000000000');
  const args = {
    expectedAdmin: reg.admin,
    transfer: {
      sender: alice.partyId,
      receiver: bob.partyId,
      amount,
      instrumentId: reg.instrumentId,
      requestedAt: new Date(Date.now() - 60_000).toISOString(),
      executeBefore: new Date(Date.now() + 3_600_000).toISOString(),
      inputHoldingCids: [input],
      meta: { values: {} },
    },
    extraArgs: { context: { values: {} } as unknown, meta: { values: {} } },
  };
  const factory = await call(reg.registryUrl, 'POST', '/registry/transfer-instruction/v1/transfer-factory', {
    choiceArguments: args,
    excludeDebugFields: true,
  });
  expect(factory.status, factory.text).toBe(200);
  args.extraArgs.context = factory.json.choiceContext.choiceContextData;
  const command = {
    ExerciseCommand: {
      templateId: TRANSFER_FACTORY_INTERFACE,
      contractId: factory.json.factoryId,
      choice: 'TransferFactory_Transfer',
      choiceArgument: args,
    },
  };
  return prepareBody(alice, [command], {
    disclosedContracts: factory.json.choiceContext.disclosedContracts,
  });
}

async function prepare(body: unknown) {
  const r = await call(sb.url, 'POST', PREPARE, body, alice.token);
  expect(r.status, r.text).toBe(200);
  const tx = decodePreparedTransactionBase64(r.json.preparedTransaction);
  // The hash is the honest hash of what was prepared.
  expect(Buffer.from(hashPreparedTransaction(tx, r.json.hashingSchemeVersion)).toString('base64')).toBe(
    r.json.preparedTransactionHash,
  );
  return previewPreparedTransaction(tx, r.json.hashingSchemeVersion);
}

const transferArg = (nodes: PreviewNode[]) => {
  const node = nodes.find((n) => n.choice === 'TransferFactory_Transfer');
  return (node?.choiceArgument as { transfer?: { amount: string; receiver: string } } | undefined)?.transfer;
};

describe('tamperPrepare', () => {
  test('prepares another amount, receiver and an appended command, with a correct hash; times: 1 fires once', async () => {
    const before = sb.faults.injected.tamperPrepare ?? 0;
    sb.faults.configure({
      rules: [
        {
          kind: 'tamperPrepare',
          times: 1,
          tamper: {
            amount: '99.0000000000',
            receiver: mallory.partyId,
            appendCommands: [tapCommand(sb, alice.partyId, '3.0000000000')],
          },
        },
      ],
    });
    const tampered = await prepare(await transferRequest('12.5000000000'));
    expect(transferArg(tampered.nodes)).toMatchObject({ amount: '99.0000000000', receiver: mallory.partyId });
    const roots = tampered.roots.map((id) => tampered.nodes.find((n) => n.nodeId === id));
    expect(roots.map((n) => n?.choice)).toEqual(['TransferFactory_Transfer', 'CoinRules_DevNet_Tap']);
    expect(roots[1]?.choiceArgument).toMatchObject({ receiver: alice.partyId, amount: '3.0000000000' });
    expect(sb.faults.injected.tamperPrepare).toBe(before + 1);

    // Spent: the next prepare is what was asked.
    const honest = await prepare(await transferRequest('12.5000000000'));
    expect(transferArg(honest.nodes)).toMatchObject({ amount: '12.5000000000', receiver: bob.partyId });
    expect(honest.roots).toHaveLength(1);
    expect(sb.faults.injected.tamperPrepare).toBe(before + 1);
  });

  test("rewrites the demo coin's Holding_Transfer too, configured over the admin route", async () => {
    const tx = await run(sb, alice, [tapCommand(sb, alice.partyId, '10.0000000000')]);
    const [holding] = createdOf(tx, 'Holding', alice.partyId);
    const set = await call(
      sb.url,
      'POST',
      '/admin/faults',
      {
        rules: [
          {
            kind: 'tamperPrepare',
            endpoint: PREPARE,
            tamper: { amount: '9.0000000000', receiver: mallory.partyId },
          },
        ],
      },
      admin,
    );
    expect(set.status, set.text).toBe(200);
    expect(set.json.rules[0]).toMatchObject({ kind: 'tamperPrepare', tamper: { amount: '9.0000000000' } });
    const spend = {
      ExerciseCommand: {
        templateId: COIN('Holding'),
        contractId: holding,
        choice: 'Holding_Transfer',
        choiceArgument: { receiver: bob.partyId, amount: '1.0000000000' },
      },
    };
    const p = await prepare(prepareBody(alice, [spend]));
    expect(p.nodes[0]).toMatchObject({
      choice: 'Holding_Transfer',
      choiceArgument: { receiver: mallory.partyId, amount: '9.0000000000' },
    });
  });

  test("the tampered request still meets the participant's decoder and rules", async () => {
    const ask = prepareBody(alice, [tapCommand(sb, alice.partyId, '1.0000000000')]);
    // An appended command the decoder cannot read: the participant's 400 text.
    sb.faults.configure({ rules: [{ kind: 'tamperPrepare', tamper: { appendCommands: [{ Nope: {} }] } }] });
    const undecodable = await call(sb.url, 'POST', PREPARE, ask, alice.token);
    expect([undecodable.status, undecodable.contentType.startsWith('text/plain')]).toEqual([400, true]);
    // One on a contract that does not exist: the interpreter's CONTRACT_NOT_FOUND.
    const missing = structuredClone(tapCommand(sb, alice.partyId, '1.0000000000'));
    missing.ExerciseCommand.contractId = `00${'ab'.repeat(33)}`;
    sb.faults.configure({ rules: [{ kind: 'tamperPrepare', tamper: { appendCommands: [missing] } }] });
    const unknown = await call(sb.url, 'POST', PREPARE, ask, alice.token);
    expect([unknown.status, unknown.json?.code], unknown.text).toEqual([404, 'CONTRACT_NOT_FOUND']);
    // A rule without its tamper is refused by the admin route.
    const bad = await call(sb.url, 'POST', '/admin/faults', { rules: [{ kind: 'tamperPrepare' }] }, admin);
    expect(bad.status).toBe(400);
  });
});
