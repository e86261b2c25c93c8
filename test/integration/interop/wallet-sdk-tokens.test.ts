// Interop (issue 27): the official wallet SDK's token-standard calls, unchanged, against the sandbox's two registries
// (Amulet, admin DSO, served as Scan serves it; USDQ, admin registrar, under /api/token-standard/v0/registrars/…)
// over real HTTP. A recording proxy sits in front of the sandbox, so each step also checks the HTTP requests the call
// makes (SDK-CALLS.md, "Token standard"). Funding and pre-approvals are the registries' admins' acts (the sandbox's
// mintHolding and grantPreapproval, as its demo does); everything a wallet does goes through the SDK.
import { randomUUID } from 'node:crypto';
import {
  HOLDING_INTERFACE,
  TRANSFER_FACTORY_INTERFACE,
  TRANSFER_INSTRUCTION_INTERFACE,
} from '@quill/canton/token';
import { grantPreapproval, mintHolding, startSandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connect, hashes, recordingProxy, step } from './sdk.ts';

// Node 20 has no Object.groupBy (token.utxos.merge groups holdings by instrument with it); Node ≥ 21 does.
(Object as { groupBy?: unknown }).groupBy ??= <T>(
  items: Iterable<T>,
  key: (item: T, i: number) => PropertyKey,
) => {
  const out: Record<PropertyKey, T[]> = Object.create(null);
  let i = 0;
  for (const item of items) {
    const k = key(item, i++);
    out[k] ??= [];
    out[k].push(item);
  }
  return out;
};

const SECRET = `interop-${randomUUID()}`;
const ADMIN = 'participant_admin';
const REASON = 'splice.lfdecentralizedtrust.org/reason';
const INSTRUMENTS = [
  { key: 'amulet', id: 'Amulet' },
  { key: 'usdq', id: 'USDQ' },
] as const;
type Key = (typeof INSTRUMENTS)[number]['key'];

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
type Connected = Awaited<ReturnType<typeof connect>>;
type Proxy = Awaited<ReturnType<typeof recordingProxy>>;

async function onboard({ sdk }: Connected, partyHint: string) {
  const keys = sdk.keys.generate();
  const party = await step(`party.external.create ${partyHint} → sign → execute`, () =>
    sdk.party.external.create(keys.publicKey, { partyHint }).sign(keys.privateKey).execute(),
  );
  return { keys, partyId: party.partyId };
}
type Party = Awaited<ReturnType<typeof onboard>>;

let sandbox: Sandbox;
let proxy: Proxy;
let conn: Connected;
let alice: Party; // funded with both instruments
let bob: Party; // no pre-approval: two-step transfers
let carol: Party; // pre-approved for both instruments: one-step transfers
let registryUrl: Record<Key, URL>;
let admin: Record<Key, string>;

function extend() {
  const registries = [registryUrl.amulet, registryUrl.usdq];
  return conn.sdk.extend({ token: { auth: conn.auth, registries }, asset: { auth: conn.auth, registries } });
}
let sdk: Awaited<ReturnType<typeof extend>>;

beforeAll(async () => {
  sandbox = await startSandbox({ port: 0, scanPort: 0, auth: { secret: SECRET } });
  proxy = await recordingProxy(sandbox.url);
  const operator = await step('SDK.create as admin', () => connect(proxy.url, ADMIN, SECRET));
  const userId = `interop-${randomUUID().slice(0, 8)}`;
  await step('user.create', () =>
    operator.sdk.user.create({
      userId,
      primaryParty: undefined as unknown as string,
      userRights: { participantAdmin: true },
    }),
  );
  conn = await step('SDK.create as the new user', () => connect(proxy.url, userId, SECRET));
  [alice, bob, carol] = await Promise.all([
    onboard(conn, 'alice'),
    onboard(conn, 'bob'),
    onboard(conn, 'carol'),
  ]);
  mintHolding(sandbox.state, 'amulet', alice.partyId, '1000.0000000000');
  mintHolding(sandbox.state, 'usdq', alice.partyId, '500.0000000000');
  grantPreapproval(sandbox.state, 'amulet', carol.partyId);
  grantPreapproval(sandbox.state, 'usdq', carol.partyId);
  // The registries' base URLs (sandbox.registries), reached through the proxy.
  const through = (key: Key) => new URL(sandbox.registries[key].registryUrl.replace(sandbox.url, proxy.url));
  registryUrl = { amulet: through('amulet'), usdq: through('usdq') };
  admin = { amulet: sandbox.registries.amulet.admin, usdq: sandbox.registries.usdq.admin };
  sdk = await step('sdk.extend({ token, asset })', extend);
});
afterAll(async () => {
  await proxy?.close();
  await sandbox?.close();
});

