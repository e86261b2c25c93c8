// Token-standard transfers on the sandbox's two registries over real HTTP, as a wallet makes them (reference
// token-standard.md §4.6): registry API → TransferFactory_Transfer with the choice context and disclosed contracts →
// prepare → sign → execute; then accept, reject or withdraw with their contexts. Checks the outcomes (Completed,
// Pending, Failed), the trees (interfaceId on the root, Fetch nodes only in the prepared transaction, Archive of the
// inputs with implementedInterfaces), holdings with their views (locked, change), expiry and the standard's rules.
// The rules are splice's: `daml/splice-amulet/daml/Splice/ExternalPartyAmuletRules.daml` (TransferFactory_Transfer),
// `Splice/AmuletTransferInstruction.daml` (accept, reject, withdraw), and the interface texts
// `token-standard/splice-api-token-transfer-instruction-v1/daml/Splice/Api/Token/TransferInstructionV1.daml`.

import { ledgerSpec } from '@quill/canton/testing/openapi';
import {
  HOLDING_INTERFACE,
  TOKEN_STANDARD_PACKAGES,
  TRANSFER_FACTORY_INTERFACE,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import {
  decodePreparedTransactionBase64,
  encodePreparedTransaction,
  hashPreparedTransaction,
} from '@quill/canton/transaction';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { grantPreapproval, mintHolding, type SandboxRegistry } from '../src/index.ts';
import {
  call,
  executeBody,
  onboard,
  type Party,
  prepareBody,
  type Sandbox,
  sandboxWithAdmin,
} from './helpers.ts';

const pkg = (name: string) => TOKEN_STANDARD_PACKAGES.find((p) => p.name === name)!.packageId;
const HOLDING_ID = `${pkg('splice-api-token-holding-v1')}:Splice.Api.Token.HoldingV1:Holding`;
const FACTORY_ID = `${pkg('splice-api-token-transfer-instruction-v1')}:Splice.Api.Token.TransferInstructionV1:TransferFactory`;
const INSTRUCTION_ID = `${pkg('splice-api-token-transfer-instruction-v1')}:Splice.Api.Token.TransferInstructionV1:TransferInstruction`;

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party; // no pre-approvals: two-step transfers
let carol: Party; // pre-approved for both instruments: one-step transfers

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  [alice, bob, carol] = await Promise.all([onboard(sb, admin), onboard(sb, admin), onboard(sb, admin)]);
  grantPreapproval(sb.state, 'amulet', carol.partyId);
  grantPreapproval(sb.state, 'usdq', carol.partyId);
});
afterAll(async () => {
  await sb?.close();
});

/** Moves the ledger's clock forward (it never moves back: `nowMicros` is monotonic). */
function advanceClock(ms: number) {
  sb.state.clockOffsetMs += ms;
}

/** An instant relative to the ledger's clock (which tests move forward, and which never moves back). */
const iso = (ms: number) => new Date(Number(sb.state.nowMicros() / 1000n) + ms).toISOString();

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any;

/** The reader's format: all its contracts, with the token-standard interface views. */
function format(party: string) {
  const iface = (interfaceId: string) => ({
    identifierFilter: {
      InterfaceFilter: { value: { interfaceId, includeInterfaceView: true, includeCreatedEventBlob: false } },
    },
  });
  return {
    eventFormat: {
      filtersByParty: {
        [party]: {
          cumulative: [
            { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: false } } } },
            iface(HOLDING_INTERFACE),
            iface(TRANSFER_FACTORY_INTERFACE),
            iface(TRANSFER_INSTRUCTION_INTERFACE),
          ],
        },
      },
      verbose: true,
    },
    transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
  };
}

/** Prepares, signs and executes; returns the prepared transaction (decoded) and the committed transaction. */
async function submit(
  party: Party,
  command: Json,
  disclosedContracts: Json[],
  extra: Record<string, unknown> = {},
) {
  const prep = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/prepare',
    prepareBody(party, [command], { disclosedContracts, ...extra }),
    party.token,
  );
  if (prep.status !== 200) return { prep };
  const exec = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/executeAndWaitForTransaction',
    executeBody(party, prep.json, { transactionFormat: format(party.partyId) }),
    party.token,
  );
  expect(exec.status, exec.text).toBe(200);
  ledgerSpec().expectValidComponent('JsExecuteSubmissionAndWaitForTransactionResponse', exec.json);
  return {
    prep,
    prepared: decodePreparedTransactionBase64(prep.json.preparedTransaction),
    tx: exec.json.transaction,
  };
}

