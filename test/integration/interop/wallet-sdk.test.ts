// Interop (issue 7): the official wallet SDK runs its external-party flow, unchanged, against the sandbox.
import { randomUUID } from 'node:crypto';
import { startSandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { connect, createdBy, hashes, RawLedger, step } from './sdk.ts';

// Node 20 has no global WebSocket (the SDK's websocket client uses it); browsers and Node ≥ 22 do.
globalThis.WebSocket ??= WsWebSocket as unknown as typeof WebSocket;

const SECRET = `interop-${randomUUID()}`;
const ADMIN = 'participant_admin';
const NOTE_TEMPLATE = '#quill-interop:Interop.Note:Note';

type Sandbox = Awaited<ReturnType<typeof startSandbox>>;
type Connected = Awaited<ReturnType<typeof connect>>;

const modes = [
  { name: 'auth on, HS256 tokens minted by the SDK', auth: { secret: SECRET }, tokenSecret: SECRET },
  {
    name: 'auth off, SDK token sent and ignored',
    auth: 'none' as const,
    tokenSecret: 'not-the-ledger-secret',
  },
];

/** Admin creates a fresh user with ParticipantAdmin; the SDK then runs as that user. */
async function freshUser(url: string, tokenSecret: string): Promise<Connected & { userId: string }> {
  const admin = await step('SDK.create as admin', () => connect(url, ADMIN, tokenSecret));
  const userId = `interop-${randomUUID().slice(0, 8)}`;
  const user = await step('user.create', () =>
    admin.sdk.user.create({
      userId,
      primaryParty: undefined as unknown as string,
      userRights: { participantAdmin: true },
    }),
  );
  expect(user.id).toBe(userId);
  return { ...(await step('SDK.create as the new user', () => connect(url, userId, tokenSecret))), userId };
}

/** generate-topology, sign the multi-hash, allocate, wait for the party, grant CanActAs — all inside the SDK. */
async function onboard({ sdk }: Connected, partyHint: string) {
  const keys = sdk.keys.generate();
  const party = await step('party.external.create → sign → execute', () =>
    sdk.party.external.create(keys.publicKey, { partyHint }).sign(keys.privateKey).execute(),
  );
  return { keys, party };
}

describe.each(modes)('official wallet SDK 1.4.0 against the sandbox ($name)', ({ auth, tokenSecret }) => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, scanPort: 0, auth });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  test('SDK.create checks the token against the ledger (or not, with auth off)', async () => {
    const wrong = connect(sandbox.url, ADMIN, `${tokenSecret}-wrong`);
    if (auth === 'none') await expect(wrong).resolves.toBeDefined();
    // 401 on its first call (GET /v2/version), which the SDK reports as a missing version.
    else await expect(wrong).rejects.toThrow();
  });

  test('external party onboarding, prepare, hash, sign, executeAndWait, read back', async () => {
    const conn = await freshUser(sandbox.url, tokenSecret);
    const { sdk, auth: tokenConfig } = conn;
    const hint = `interop${randomUUID().slice(0, 6)}`;
    const { keys, party } = await onboard(conn, hint);

    // The sandbox computes fingerprint, party id and multi-hash as the SDK (and Canton) do.
    const fingerprint = await sdk.keys.fingerprint(keys.publicKey);
    expect(party.publicKeyFingerprint).toBe(fingerprint);
    expect(party.partyId).toBe(`${hint}::${fingerprint}`);
    expect(await sdk.utils.hash.topologyTransaction(party.topologyTransactions ?? [])).toBe(party.multiHash);
    expect(await step('party.list', () => sdk.party.list())).toContain(party.partyId);

    const before = await step('ledger.ledgerEnd', () => sdk.ledger.ledgerEnd());
    expect(typeof before).toBe('number');

    const prepared = sdk.ledger.prepare({
      partyId: party.partyId,
      commands: [
        {
          CreateCommand: {
            templateId: NOTE_TEMPLATE,
            createArguments: { owner: party.partyId, text: 'hello' },
          },
        },
      ],
    });
    const { response } = await step('ledger.prepare', () => prepared.toJSON());
    expect(response.hashingSchemeVersion).toBe('HASHING_SCHEME_VERSION_V2');
    const h = await hashes(response.preparedTransaction);
    expect(h).toEqual({
      sdk: response.preparedTransactionHash,
      visualizer: response.preparedTransactionHash,
      quill: response.preparedTransactionHash,
    });
    expect((await prepared.decode()).metadata?.submitterInfo?.actAs).toEqual([party.partyId]);

    const executed = await step('sign → execute (executeAndWait)', () =>
      prepared.sign(keys.privateKey).execute({ partyId: party.partyId }),
    );
    expect(executed.updateId).toEqual(expect.any(String));
    expect(executed.completionOffset).toBeGreaterThan(before);
    expect(await sdk.ledger.ledgerEnd()).toBeGreaterThanOrEqual(executed.completionOffset);

    // Read back by update id the way the SDK does (token namespace → transaction-by-id).
    const extended = await sdk.extend({ token: { auth: tokenConfig, registries: [] } });
    const tx = await step('token.transactionsById', () =>
      extended.token.transactionsById({ updateId: executed.updateId, partyId: party.partyId }),
    );
    expect(tx).toMatchObject({ updateId: executed.updateId, offset: executed.completionOffset });

    // The same through the SDK's transport, raw, to see the created contract; then events-by-contract-id.
    const raw = sdk.registerPlugins({ raw: RawLedger }).raw;
    const wildcard = {
      filtersByParty: {
        [party.partyId]: {
          cumulative: [
            { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } },
          ],
        },
      },
    };
    const full = (await step('transaction-by-id (raw)', () =>
      raw.post('/v2/updates/transaction-by-id', {
        updateId: executed.updateId,
        transactionFormat: {
          eventFormat: { ...wildcard, verbose: false },
          transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
        },
      }),
    )) as { transaction: { events: Array<{ CreatedEvent?: { contractId: string; templateId: string } }> } };
    const created = full.transaction.events.find((e) => e.CreatedEvent)?.CreatedEvent;
    expect(created?.templateId).toMatch(/:Interop\.Note:Note$/);
    const events = (await step('events-by-contract-id', () =>
      raw.post('/v2/events/events-by-contract-id', {
        contractId: created?.contractId,
        eventFormat: { ...wildcard, verbose: true },
      }),
    )) as { created?: { createdEvent: { contractId: string; offset: number } } };
    expect(events.created?.createdEvent).toMatchObject({
      contractId: created?.contractId,
      offset: executed.completionOffset,
    });

    // The operator moves that contract to the second synchronizer and back (sandbox admin calls); the SDK's
    // transport reads both Reassignment updates from /v2/updates under includeReassignments (issue 19, item 7).
    const operator = { authorization: `Bearer ${await sandbox.mintToken(ADMIN, { admin: true })}` };
    const admin = async (path: string, body: unknown) => {
      const res = await fetch(`${sandbox.url}${path}`, {
        method: 'POST',
        headers: operator,
        body: JSON.stringify(body),
      });
      expect(res.status, path).toBe(200);
      return (await res.json()) as { reassignmentId: string; offset: number };
    };
    const target = sandbox.state.synchronizers[1]?.id;
    const out = await admin('/admin/unassign', { contractId: created?.contractId, target });
    const back = await admin('/admin/assign', { reassignmentId: out.reassignmentId });
    const moved = (await step('updates with reassignments (raw)', () =>
      raw.post('/v2/updates', {
        beginExclusive: executed.completionOffset,
        endInclusive: back.offset,
        updateFormat: { includeReassignments: { ...wildcard, verbose: false } },
      }),
    )) as { update: { Reassignment?: { value: { offset: number; events: Record<string, unknown>[] } } } }[];
    const reassignments = moved.flatMap((u) => (u.update.Reassignment ? [u.update.Reassignment.value] : []));
    expect(reassignments.map((r) => r.offset)).toEqual([out.offset, back.offset]);
    expect(reassignments.map((r) => Object.keys(r.events[0] ?? {})[0])).toEqual([
      'JsUnassignedEvent',
      'JsAssignmentEvent',
    ]);
  }, 60_000);

  test('the events namespace reads the websocket streams: a tap’s completion and transaction', async () => {
    // core-asyncapi-client: `${websocketURL}/v2/commands/completions` and `/v2/updates` (with the `//` of a
    // URL's trailing slash), subprotocols `jwt.token.<token>`, `daml.ws.auth`; open-ended from `beginOffset`.
    const conn = await freshUser(sandbox.url, tokenSecret);
    const { sdk } = conn;
    const { keys, party } = await onboard(conn, `ws${randomUUID().slice(0, 6)}`);
    const a = party.partyId;
    const since = await sdk.ledger.ledgerEnd();
    const tapCommand = {
      ExerciseCommand: {
        templateId: '#quill-coin:Quill.Coin:CoinRules',
        contractId: sandbox.state.coinRules,
        choice: 'CoinRules_DevNet_Tap',
        choiceArgument: { receiver: a, amount: '5.0000000000' },
      },
    };
    const tap = await step('tap (prepare, sign, executeAndWait)', () =>
      sdk.ledger
        .prepare({ partyId: a, commands: [tapCommand] })
        .sign(keys.privateKey)
        .execute({ partyId: a }),
    );
    const events = (
      await sdk.extend({ events: { auth: conn.auth, websocketURL: sandbox.url.replace(/^http/, 'ws') } })
    ).events;
    const firstOf = async <T>(stream: AsyncIterable<T>, found: (e: T) => boolean) => {
      for await (const e of stream) if (found(e)) return e; // leaving the loop closes the socket
      throw new Error('the stream ended first');
    };
    const completion = await step('events.completions (websocket)', () =>
      firstOf(events.completions({ parties: [a], beginOffset: since }), (e) =>
        Object.hasOwn(e.completionResponse ?? {}, 'Completion'),
      ),
    );
    expect(completion.completionResponse).toMatchObject({
      Completion: { value: { updateId: tap.updateId, offset: tap.completionOffset } },
    });
    const update = await step('events.updates (websocket)', () =>
      firstOf(
        events.updates({ partyId: a, templateIds: ['#quill-coin:Quill.Coin:Holding'], beginOffset: since }),
        (e) => Object.hasOwn(e.update ?? {}, 'Transaction'),
      ),
    );
    expect(update.update).toMatchObject({
      Transaction: { value: { updateId: tap.updateId, offset: tap.completionOffset } },
    });
  }, 60_000);
});

