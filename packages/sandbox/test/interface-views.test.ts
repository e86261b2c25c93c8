// Interface filters and views as the participant renders them (JSON Ledger API v2, 3.5 spec): an InterfaceFilter
// selects the contracts of every template implementing the interface; created events carry one `interfaceViews`
// entry per requested view (package-id form, viewStatus code 0); consuming exercises and archives list the matched
// interfaces in `implementedInterfaces`. Filters without interfaces see what they always saw. Participant source:
// ledger-api-core `platform/store/dao/events/LfValueTranslation.scala` (views, implementedInterfaces) and
// `TransactionLogUpdatesConversions.scala`; the ledger test tool's `suites/v2_2/InterfaceSubscriptionsIT.scala`.

import { ledgerSpec } from '@quill/canton/testing/openapi';
import { HOLDING_INTERFACE, TOKEN_STANDARD_PACKAGES } from '@quill/canton/token';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  COIN,
  call,
  createdOf,
  onboard,
  type Party,
  run,
  type Sandbox,
  sandboxWithAdmin,
  tapCommand,
} from './helpers.ts';

const HOLDING_PKG = TOKEN_STANDARD_PACKAGES.find((p) => p.name === 'splice-api-token-holding-v1')!.packageId;
const HOLDING_ID = `${HOLDING_PKG}:Splice.Api.Token.HoldingV1:Holding`;

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin);
  bob = await onboard(sb, admin);
});
afterAll(async () => {
  await sb?.close();
});

const holdingFilter = (party: string, view = true) => ({
  filtersByParty: {
    [party]: {
      cumulative: [
        {
          identifierFilter: {
            InterfaceFilter: {
              value: {
                interfaceId: HOLDING_INTERFACE,
                includeInterfaceView: view,
                includeCreatedEventBlob: false,
              },
            },
          },
        },
      ],
    },
  },
  verbose: true,
});

async function updates(party: Party, shape: string, begin: number) {
  const a = await call(
    sb.url,
    'POST',
    '/v2/updates?stream_idle_timeout_ms=50',
    {
      beginExclusive: begin,
      updateFormat: {
        includeTransactions: { eventFormat: holdingFilter(party.partyId), transactionShape: shape },
      },
    },
    party.token,
  );
  expect(a.status, a.text).toBe(200);
  for (const u of a.json) ledgerSpec().expectValidComponent('JsGetUpdatesResponse', u);
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON
  return a.json.map((u: any) => u.update.Transaction?.value).filter(Boolean);
}