/** A registry API path as the SDK requests it: the base URL's path, then the OpenAPI path (`/registry/…`). */
const reg = (key: Key, path: string) => `${registryUrl[key].pathname.replace(/\/$/, '')}/registry/${path}`;
/** `registriesToAssets` over every configured registry: what `transfer.create` (and `merge`) ask first. */
const ASSETS = () =>
  (['amulet', 'usdq'] as const).flatMap((k) => [
    `GET ${reg(k, 'metadata/v1/instruments')}`,
    `GET ${reg(k, 'metadata/v1/info')}`,
  ]);
/** `listContractsByInterface`: the ledger end, then the ACS at it. */
const ACS = ['GET /v2/state/ledger-end', 'POST /v2/state/active-contracts'];

type Prepared = [unknown, unknown[]];

/**
 * The SDK's prepare (commands and the registry's disclosed contracts), the SDK's, the visualizer's and Quill's hashers
 * agreeing with the ledger's hash (TextMaps in key order, as Canton keeps them), the SDK's sign and executeAndWait.
 */
async function submit(name: string, who: Party, [command, disclosedContracts]: Prepared) {
  const prepared = sdk.ledger.prepare({
    partyId: who.partyId,
    commands: Array.isArray(command) ? command : [command],
    disclosedContracts: disclosedContracts as never,
  });
  const { response } = await step(`ledger.prepare ${name}`, () => prepared.toJSON());
  const want = response.preparedTransactionHash;
  expect(await hashes(response.preparedTransaction), `${name}: hashes`).toEqual({
    sdk: want,
    visualizer: want,
    quill: want,
  });
  return step(`sign → execute ${name}`, () =>
    prepared.sign(who.keys.privateKey).execute({ partyId: who.partyId }),
  );
}

/** `token.utxos.list` as `[instrument, amount, locked]`, with the contract ids. */
async function holdings(who: Party, includeLocked = false) {
  const list = await step('token.utxos.list', () =>
    sdk.token.utxos.list({ partyId: who.partyId, includeLocked }),
  );
  return list.map((h) => {
    const { instrumentId, amount, lock } = h.interfaceViewValue;
    return {
      cid: h.contractId,
      id: instrumentId.id,
      admin: instrumentId.admin,
      amount,
      locked: lock != null,
    };
  });
}
const amounts = (hs: Awaited<ReturnType<typeof holdings>>, id: string) =>
  hs.filter((h) => h.id === id).map((h) => h.amount);

/** Per-instrument summaries as `instrument amountChange` (the rendering leaves out an amountChange of 0). */
const change = (summaries: { instrumentId: { id: string }; amountChange?: string }[]) =>
  summaries.map((s) => `${s.instrumentId.id} ${s.amountChange ?? 0}`);

/** `token.transactionsById` as each event's [label type, unlocked change, locked change, instruction status]. */
async function parsed(updateId: string, who: Party) {
  const tx = await step('token.transactionsById', () =>
    sdk.token.transactionsById({ updateId, partyId: who.partyId }),
  );
  return {
    tx,
    summary: tx.events.map((e) => [
      e.label.type,
      change(e.unlockedHoldingsChangeSummaries),
      change(e.lockedHoldingsChangeSummaries),
      e.transferInstruction?.status.current?.tag ?? null,
    ]),
  };
}