describe('coin flows prepared by the sandbox, hashed by the SDK and by Quill (V2)', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ port: 0, scanPort: 0, auth: { secret: SECRET } });
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  test('tap, transfer, transfer instruction (create, accept): equal hashes, executed by the SDK', async () => {
    const conn = await freshUser(sandbox.url, SECRET);
    const { sdk } = conn;
    const raw = sdk.registerPlugins({ raw: RawLedger }).raw;
    const [alice, bob] = await Promise.all([onboard(conn, 'alice'), onboard(conn, 'bob')]);
    const coin = (entity: string) => `#quill-coin:Quill.Coin:${entity}`;
    const flows: string[] = [];

    /** SDK prepare → three hashers agree with the sandbox → SDK sign + executeAndWait. */
    const run = async (name: string, who: typeof alice, command: unknown) => {
      const prepared = sdk.ledger.prepare({ partyId: who.party.partyId, commands: [command] });
      const { response } = await step(`prepare ${name}`, () => prepared.toJSON());
      expect(response.hashingSchemeVersion, name).toBe('HASHING_SCHEME_VERSION_V2');
      const want = response.preparedTransactionHash;
      expect(await hashes(response.preparedTransaction), name).toEqual({
        sdk: want,
        visualizer: want,
        quill: want,
      });
      flows.push(name);
      return step(`execute ${name}`, () =>
        prepared.sign(who.keys.privateKey).execute({ partyId: who.party.partyId }),
      );
    };
    const exercise = (
      entity: string,
      contractId: string | undefined,
      choice: string,
      choiceArgument: unknown,
    ) => ({
      ExerciseCommand: { templateId: coin(entity), contractId, choice, choiceArgument },
    });
    const a = alice.party.partyId;
    const b = bob.party.partyId;

    const tap = await run(
      'tap',
      alice,
      exercise('CoinRules', sandbox.state.coinRules, 'CoinRules_DevNet_Tap', {
        receiver: a,
        amount: '100.0000000000',
      }),
    );
    const [tapped] = await createdBy(raw, a, tap.updateId, 'Quill.Coin:Holding', a);
    expect(tapped).toEqual(expect.any(String));

    const transfer = await run(
      'transfer',
      alice,
      exercise('Holding', tapped, 'Holding_Transfer', {
        receiver: b,
        amount: '30.5',
      }),
    );
    const [change] = await createdBy(raw, a, transfer.updateId, 'Quill.Coin:Holding', a);
    expect(await createdBy(raw, b, transfer.updateId, 'Quill.Coin:Holding', b)).toHaveLength(1);

    const offer = await run(
      'transfer instruction',
      alice,
      exercise('Holding', change, 'Holding_CreateTransferInstruction', {
        receiver: b,
        amount: '10',
        description: 'interop',
      }),
    );
    const [instruction] = await createdBy(raw, b, offer.updateId, 'Quill.Coin:TransferInstruction');
    expect(instruction).toEqual(expect.any(String));

    // A signature by the wrong key is refused by the sandbox, and the SDK surfaces it.
    const accept = exercise('TransferInstruction', instruction, 'TransferInstruction_Accept', {});
    const forged = sdk.ledger.prepare({ partyId: b, commands: [accept] }).sign(alice.keys.privateKey);
    await expect(forged.execute({ partyId: b })).rejects.toMatchObject({
      code: 'FAILED_TO_EXECUTE_TRANSACTION',
    });

    const accepted = await run('transfer instruction accept', bob, accept);
    expect(await createdBy(raw, b, accepted.updateId, 'Quill.Coin:Holding', b)).toHaveLength(1);
    expect(flows).toEqual(['tap', 'transfer', 'transfer instruction', 'transfer instruction accept']);

    // The SDK's history read: latest-pruned-offsets, ledger-end, updates/flats (`verbose: false` + updateFormat).
    const extended = await sdk.extend({ token: { auth: conn.auth, registries: [] } });
    const history = await step('token.holdings', () => extended.token.holdings({ partyId: a }));
    // The coin's Holding implements the token standard's Holding: the SDK's parser sees alice's holdings change
    // through the interface, and the stream reached alice's last update.
    expect(history.nextOffset).toBe(accepted.completionOffset);
    expect(history.transactions.length).toBeGreaterThan(0);
  }, 60_000);
});