describe('the demo coin through the Holding interface', () => {
  test('created holdings carry the HoldingView; a transfer lists the consumed holding with implementedInterfaces', async () => {
    const begin = sb.state.log.end;
    const tap = await run(sb, alice, [tapCommand(sb, alice.partyId, '100.0000000000')]);
    const [holding] = createdOf(tap, 'Holding');
    await run(sb, alice, [
      {
        ExerciseCommand: {
          templateId: COIN('Holding'),
          contractId: holding,
          choice: 'Holding_Transfer',
          choiceArgument: { receiver: bob.partyId, amount: '40.0000000000' },
        },
      },
    ]);
    const flat = await updates(alice, 'TRANSACTION_SHAPE_ACS_DELTA', begin);
    const created = flat[0].events[0].CreatedEvent;
    expect(created.contractId).toBe(holding);
    expect(created.interfaceViews).toEqual([
      {
        interfaceId: HOLDING_ID,
        viewStatus: { code: 0, message: '', details: [] },
        viewValue: {
          owner: alice.partyId,
          instrumentId: { admin: sb.state.operator, id: 'QuillCoin' },
          amount: '100.0000000000',
          lock: null,
          meta: { values: {} },
        },
        implementationPackageId: created.representativePackageId,
      },
    ]);
    const archived = flat[1].events.find((e: { ArchivedEvent?: unknown }) => e.ArchivedEvent).ArchivedEvent;
    expect(archived).toMatchObject({ contractId: holding, implementedInterfaces: [HOLDING_ID] });
    // Alice's change is hers; bob's holding is not among her events.
    const changes = flat[1].events.filter((e: { CreatedEvent?: unknown }) => e.CreatedEvent);
    expect(
      changes.map(
        (e: { CreatedEvent: { interfaceViews: { viewValue: { amount: string } }[] } }) =>
          e.CreatedEvent.interfaceViews[0]?.viewValue.amount,
      ),
    ).toEqual(['60.0000000000']);

    const tree = await updates(alice, 'TRANSACTION_SHAPE_LEDGER_EFFECTS', begin);
    const exercised = tree[1].events.find(
      (e: { ExercisedEvent?: unknown }) => e.ExercisedEvent,
    ).ExercisedEvent;
    expect(exercised).toMatchObject({
      consuming: true,
      interfaceId: null,
      implementedInterfaces: [HOLDING_ID],
    });
  });

  test('without includeInterfaceView the holdings match, with no views and no implementedInterfaces', async () => {
    const begin = sb.state.log.end;
    await run(sb, bob, [tapCommand(sb, bob.partyId, '5.0000000000')]);
    const a = await call(
      sb.url,
      'POST',
      '/v2/updates/flats?stream_idle_timeout_ms=50',
      { beginExclusive: begin, filter: holdingFilter(bob.partyId, false), verbose: true },
      bob.token,
    );
    expect(a.status, a.text).toBe(200);
    const tx = a.json.find((u: { update: { Transaction?: unknown } }) => u.update.Transaction).update
      .Transaction.value;
    expect(tx.events[0].CreatedEvent.interfaceViews).toEqual([]);
  });

  test('a template filter sees no interface views (unchanged for wallets that do not ask)', async () => {
    const begin = sb.state.log.end;
    await run(sb, bob, [tapCommand(sb, bob.partyId, '6.0000000000')]);
    const a = await call(
      sb.url,
      'POST',
      '/v2/updates?stream_idle_timeout_ms=50',
      {
        beginExclusive: begin,
        updateFormat: {
          includeTransactions: {
            eventFormat: { filtersByParty: { [bob.partyId]: {} }, verbose: true },
            transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
          },
        },
      },
      bob.token,
    );
    const tx = a.json.find((u: { update: { Transaction?: unknown } }) => u.update.Transaction).update
      .Transaction.value;
    expect(tx.events[0].CreatedEvent.interfaceViews).toEqual([]);
  });

  test('events-by-contract-id with the interface filter: the view, and 404 for a reader who is no stakeholder', async () => {
    const tap = await run(sb, alice, [tapCommand(sb, alice.partyId, '7.0000000000')]);
    const [holding] = createdOf(tap, 'Holding');
    const a = await call(
      sb.url,
      'POST',
      '/v2/events/events-by-contract-id',
      { contractId: holding, eventFormat: holdingFilter(alice.partyId) },
      alice.token,
    );
    expect(a.status, a.text).toBe(200);
    expect(a.json.created.createdEvent.interfaceViews[0].viewValue.amount).toBe('7.0000000000');
    const rules = await call(
      sb.url,
      'POST',
      '/v2/events/events-by-contract-id',
      { contractId: tap.events[0].CreatedEvent.contractId, eventFormat: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect(rules.status).toBe(404);
  });
});

describe('/v2/state/active-contracts', () => {
  test('an InterfaceFilter lists the holdings of every implementing template with their views; offsets are checked', async () => {
    const tap = await run(sb, bob, [tapCommand(sb, bob.partyId, '9.0000000000')]);
    const [holding] = createdOf(tap, 'Holding');
    const end = sb.state.log.end;
    const a = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: end, eventFormat: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect(a.status, a.text).toBe(200);
    ledgerSpec().expectValidResponse('/v2/state/active-contracts', 'post', 200, a.json);
    const entries = a.json.map(
      (e: {
        contractEntry: {
          JsActiveContract: {
            createdEvent: { contractId: string; interfaceViews: { interfaceId: string }[] };
          };
        };
      }) => e.contractEntry.JsActiveContract.createdEvent,
    );
    expect(entries.some((e: { contractId: string }) => e.contractId === holding)).toBe(true);
    for (const e of entries)
      expect(e.interfaceViews.map((v: { interfaceId: string }) => v.interfaceId)).toEqual([HOLDING_ID]);
    // Before the tap, the holding was not active; offset 0 is the empty set.
    const before = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: tap.offset - 1, eventFormat: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect(
      before.json.some(
        (e: { contractEntry: { JsActiveContract: { createdEvent: { contractId: string } } } }) =>
          e.contractEntry.JsActiveContract.createdEvent.contractId === holding,
      ),
    ).toBe(false);
    const zero = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: 0, eventFormat: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect(zero.json).toEqual([]);
    const limited = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts?limit=1',
      { activeAtOffset: end, eventFormat: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect(limited.json).toHaveLength(1);
    const after = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: end + 100, eventFormat: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect([after.status, after.json.code]).toEqual([400, 'OFFSET_AFTER_LEDGER_END']);
    const both = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: end, eventFormat: holdingFilter(bob.partyId), filter: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect([both.status, both.json.code]).toEqual([400, 'INVALID_ARGUMENT']);
    const negative = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: -1, eventFormat: holdingFilter(bob.partyId) },
      bob.token,
    );
    expect([negative.status, negative.json.code]).toEqual([400, 'NEGATIVE_OFFSET']);
    const other = await call(
      sb.url,
      'POST',
      '/v2/state/active-contracts',
      { activeAtOffset: end, eventFormat: holdingFilter(alice.partyId) },
      bob.token,
    );
    expect(other.status).toBe(403);
  });
});