const contextKeys = (cmd: Prepared) =>
  Object.keys(
    (cmd[0] as { ExerciseCommand: { choiceArgument: { extraArgs: { context: { values: object } } } } })
      .ExerciseCommand.choiceArgument.extraArgs.context.values,
  );

// The tests run in order on one ledger and build on each other: the last reads the history of all the others.
describe('official wallet SDK 1.4.0: token-standard calls against the sandbox registries (Amulet, USDQ)', () => {
  test('asset.list and token.utxos.list (ACS, and updates until completion): both instruments, alice’s holdings of each through the Holding interface', async () => {
    expect(sdk.asset.list.map((a) => [a.id, a.admin, a.registryUrl.href])).toEqual([
      ['Amulet', admin.amulet, registryUrl.amulet.href],
      ['USDQ', admin.usdq, registryUrl.usdq.href],
    ]);
    const mark = proxy.sent.length;
    expect((await holdings(alice)).map(({ cid: _, ...h }) => h)).toEqual([
      { id: 'Amulet', admin: admin.amulet, amount: '1000.0000000000', locked: false },
      { id: 'USDQ', admin: admin.usdq, amount: '500.0000000000', locked: false },
    ]);
    expect(proxy.since(mark)).toEqual(ACS);
    // The legacy `filter` form with one InterfaceFilter (view and blob), `verbose: false`, at the ledger end.
    const holdingFilter = {
      identifierFilter: {
        InterfaceFilter: {
          value: {
            interfaceId: HOLDING_INTERFACE,
            includeCreatedEventBlob: true,
            includeInterfaceView: true,
          },
        },
      },
    };
    expect(proxy.sent[mark + 1]?.body).toEqual({
      filter: { filtersByParty: { [alice.partyId]: { cumulative: [holdingFilter] } } },
      verbose: false,
      activeAtOffset: expect.any(Number),
    });
    // continueUntilCompletion: the same holdings rebuilt from /v2/updates (legacy `filter`), pages of 200.
    const whole = proxy.sent.length;
    const all = await step('token.utxos.list (continueUntilCompletion)', () =>
      sdk.token.utxos.list({ partyId: alice.partyId, continueUntilCompletion: true }),
    );
    expect(all.map((h) => [h.interfaceViewValue.instrumentId.id, h.interfaceViewValue.amount])).toEqual([
      ['Amulet', '1000.0000000000'],
      ['USDQ', '500.0000000000'],
    ]);
    const sent = proxy.since(whole);
    expect(sent.slice(0, 3)).toEqual([
      ...Array(2).fill('GET /v2/state/ledger-end'),
      'POST /v2/updates?limit=200',
    ]);
    expect(new Set(sent.slice(2))).toEqual(new Set(['POST /v2/updates?limit=200']));
    expect(proxy.sent[whole + 2]?.body).toEqual({
      beginExclusive: 0,
      endInclusive: expect.any(Number),
      verbose: false,
      filter: { filtersByParty: { [alice.partyId]: { cumulative: [holdingFilter] } } },
    });
  });

  test.each(INSTRUMENTS)(
    '$id: token.transfer.create one step to a pre-approved receiver → prepare, sign, execute; transactionsById of both sides',
    async ({ key, id }) => {
      const input = (await holdings(alice)).find((h) => h.id === id);
      const mark = proxy.sent.length;
      const created = await step(`token.transfer.create ${id} → carol`, () =>
        sdk.token.transfer.create({
          sender: alice.partyId,
          recipient: carol.partyId,
          amount: '100',
          instrumentId: id,
          registryUrl: registryUrl[key],
          memo: 'invoice 42',
        }),
      );
      expect(proxy.since(mark)).toEqual([
        ...ASSETS(),
        ...ACS,
        `POST ${reg(key, 'transfer-instruction/v1/transfer-factory')}`,
      ]);
      const [{ ExerciseCommand: exercise }, disclosed] = created;
      expect(exercise).toMatchObject({
        templateId: TRANSFER_FACTORY_INTERFACE,
        choice: 'TransferFactory_Transfer',
        choiceArgument: {
          expectedAdmin: admin[key],
          transfer: {
            sender: alice.partyId,
            receiver: carol.partyId,
            amount: '100',
            instrumentId: { admin: admin[key], id },
            inputHoldingCids: [input?.cid],
            meta: { values: { [REASON]: 'invoice 42' } },
          },
        },
      });
      // The registry client sends the SDK's token and a JSON content type; the ledger client no content type.
      const [factoryCall] = proxy.sent.slice(-1);
      expect(factoryCall?.headers).toMatchObject({
        authorization: expect.stringMatching(/^Bearer /),
        'content-type': 'application/json',
      });
      expect(proxy.sent.at(-2)?.headers['content-type']).toBeUndefined();
      expect(contextKeys(created)).toContain('transfer-preapproval');
      expect(disclosed.map((d) => d.contractId)).toContain(exercise.contractId);

      const done = await submit(`transfer ${id} → carol`, alice, created);
      const out = await parsed(done.updateId, alice);
      expect(out.tx).toMatchObject({ updateId: done.updateId, offset: done.completionOffset });
      expect(out.summary).toEqual([['TransferOut', [`${id} -100`], [], 'Completed']]);
      expect(out.tx.events[0]?.label).toMatchObject({
        receiverAmounts: [{ receiver: carol.partyId, amount: '100' }],
        reason: 'invoice 42',
      });
      // The receiver: Amulet's one step runs TransferPreapproval_SendV2 on carol's pre-approval, which she signs, so
      // she sees a transfer (by its tx-kind meta; the parser's status for a choice it does not know is Pending);
      // USDQ's factory only fetches her pre-approval, so she sees the holding created for her.
      const inn = await parsed(done.updateId, carol);
      expect(inn.summary).toEqual(
        key === 'amulet'
          ? [['TransferIn', [`${id} 100`], [], 'Pending']]
          : [['Create', [`${id} 100.0000000000`], [], null]],
      );
      if (key === 'amulet') expect(inn.tx.events[0]?.label).toMatchObject({ sender: alice.partyId });
      expect(amounts(await holdings(carol), id)).toEqual(['100.0000000000']);
    },
  );

  test.each(INSTRUMENTS)(
    '$id: two steps — offers, token.transfer.pending on both sides, accept, reject, withdraw',
    async ({ key, id }) => {
      const url = registryUrl[key];
      const offers: string[] = [];
      for (const amount of ['40', '30', '20']) {
        const created = await step(`token.transfer.create ${id} ${amount} → bob (offer)`, () =>
          sdk.token.transfer.create({
            sender: alice.partyId,
            recipient: bob.partyId,
            amount,
            instrumentId: id,
            registryUrl: url,
            memo: `offer ${amount}`,
          }),
        );
        expect(contextKeys(created)).not.toContain('transfer-preapproval');
        const done = await submit(`offer ${id} ${amount}`, alice, created);
        const out = await parsed(done.updateId, alice);
        expect(out.summary).toEqual([['MergeSplit', [`${id} -${amount}`], [`${id} ${amount}`], 'Pending']]);
        offers.push(out.tx.events[0]?.transferInstruction?.multiStepCorrelationId ?? '');
      }

      const mark = proxy.sent.length;
      const pending = await step('token.transfer.pending (receiver)', () =>
        sdk.token.transfer.pending(bob.partyId),
      );
      expect(proxy.since(mark)).toEqual(ACS);
      expect(proxy.sent[mark + 1]?.body).toMatchObject({
        filter: {
          filtersByParty: {
            [bob.partyId]: {
              cumulative: [
                {
                  identifierFilter: {
                    InterfaceFilter: {
                      value: {
                        interfaceId: TRANSFER_INSTRUCTION_INTERFACE,
                        includeCreatedEventBlob: true,
                        includeInterfaceView: true,
                      },
                    },
                  },
                },
              ],
            },
          },
        },
      });
      const mine = pending.filter((p) => p.interfaceViewValue.transfer.instrumentId.id === id);
      // The parser's correlation id of each offer is the instruction the receiver lists.
      expect(mine.map((p) => p.contractId)).toEqual(offers);
      expect(
        mine.map((p) => {
          const { transfer, status } = p.interfaceViewValue;
          return [
            transfer.sender,
            transfer.receiver,
            transfer.amount,
            transfer.meta.values[REASON],
            status.tag,
          ];
        }),
      ).toEqual(
        ['40', '30', '20'].map((a) => [
          alice.partyId,
          bob.partyId,
          `${a}.0000000000`,
          `offer ${a}`,
          'TransferPendingReceiverAcceptance',
        ]),
      );
      const sent = await step('token.transfer.pending (sender)', () =>
        sdk.token.transfer.pending(alice.partyId),
      );
      expect(sent.map((p) => p.contractId)).toEqual(expect.arrayContaining(offers));
      // Locked holdings: listed only with includeLocked.
      expect(
        (await holdings(alice, true)).filter((h) => h.id === id && h.locked).map((h) => h.amount),
      ).toEqual(['40.0000000000', '30.0000000000', '20.0000000000']);
      expect((await holdings(alice)).filter((h) => h.locked)).toEqual([]);

      const choose = async (which: 'accept' | 'reject' | 'withdraw', who: Party, cid: string) => {
        const m = proxy.sent.length;
        const cmd = await step(`token.transfer.${which}`, () =>
          sdk.token.transfer[which]({ transferInstructionCid: cid, registryUrl: url }),
        );
        expect(proxy.since(m)).toEqual([
          `POST ${reg(key, `transfer-instruction/v1/${cid}/choice-contexts/${which}`)}`,
        ]);
        expect(proxy.sent[m]?.body).toEqual({ excludeDebugFields: true });
        const choice = `TransferInstruction_${which[0]?.toUpperCase()}${which.slice(1)}`;
        expect(cmd[0]).toMatchObject({
          ExerciseCommand: { templateId: TRANSFER_INSTRUCTION_INTERFACE, contractId: cid, choice },
        });
        const done = await submit(`${which} ${id}`, who, cmd as Prepared);
        return Promise.all([parsed(done.updateId, alice), parsed(done.updateId, bob)]);
      };
      const [accepted, received] = await choose('accept', bob, offers[0] ?? '');
      expect(accepted.summary).toEqual([['TransferOut', [], [`${id} -40`], 'Completed']]);
      expect(received.summary).toEqual([['TransferIn', [`${id} 40`], [], 'Completed']]);
      expect(received.tx.events[0]?.label).toMatchObject({ sender: alice.partyId, reason: 'offer 40' });
      for (const [which, who, cid, amount] of [
        ['reject', bob, offers[1], '30'],
        ['withdraw', alice, offers[2], '20'],
      ] as const) {
        const [back, seen] = await choose(which, who, cid ?? '');
        // The amount back to alice, unlocked; the instruction Failed. Bob's holdings do not change: no event.
        expect(back.summary).toEqual([['MergeSplit', [`${id} ${amount}`], [`${id} -${amount}`], 'Failed']]);
        expect(seen.summary).toEqual([]);
      }
      const after = await step('token.transfer.pending (after)', () =>
        sdk.token.transfer.pending(bob.partyId),
      );
      expect(after.filter((p) => p.interfaceViewValue.transfer.instrumentId.id === id)).toEqual([]);
      expect(amounts(await holdings(bob), id)).toEqual(['40.0000000000']);
      expect(amounts(await holdings(alice, true), id)).toEqual(
        key === 'amulet'
          ? ['810.0000000000', '30.0000000000', '20.0000000000']
          : ['310.0000000000', '30.0000000000', '20.0000000000'],
      );
    },
  );

  test('token.utxos.merge: one self-transfer per instrument, prepared and executed together', async () => {
    const mark = proxy.sent.length;
    const [commands, disclosed] = await step('token.utxos.merge', () =>
      sdk.token.utxos.merge({ partyId: alice.partyId }),
    );
    // The unlocked holdings (limit 200), then per instrument the asset lookups and transfer.create's own.
    expect(proxy.since(mark)).toEqual([
      'GET /v2/state/ledger-end',
      'POST /v2/state/active-contracts?limit=200',
      ...(['amulet', 'usdq'] as const).flatMap((k) => [
        ...ASSETS(),
        ...ASSETS(),
        `POST ${reg(k, 'transfer-instruction/v1/transfer-factory')}`,
      ]),
    ]);
    expect(
      commands.map((c) => {
        const { transfer } = c.ExerciseCommand.choiceArgument as {
          transfer: { sender: string; receiver: string; amount: string; inputHoldingCids: string[] };
        };
        return [
          transfer.sender === alice.partyId,
          transfer.receiver,
          transfer.amount,
          transfer.inputHoldingCids.length,
        ];
      }),
    ).toEqual([
      [true, alice.partyId, '860', 3],
      [true, alice.partyId, '360', 3],
    ]);
    const done = await submit('merge', alice, [commands, disclosed]);
    expect((await parsed(done.updateId, alice)).summary).toEqual([
      ['MergeSplit', ['Amulet 0'], [], 'Completed'],
      ['MergeSplit', ['USDQ 0'], [], 'Completed'],
    ]);
    expect((await holdings(alice, true)).map((h) => [h.id, h.amount])).toEqual([
      ['Amulet', '860.0000000000'],
      ['USDQ', '360.0000000000'],
    ]);
  });

  test('token.holdings: alice’s token-standard history, every step above parsed in order', async () => {
    const mark = proxy.sent.length;
    const history = await step('token.holdings', () => sdk.token.holdings({ partyId: alice.partyId }));
    const sent = proxy.since(mark);
    expect(sent.slice(0, 3)).toEqual([
      'GET /v2/state/latest-pruned-offsets',
      'GET /v2/state/ledger-end',
      'POST /v2/updates/flats',
    ]);
    // The parser reads each archived holding and instruction back by contract id.
    expect(new Set(sent.slice(3))).toEqual(new Set(['POST /v2/events/events-by-contract-id']));
    expect(proxy.sent[mark + 2]?.body).toMatchObject({
      updateFormat: { includeTransactions: { transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' } },
      beginExclusive: 0,
      verbose: false,
    });
    const types = history.transactions.map((t) =>
      t.events.map((e) => [
        e.label.type,
        change(e.unlockedHoldingsChangeSummaries),
        change(e.lockedHoldingsChangeSummaries),
      ]),
    );
    const twoSteps = (id: string) => [
      [['MergeSplit', [`${id} -40`], [`${id} 40`]]],
      [['MergeSplit', [`${id} -30`], [`${id} 30`]]],
      [['MergeSplit', [`${id} -20`], [`${id} 20`]]],
      [['TransferOut', [], [`${id} -40`]]],
      [['MergeSplit', [`${id} 30`], [`${id} -30`]]],
      [['MergeSplit', [`${id} 20`], [`${id} -20`]]],
    ];
    expect(types).toEqual([
      [['Create', ['Amulet 1000.0000000000'], []]],
      [['Create', ['USDQ 500.0000000000'], []]],
      [['TransferOut', ['Amulet -100'], []]],
      [['TransferOut', ['USDQ -100'], []]],
      ...twoSteps('Amulet'),
      ...twoSteps('USDQ'),
      [
        ['MergeSplit', ['Amulet 0'], []],
        ['MergeSplit', ['USDQ 0'], []],
      ],
    ]);
    expect(history.nextOffset).toBe(await sdk.ledger.ledgerEnd());
  });
});
