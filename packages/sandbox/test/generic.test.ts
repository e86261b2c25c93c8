// Generic templates: any template id (package-name or package-id form) creates a record whose signatories
// are the actAs parties; `Archive` works on every template; CreateAndExercise; ledger effects shape.

import { ledgerSpec } from '@quill/canton/testing/openapi';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { call, onboard, type Party, run, type Sandbox, sandboxWithAdmin } from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin, 'secp256k1');
});
afterAll(async () => {
  await sb?.close();
});

test('create by package name and by package id, archive, create-and-exercise', async () => {
  const args = {
    owner: alice.partyId,
    text: 'hello',
    count: 3,
    tags: ['a', 'b'],
    note: null,
    nested: { ok: true },
  };
  const tx = await run(sb, alice, [
    { CreateCommand: { templateId: '#my-app:Main.Notes:Note', createArguments: args } },
  ]);
  const created = tx.events[0].CreatedEvent;
  expect(created.createArgument).toEqual({ ...args, count: '3' });
  expect(created.signatories).toEqual([alice.partyId]);
  expect(created.packageName).toBe('my-app');
  const [packageId] = created.templateId.split(':');
  const byId = await run(sb, alice, [
    {
      CreateCommand: {
        templateId: `${packageId}:Main.Notes:Note`,
        createArguments: { owner: alice.partyId },
      },
    },
  ]);
  expect(byId.events[0].CreatedEvent.packageName).toBe('my-app');
  const archived = await run(sb, alice, [
    {
      ExerciseCommand: {
        templateId: '#my-app:Main.Notes:Note',
        contractId: created.contractId,
        choice: 'Archive',
        choiceArgument: {},
      },
    },
  ]);
  expect(archived.events).toEqual([
    {
      ArchivedEvent: expect.objectContaining({
        contractId: created.contractId,
        templateId: created.templateId,
        witnessParties: [alice.partyId],
      }),
    },
  ]);
  const both = await run(sb, alice, [
    {
      CreateAndExerciseCommand: {
        templateId: '#my-app:Main.Notes:Note',
        createArguments: { owner: alice.partyId },
        choice: 'Archive',
        choiceArgument: {},
      },
    },
  ]);
  expect(both.events).toEqual([]); // transient under ACS_DELTA
  const effects = await call(
    sb.url,
    'POST',
    '/v2/updates/transaction-by-id',
    {
      updateId: both.updateId,
      transactionFormat: {
        eventFormat: { filtersByParty: { [alice.partyId]: {} } },
        transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS',
      },
    },
    alice.token,
  );
  ledgerSpec().expectValidResponse('/v2/updates/transaction-by-id', 'post', 200, effects.json);
  expect(effects.json.transaction.events.map((e: object) => Object.keys(e)[0])).toEqual([
    'CreatedEvent',
    'ExercisedEvent',
  ]);
  const unknownChoice = await call(
    sb.url,
    'POST',
    '/v2/interactive-submission/prepare',
    {
      commandId: 'x',
      commands: [
        {
          ExerciseCommand: {
            templateId: '#my-app:Main.Notes:Note',
            contractId: byId.events[0].CreatedEvent.contractId,
            choice: 'Frobnicate',
            choiceArgument: {},
          },
        },
      ],
      actAs: [alice.partyId],
      synchronizerId: '',
      packageIdSelectionPreference: [],
    },
    alice.token,
  );
  expect([unknownChoice.status, unknownChoice.json.code]).toEqual([400, 'COMMAND_PREPROCESSING_FAILED']);
});