async function registryPost(reg: SandboxRegistry, path: string, body: unknown) {
  return call(reg.registryUrl, 'POST', `/registry/transfer-instruction/v1${path}`, body);
}

function choiceArgs(
  reg: SandboxRegistry,
  sender: Party,
  receiver: Party,
  amount: string,
  inputs: string[],
  ttlMs = 3_600_000,
) {
  return {
    expectedAdmin: reg.admin,
    transfer: {
      sender: sender.partyId,
      receiver: receiver.partyId,
      amount,
      instrumentId: reg.instrumentId,
      requestedAt: iso(-60_000),
      executeBefore: iso(ttlMs),
      inputHoldingCids: inputs,
      meta: { values: { 'splice.lfdecentralizedtrust.org/reason': 'invoice 42' } },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  };
}

/** The wallet's two calls: the registry's factory with its context, then the ledger. */
async function transfer(
  reg: SandboxRegistry,
  sender: Party,
  receiver: Party,
  amount: string,
  inputs: string[],
  ttlMs?: number,
) {
  const args = choiceArgs(reg, sender, receiver, amount, inputs, ttlMs);
  const factory = await registryPost(reg, '/transfer-factory', {
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
  const out = await submit(sender, command, factory.json.choiceContext.disclosedContracts);
  return { ...out, factory: factory.json, command };
}

async function instructionChoice(
  reg: SandboxRegistry,
  party: Party,
  cid: string,
  which: 'accept' | 'reject' | 'withdraw',
) {
  const ctx = await registryPost(reg, `/${cid}/choice-contexts/${which}`, { excludeDebugFields: true });
  expect(ctx.status, ctx.text).toBe(200);
  const choice = `TransferInstruction_${which[0]!.toUpperCase()}${which.slice(1)}`;
  const command = {
    ExerciseCommand: {
      templateId: TRANSFER_INSTRUCTION_INTERFACE,
      contractId: cid,
      choice,
      choiceArgument: { extraArgs: { context: ctx.json.choiceContextData, meta: { values: {} } } },
    },
  };
  return submit(party, command, ctx.json.disclosedContracts);
}

const exercised = (tx: Json) =>
  tx.events.filter((e: Json) => e.ExercisedEvent).map((e: Json) => e.ExercisedEvent);
const created = (tx: Json) => tx.events.filter((e: Json) => e.CreatedEvent).map((e: Json) => e.CreatedEvent);
const holdingsIn = (tx: Json) =>
  created(tx)
    .map((c: Json) => ({
      cid: c.contractId,
      view: c.interfaceViews.find((i: Json) => i.interfaceId === HOLDING_ID)?.viewValue,
    }))
    .filter((h: Json) => h.view);

/** Active holdings of a party per the ledger's holdings through the interface (events-by-contract-id check). */
async function holdingView(party: Party, cid: string) {
  const a = await call(
    sb.url,
    'POST',
    '/v2/events/events-by-contract-id',
    { contractId: cid, eventFormat: format(party.partyId).eventFormat },
    party.token,
  );
  expect(a.status, a.text).toBe(200);
  return {
    view: a.json.created.createdEvent.interfaceViews[0]?.viewValue,
    archived: a.json.archived !== null,
  };
}

for (const key of ['amulet', 'usdq'] as const) {
  describe(`${key}: transfers through the token standard`, () => {
    let reg: SandboxRegistry;
    beforeAll(() => {
      reg = sb.registries[key];
    });

    test('one step to a pre-approved receiver: direct, Completed, receiver holding and change', async () => {
      const input = mintHolding(sb.state, key, alice.partyId, '1000.0000000000');
      const { factory, prepared, tx } = await transfer(reg, alice, carol, '250.0000000000', [input]);
      expect(factory.transferKind).toBe('direct');
      expect(Object.keys(factory.choiceContext.choiceContextData.values)).toContain('transfer-preapproval');
      const root = exercised(tx)[0];
      expect(root).toMatchObject({
        choice: 'TransferFactory_Transfer',
        interfaceId: FACTORY_ID,
        consuming: false,
        actingParties: [alice.partyId],
        packageName: reg.packageName,
      });
      expect(root.templateId.startsWith(FACTORY_ID.split(':')[0]!)).toBe(false);
      expect(root.exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
      expect(root.exerciseResult.meta.values).toEqual({
        'splice.lfdecentralizedtrust.org/tx-kind': 'transfer',
        'splice.lfdecentralizedtrust.org/sender': alice.partyId,
      });
      const archive = exercised(tx).find((e: Json) => e.choice === 'Archive');
      expect(archive).toMatchObject({
        contractId: input,
        consuming: true,
        implementedInterfaces: [HOLDING_ID],
      });
      const views = holdingsIn(tx).map((h: Json) => [h.view.owner, h.view.amount, h.view.lock]);
      expect(views).toEqual([
        [carol.partyId, '250.0000000000', null],
        [alice.partyId, '750.0000000000', null],
      ]);
      expect(root.exerciseResult.senderChangeCids).toEqual([holdingsIn(tx)[1].cid]);
      expect(root.exerciseResult.output.value.receiverHoldingCids).toEqual([holdingsIn(tx)[0].cid]);
      // The prepared transaction: the interface on the root, Fetch nodes of the inputs through Holding; every used
      // contract (the input, the factory and the context's contracts) is an input contract.
      const nodes = prepared!.transaction!.nodes.map((n) =>
        n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType : undefined,
      );
      const rootNode = nodes[0];
      expect(rootNode?.oneofKind === 'exercise' && rootNode.exercise.interfaceId?.packageId).toBe(
        FACTORY_ID.split(':')[0],
      );
      const fetches = nodes.filter((n) => n?.oneofKind === 'fetch');
      expect(
        fetches.some(
          (f) =>
            f?.oneofKind === 'fetch' &&
            f.fetch.contractId === input &&
            f.fetch.interfaceId?.entityName === 'Holding',
        ),
      ).toBe(true);
      const inputs = prepared!.metadata!.inputContracts.map((ic) =>
        ic.contract.oneofKind === 'v1' ? ic.contract.v1.contractId : '',
      );
      for (const d of factory.choiceContext.disclosedContracts) expect(inputs).toContain(d.contractId);
      expect(inputs).toContain(input);
      // The ledger's transaction has no Fetch events: node ids have gaps.
      expect(tx.events.length).toBeLessThan(prepared!.transaction!.nodes.length);
    });

    test('two steps: offer → Pending with the amount locked until executeBefore → the receiver accepts', async () => {
      const input = mintHolding(sb.state, key, alice.partyId, '100.0000000000');
      const { factory, tx } = await transfer(reg, alice, bob, '40.0000000000', [input]);
      expect(factory.transferKind).toBe('offer');
      const root = exercised(tx)[0];
      expect(root.exerciseResult.output.tag).toBe('TransferInstructionResult_Pending');
      const instructionCid = root.exerciseResult.output.value.transferInstructionCid;
      const [locked, change] = holdingsIn(tx);
      expect(locked.view).toMatchObject({
        owner: alice.partyId,
        amount: '40.0000000000',
        instrumentId: reg.instrumentId,
      });
      expect(locked.view.lock).toMatchObject({
        holders: [reg.admin],
        expiresAfter: null,
        context: `transfer to '${bob.partyId}'`,
      });
      expect(locked.view.lock.expiresAt).toBeTruthy();
      expect(change.view).toMatchObject({ amount: '60.0000000000', lock: null });
      const instruction = created(tx).find((c: Json) => c.contractId === instructionCid);
      const view = instruction.interfaceViews.find((i: Json) => i.interfaceId === INSTRUCTION_ID).viewValue;
      expect(view.status).toEqual({ tag: 'TransferPendingReceiverAcceptance', value: {} });
      expect(view.transfer.inputHoldingCids).toEqual([locked.cid]);
      expect(view.transfer.meta.values['splice.lfdecentralizedtrust.org/reason']).toBe('invoice 42');

      const accepted = await instructionChoice(reg, bob, instructionCid, 'accept');
      const acc = exercised(accepted.tx)[0];
      expect(acc).toMatchObject({
        choice: 'TransferInstruction_Accept',
        interfaceId: INSTRUCTION_ID,
        consuming: true,
        implementedInterfaces: [INSTRUCTION_ID],
      });
      expect(acc.exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
      const [received] = holdingsIn(accepted.tx);
      expect(received.view).toMatchObject({ owner: bob.partyId, amount: '40.0000000000', lock: null });
      expect((await holdingView(alice, locked.cid)).archived).toBe(true);
    });

    test('two steps rejected by the receiver and withdrawn by the sender: Failed, the amount back to the sender', async () => {
      for (const [who, which] of [
        [bob, 'reject'],
        [alice, 'withdraw'],
      ] as const) {
        const input = mintHolding(sb.state, key, alice.partyId, '10.0000000000');
        const { tx } = await transfer(reg, alice, bob, '10.0000000000', [input]);
        const cid = exercised(tx)[0].exerciseResult.output.value.transferInstructionCid;
        const out = await instructionChoice(reg, who, cid, which);
        const ex = exercised(out.tx)[0];
        expect(ex.exerciseResult.output).toEqual({ tag: 'TransferInstructionResult_Failed', value: {} });
        if (who === alice) {
          const [back] = holdingsIn(out.tx);
          expect(back.view).toMatchObject({ owner: alice.partyId, amount: '10.0000000000', lock: null });
          expect(ex.exerciseResult.senderChangeCids).toEqual([back.cid]);
        }
      }
    });

    test('self transfer merges the inputs: self, Completed, merge-split', async () => {
      const a = mintHolding(sb.state, key, alice.partyId, '3.0000000000');
      const b = mintHolding(sb.state, key, alice.partyId, '4.0000000000');
      const { factory, tx } = await transfer(reg, alice, alice, '5.0000000000', [a, b]);
      expect(factory.transferKind).toBe('self');
      const root = exercised(tx)[0];
      expect(root.exerciseResult.meta.values['splice.lfdecentralizedtrust.org/tx-kind']).toBe('merge-split');
      expect(holdingsIn(tx).map((h: Json) => h.view.amount)).toEqual(['5.0000000000', '2.0000000000']);
    });

    test('expiry: after executeBefore the receiver cannot accept; the sender withdraws', async () => {
      const input = mintHolding(sb.state, key, alice.partyId, '8.0000000000');
      const { tx } = await transfer(reg, alice, bob, '8.0000000000', [input], 30_000);
      const cid = exercised(tx)[0].exerciseResult.output.value.transferInstructionCid;
      advanceClock(60_000);
      {
        const ctx = await registryPost(reg, `/${cid}/choice-contexts/accept`, {});
        const late = await submit(
          bob,
          {
            ExerciseCommand: {
              templateId: TRANSFER_INSTRUCTION_INTERFACE,
              contractId: cid,
              choice: 'TransferInstruction_Accept',
              choiceArgument: { extraArgs: { context: ctx.json.choiceContextData, meta: { values: {} } } },
            },
          },
          ctx.json.disclosedContracts,
        );
        expect(late.prep.json.code, late.prep.text).toBe('DAML_FAILURE');
        expect(late.prep.json.cause).toContain('expired');
        const back = await instructionChoice(reg, alice, cid, 'withdraw');
        expect(exercised(back.tx)[0].exerciseResult.output.tag).toBe('TransferInstructionResult_Failed');
      }
    });

    test('a locked holding is no input; an expired lock is', async () => {
      const input = mintHolding(sb.state, key, alice.partyId, '20.0000000000');
      const { tx } = await transfer(reg, alice, bob, '20.0000000000', [input], 30_000);
      const [locked] = holdingsIn(tx);
      const refused = await transfer(reg, alice, carol, '20.0000000000', [locked.cid]);
      expect(refused.prep.json.code).toBe('DAML_FAILURE');
      expect(refused.prep.json.cause).toContain('is locked');
      advanceClock(60_000);
      const ok = await transfer(reg, alice, carol, '20.0000000000', [locked.cid]);
      expect(exercised(ok.tx)[0].exerciseResult.output.tag).toBe('TransferInstructionResult_Completed');
    });

    test("the standard's rules are DAML_FAILUREs at prepare", async () => {
      const input = mintHolding(sb.state, key, alice.partyId, '50.0000000000');
      const bobs = mintHolding(sb.state, key, bob.partyId, '50.0000000000');
      const factory = await registryPost(reg, '/transfer-factory', {
        choiceArguments: choiceArgs(reg, alice, bob, '1.0000000000', [input]),
      });
      const attempt = async (mutate: (a: Json) => void) => {
        const args: Json = choiceArgs(reg, alice, bob, '1.0000000000', [input]);
        args.extraArgs.context = factory.json.choiceContext.choiceContextData;
        mutate(args);
        const cmd = {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY_INTERFACE,
            contractId: factory.json.factoryId,
            choice: 'TransferFactory_Transfer',
            choiceArgument: args,
          },
        };
        const a = await call(
          sb.url,
          'POST',
          '/v2/interactive-submission/prepare',
          prepareBody(alice, [cmd], { disclosedContracts: factory.json.choiceContext.disclosedContracts }),
          alice.token,
        );
        return a.json;
      };
      const cases: [string, (a: Json) => void][] = [
        [
          'does not match the registry admin',
          (a) => {
            a.expectedAdmin = bob.partyId;
          },
        ],
        [
          'must be in the past',
          (a) => {
            a.transfer.requestedAt = iso(3_600_000);
          },
        ],
        [
          'must be in the future',
          (a) => {
            a.transfer.executeBefore = iso(-1000);
          },
        ],
        [
          'amount must be positive',
          (a) => {
            a.transfer.amount = '0.0000000000';
          },
        ],
        [
          'insufficient funds',
          (a) => {
            a.transfer.amount = '51.0000000000';
          },
        ],
        [
          'at least one input',
          (a) => {
            a.transfer.inputHoldingCids = [];
          },
        ],
        [
          'unknown instrument',
          (a) => {
            a.transfer.instrumentId = { admin: reg.admin, id: 'Other' };
          },
        ],
      ];
      for (const [why, mutate] of cases) {
        const body = await attempt(mutate);
        expect([body.code, body.cause], why).toEqual(['DAML_FAILURE', expect.stringContaining(why)]);
      }
      expect(
        (
          await attempt((a) => {
            a.transfer.amount = 'lots';
          })
        ).code,
      ).toBe('COMMAND_PREPROCESSING_FAILED');
      // Bob's holding is not visible to alice (CONTRACT_NOT_FOUND); disclosed to her, it is not the sender's.
      expect(
        (
          await attempt((a) => {
            a.transfer.inputHoldingCids = [bobs];
          })
        ).code,
      ).toBe('CONTRACT_NOT_FOUND');
      const blob = await call(
        sb.url,
        'POST',
        '/v2/events/events-by-contract-id',
        {
          contractId: bobs,
          eventFormat: {
            filtersByParty: {
              [bob.partyId]: {
                cumulative: [
                  { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } },
                ],
              },
            },
            verbose: false,
          },
        },
        bob.token,
      );
      const ev = blob.json.created.createdEvent;
      const args: Json = choiceArgs(reg, alice, bob, '1.0000000000', [bobs]);
      args.extraArgs.context = factory.json.choiceContext.choiceContextData;
      const cmd = {
        ExerciseCommand: {
          templateId: TRANSFER_FACTORY_INTERFACE,
          contractId: factory.json.factoryId,
          choice: 'TransferFactory_Transfer',
          choiceArgument: args,
        },
      };
      const disclosedBobs = {
        templateId: ev.templateId,
        contractId: bobs,
        createdEventBlob: ev.createdEventBlob,
        synchronizerId: '',
      };
      const notHers = await call(
        sb.url,
        'POST',
        '/v2/interactive-submission/prepare',
        prepareBody(alice, [cmd], {
          disclosedContracts: [...factory.json.choiceContext.disclosedContracts, disclosedBobs],
        }),
        alice.token,
      );
      expect([notHers.json.code, notHers.json.cause]).toEqual([
        'DAML_FAILURE',
        expect.stringContaining('not by the sender'),
      ]);
      // An unknown input: the engine cannot find it.
      const spent = await attempt((a) => {
        a.transfer.inputHoldingCids = [`00${'ab'.repeat(33)}`];
      });
      expect(spent.code).toBe('CONTRACT_NOT_FOUND');
    });

    // The participant's check of disclosed contracts: ledger-api-core `ledger/api/validation/ValidateDisclosedContracts.scala`.
    test('the factory is usable only when disclosed; a blob that does not match is 400 INVALID_ARGUMENT', async () => {
      const input = mintHolding(sb.state, key, alice.partyId, '5.0000000000');
      const args = choiceArgs(reg, alice, bob, '5.0000000000', [input]);
      const factory = await registryPost(reg, '/transfer-factory', { choiceArguments: args });
      args.extraArgs.context = factory.json.choiceContext.choiceContextData;
      const cmd = {
        ExerciseCommand: {
          templateId: TRANSFER_FACTORY_INTERFACE,
          contractId: factory.json.factoryId,
          choice: 'TransferFactory_Transfer',
          choiceArgument: args,
        },
      };
      const prepare = (disclosedContracts: Json[]) =>
        call(
          sb.url,
          'POST',
          '/v2/interactive-submission/prepare',
          prepareBody(alice, [cmd], { disclosedContracts }),
          alice.token,
        );
      expect((await prepare([])).json.code).toBe('CONTRACT_NOT_FOUND');
      const [first, ...rest] = factory.json.choiceContext.disclosedContracts;
      const bad = [
        { ...first, createdEventBlob: Buffer.from('junk').toString('base64') },
        { ...first, contractId: input },
        { ...first, templateId: `${'0'.repeat(64)}:Some.Module:Entity` },
      ];
      for (const d of bad) {
        const a = await prepare([d, ...rest]);
        expect([a.status, a.json.code], a.text).toEqual([400, 'INVALID_ARGUMENT']);
        expect(a.json.cause).toMatch(/Unable to decode|Mismatch between DisclosedContract/);
      }
      // Debug fields when not excluded.
      expect(first).toMatchObject({
        debugPackageName: reg.packageName,
        synchronizerId: sb.state.defaultSynchronizer,
      });
    });

    test('TransferFactory_PublicFetch answers the factory view', async () => {
      const factory = await registryPost(reg, '/transfer-factory', {
        choiceArguments: choiceArgs(reg, alice, bob, '1.0000000000', []),
      });
      const { tx } = await submit(
        alice,
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY_INTERFACE,
            contractId: factory.json.factoryId,
            choice: 'TransferFactory_PublicFetch',
            choiceArgument: { expectedAdmin: reg.admin, actor: alice.partyId },
          },
        },
        factory.json.choiceContext.disclosedContracts,
      );
      expect(exercised(tx)[0].exerciseResult).toEqual({ admin: reg.admin, meta: { values: {} } });
    });
  });
}

test('a transfer of one instrument cannot spend the other', async () => {
  const usdq = mintHolding(sb.state, 'usdq', alice.partyId, '5.0000000000');
  const out = await transfer(sb.registries.amulet, alice, bob, '1.0000000000', [usdq]);
  expect(out.prep.json.cause).toContain('is not a holding of Amulet');
});

test('model conformance: an inflated receiver amount, or an input contract left out, is refused at execute', async () => {
  const reg = sb.registries.usdq;
  const input = mintHolding(sb.state, 'usdq', alice.partyId, '10.0000000000');
  const args = choiceArgs(reg, alice, bob, '4.0000000000', [input]);
  const factory = await registryPost(reg, '/transfer-factory', { choiceArguments: args });
  args.extraArgs.context = factory.json.choiceContext.choiceContextData;
  const command = {
    ExerciseCommand: {
      templateId: TRANSFER_FACTORY_INTERFACE,
      contractId: factory.json.factoryId,
      choice: 'TransferFactory_Transfer',
      choiceArgument: args,
    },
  };
  const prep = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/prepare',
    prepareBody(alice, [command], { disclosedContracts: factory.json.choiceContext.disclosedContracts }),
    alice.token,
  );
  expect(prep.status, prep.text).toBe(200);
  const resign = (tx: ReturnType<typeof decodePreparedTransactionBase64>) =>
    executeBody(alice, {
      preparedTransaction: Buffer.from(encodePreparedTransaction(tx)).toString('base64'),
      preparedTransactionHash: Buffer.from(hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V2')).toString(
        'base64',
      ),
      hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
    });
  const EXEC = '/v2/interactive-submission/executeAndWait';
  const inflated = decodePreparedTransactionBase64(prep.json.preparedTransaction);
  for (const n of inflated.transaction!.nodes) {
    const node = n.versionedNode.oneofKind === 'v1' ? n.versionedNode.v1.nodeType : undefined;
    if (node?.oneofKind !== 'create' || node.create.argument?.sum.oneofKind !== 'record') continue;
    for (const f of node.create.argument.sum.record.fields)
      if (f.label === 'amount') f.value = { sum: { oneofKind: 'numeric', numeric: '1000000.0000000000' } };
  }
  const a = await call(sb.url, 'POST', EXEC, resign(inflated), alice.token);
  expect([a.status, a.json.code], a.text).toEqual([400, 'LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK']);
  const missing = decodePreparedTransactionBase64(prep.json.preparedTransaction);
  missing.metadata!.inputContracts = missing.metadata!.inputContracts.filter(
    (ic) => ic.contract.oneofKind === 'v1' && ic.contract.v1.contractId !== factory.json.factoryId,
  );
  const b = await call(sb.url, 'POST', EXEC, resign(missing), alice.token);
  expect([b.status, b.json.code], b.text).toEqual([400, 'LOCAL_VERDICT_FAILED_MODEL_CONFORMANCE_CHECK']);
  expect(b.json.cause).toContain('missing from the input contracts');
  const honest = await call(sb.url, 'POST', EXEC, executeBody(alice, prep.json), alice.token);
  expect(honest.status, honest.text).toBe(200);
});
