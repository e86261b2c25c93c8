// End to end on the sandbox over real HTTP and Redis: the watcher reads the demo coin through the token standard's
// Holding interface (instrument {admin: operator, id: 'QuillCoin'}); GET /wallet/v1/parties/{party}/holdings after
// each step of transfers between two wallet parties and a stranger; and the fees a submission's record keeps (the
// prepare response's costEstimation as sent, the committed transaction's paidTrafficCost).
import { randomUUID } from 'node:crypto';
import { META_KEYS, TRANSFER_FACTORY_INTERFACE, TRANSFER_INSTRUCTION_INTERFACE } from '@quill/canton/token';
// The registries' admin mint (not exported by the package yet).
import { grantPreapproval, mint, mintHolding, type Sandbox, submitInternal } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Config } from '../../../src/config/index.ts';
import { redisKeys } from '../../../src/redis/keys.ts';
import { link, startConsoleWallet } from '../../support/console.ts';
import { eventsOfType, until } from '../../support/events.ts';
import { testRedis } from '../../support/records.ts';
import { coinTemplate, LEDGER_USER, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let config: Config;
let alice: string;
let bob: string;
let stranger: string;

interface Balance {
  instrument: { admin: string; id: string };
  total: string;
  locked: string;
  unlocked: string;
  holdings: { contractId: string; amount: string }[];
}

beforeAll(async () => {
  sandbox = await startLedger();
  config = walletConfig(inject('redisUrl'), { WATCHER_IDLE_TIMEOUT_MS: '100' });
  w = await startConsoleWallet(sandbox, config);
  const onboard = async (hint: string) => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    return (
      await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: hint })
    ).json.partyId as string;
  };
  alice = await onboard('alice');
  bob = await onboard('bob');
  stranger = sandbox.state.allocateLocalParty('stranger').partyId;
});
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

/** Waits until the watcher indexed `updateId` for `party` (one Redis step wrote it with the holdings). */
async function indexed(party: string, updateId: string) {
  await until(
    async () => {
      const r = await w.call(
        'GET',
        `/wallet/v1/parties/${encodeURIComponent(party)}/transactions?order=desc`,
      );
      return ((r.json.items ?? []) as { updateId: string }[]).some((t) => t.updateId === updateId);
    },
    15_000,
    `${updateId} indexed for ${party}`,
  );
}

/** Each instrument's registry (the admin party's hint). */
const ADMINS: Record<string, RegExp> = { QuillCoin: /^operator::/, USDQ: /^registrar::/, Amulet: /^DSO::/ };

/** The party's balances: instrument id → [total, locked, holding amounts]. */
async function balances(party: string) {
  const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
  expect(r.status).toBe(200);
  const out: Record<string, [string, string, string[]]> = {};
  for (const b of r.json.instruments as Balance[]) {
    expect(b.instrument.admin).toMatch(ADMINS[b.instrument.id] ?? /^$/);
    out[b.instrument.id] = [b.total, b.locked, b.holdings.map((h) => h.amount).sort()];
  }
  return out;
}

/** A console page's HTML, signed in through a one-time link as an admin (the sign-in form's two steps). */
async function consolePage(path: string): Promise<string> {
  const form = await fetch(await link(w.url, 'admin'));
  const pre = /name="_pre" value="([^"]+)"/.exec(await form.text())?.[1] ?? '';
  const token = new URL(form.url).searchParams.get('t') ?? '';
  const signed = await fetch(`${w.url}/console/signin`, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie: `quill_console_pre=${pre}`, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ t: token, next: path, _pre: pre }),
  });
  const session = /quill_console=([^;]+)/.exec(signed.headers.get('set-cookie') ?? '')?.[1];
  const page = await fetch(`${w.url}${path}`, { headers: { cookie: `quill_console=${session}` } });
  expect(page.status).toBe(200);
  return page.text();
}

/** The party's one QuillCoin holding with at least `amount` (a contract id). */
async function holdingOf(party: string): Promise<string> {
  const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
  const b = (r.json.instruments as Balance[]).find((x) => x.instrument.id === 'QuillCoin');
  const [h] = b?.holdings ?? [];
  if (!h) throw new Error(`${party} holds nothing`);
  return h.contractId;
}

/** Prepares one command for `from` on the sandbox and submits it through Quill (with the prepare's estimate). */
async function submit(
  from: string,
  command: unknown,
  opts: { estimate?: boolean; disclosedContracts?: unknown[] } = {},
) {
  const p = await w.client.prepare({
    ...(opts.disclosedContracts ? { disclosedContracts: opts.disclosedContracts } : {}),
    userId: LEDGER_USER,
    commandId: randomUUID(),
    actAs: [from],
    synchronizerId: '',
    packageIdSelectionPreference: [],
    commands: [command],
    hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
  } as never);
  const sent = await w.call('POST', '/wallet/v1/submissions?wait=20', {
    preparedTransaction: p.preparedTransaction,
    preparedTransactionHash: p.preparedTransactionHash,
    hashingSchemeVersion: p.hashingSchemeVersion,
    ...(opts.estimate && p.costEstimation ? { costEstimation: p.costEstimation } : {}),
  });
  expect(sent.json.status).toBe('committed');
  await indexed(from, sent.json.updateId as string);
  return { record: sent.json, costEstimation: p.costEstimation };
}

/** A demo coin transfer from `from`'s first holding, through Quill. */
async function transfer(from: string, to: string, amount: string, opts: { estimate?: boolean } = {}) {
  const command = {
    ExerciseCommand: {
      templateId: coinTemplate('Holding'),
      contractId: await holdingOf(from),
      choice: 'Holding_Transfer',
      choiceArgument: { receiver: to, amount },
    },
  };
  return submit(from, command, opts);
}

describe('holdings through the Holding interface, on the sandbox', () => {
  it('answers each party its balance per instrument right after each step', async () => {
    const m = mint(sandbox.state, alice, '100.0');
    await indexed(alice, m.updateId);
    expect(await balances(alice)).toEqual({ QuillCoin: ['100', '0', ['100.0000000000']] });
    expect(await balances(bob)).toEqual({});

    const t1 = await transfer(alice, bob, '40.0', { estimate: true });
    await indexed(bob, t1.record.updateId as string);
    expect(await balances(alice)).toEqual({ QuillCoin: ['60', '0', ['60.0000000000']] });
    expect(await balances(bob)).toEqual({ QuillCoin: ['40', '0', ['40.0000000000']] });

    await transfer(bob, stranger, '15.5');
    expect(await balances(bob)).toEqual({ QuillCoin: ['24.5', '0', ['24.5000000000']] });

    // The stranger sends some back (not through Quill): a second holding of the same instrument, summed exactly.
    const gift = mint(sandbox.state, stranger, '1.0').nodes.find((n) => n.kind === 'create');
    if (gift?.kind !== 'create') throw new Error('nothing minted');
    const t3 = submitInternal(
      sandbox.state,
      [
        {
          ExerciseCommand: {
            templateId: coinTemplate('Holding'),
            contractId: gift.contract.contractId,
            choice: 'Holding_Transfer',
            choiceArgument: { receiver: bob, amount: '0.25' },
          },
        },
      ],
      [stranger],
    );
    await indexed(bob, t3.updateId);
    expect(await balances(bob)).toEqual({ QuillCoin: ['24.75', '0', ['0.2500000000', '24.5000000000']] });
    expect(await balances(alice)).toEqual({ QuillCoin: ['60', '0', ['60.0000000000']] });
  }, 60_000);
});

describe('fees on the submission record', () => {
  it("keeps the prepare's costEstimation as sent and the committed transaction's paidTrafficCost", async () => {
    mint(sandbox.state, alice, '10.0');
    await until(async () => (await balances(alice)).QuillCoin?.[2].length === 2, 15_000, 'the mint indexed');
    const { record, costEstimation } = await transfer(alice, bob, '1.0', { estimate: true });
    expect(costEstimation).toBeTruthy();
    expect(record.costEstimation).toEqual(costEstimation);
    const tx = record.transaction as { paidTrafficCost?: number };
    expect(tx.paidTrafficCost).toBeGreaterThan(0);
    expect(record.paidTrafficCost).toBe(tx.paidTrafficCost);
    const again = await w.call('GET', `/wallet/v1/submissions/${record.id}`);
    expect(again.json).toMatchObject({ costEstimation, paidTrafficCost: tx.paidTrafficCost });
    // Without an estimate the record has none.
    const plain = await transfer(alice, bob, '1.0');
    expect(plain.record.costEstimation).toBeUndefined();
    // A batch item takes it too.
    const p = await w.client.prepare({
      userId: LEDGER_USER,
      commandId: randomUUID(),
      actAs: [alice],
      synchronizerId: '',
      packageIdSelectionPreference: [],
      commands: [
        {
          ExerciseCommand: {
            templateId: coinTemplate('Holding'),
            contractId: await holdingOf(alice),
            choice: 'Holding_Transfer',
            choiceArgument: { receiver: bob, amount: '1.0' },
          },
        },
      ],
    } as never);
    const batch = await w.call('POST', '/wallet/v1/submissions/batch', {
      submissions: [
        {
          preparedTransaction: p.preparedTransaction,
          hashingSchemeVersion: p.hashingSchemeVersion,
          costEstimation: p.costEstimation,
        },
      ],
    });
    const [item] = batch.json.items as {
      status: number;
      submission: { id: string; costEstimation: unknown };
    }[];
    expect(item?.status).toBe(202);
    expect(item?.submission.costEstimation).toEqual(p.costEstimation);
    const done = await w.call('GET', `/wallet/v1/submissions/${item?.submission.id}?wait=20`);
    expect(done.json).toMatchObject({ status: 'committed', costEstimation: p.costEstimation });
    expect(typeof done.json.paidTrafficCost).toBe('number');
    // The console's submission page shows both.
    const html = await consolePage(`/console/submissions/${record.id}`);
    expect(html).toMatch(/data-testid="traffic-paid">\d+</);
    expect(html).toContain(
      `data-testid="traffic-estimated">${(costEstimation as { totalTrafficCostEstimation: number }).totalTrafficCostEstimation} (request`,
    );
  }, 60_000);

  it('refuses a malformed costEstimation with a 400 before anything is signed', async () => {
    for (const costEstimation of [
      { totalTrafficCostEstimation: 'lots' },
      {
        estimationTimestamp: 'yesterday',
        confirmationRequestTrafficCostEstimation: 1,
        confirmationResponseTrafficCostEstimation: 1,
        totalTrafficCostEstimation: 2,
      },
      'cheap',
    ]) {
      const r = await w.call('POST', '/wallet/v1/submissions', {
        preparedTransaction: 'AAAA',
        hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2',
        costEstimation,
      });
      expect({ status: r.status, code: (r.json.error as { code?: string } | undefined)?.code }).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
      });
      expect(JSON.stringify(r.json)).toContain('costEstimation');
    }
  });
});

describe('two-step transfers of the registries’ tokens (TransferInstruction)', () => {
  const EMPTY_EXTRA = { context: { values: {} }, meta: { values: {} } };
  const usdq = () => {
    const reg = sandbox.state.registries.get('usdq');
    if (!reg) throw new Error('no USDQ registry');
    return {
      admin: reg.admin,
      factory: reg.contracts.factory as string,
      instrument: { admin: reg.admin, id: 'USDQ' },
    };
  };

  /** The registrar mints USDQ to `owner` (an admin's create; its holding's contract id). */
  function mintUsdq(owner: string, amount: string): { updateId: string; contractId: string } {
    const { admin } = usdq();
    const tx = submitInternal(
      sandbox.state,
      [
        {
          CreateCommand: {
            templateId: '#quill-stablecoin:Quill.Stablecoin:Holding',
            createArguments: {
              registrar: admin,
              owner,
              instrument: { admin, id: 'USDQ' },
              amount,
              lock: null,
              meta: { values: {} },
            },
          },
        },
      ],
      [admin, owner],
    );
    const created = tx.nodes.find((n) => n.kind === 'create');
    return {
      updateId: tx.updateId,
      contractId: created?.kind === 'create' ? created.contract.contractId : '',
    };
  }

  /** `TransferFactory_Transfer` through the interface, as `sender` with `inputs` (the registrar discloses its factory). */
  function offer(
    sender: string,
    receiver: string,
    amount: string,
    inputs: string[],
    memo: string,
    preapproval?: string,
  ) {
    const { admin, factory, instrument } = usdq();
    const now = Date.now();
    return submitInternal(
      sandbox.state,
      [
        {
          ExerciseCommand: {
            templateId: TRANSFER_FACTORY_INTERFACE,
            contractId: factory,
            choice: 'TransferFactory_Transfer',
            choiceArgument: {
              expectedAdmin: admin,
              transfer: {
                sender,
                receiver,
                amount,
                instrumentId: instrument,
                requestedAt: new Date(now - 60_000).toISOString(),
                executeBefore: new Date(now + 3_600_000).toISOString(),
                inputHoldingCids: inputs,
                meta: { values: { [META_KEYS.reason]: memo } },
              },
              extraArgs: preapproval
                ? {
                    context: {
                      values: { 'transfer-preapproval': { tag: 'AV_ContractId', value: preapproval } },
                    },
                    meta: { values: {} },
                  }
                : EMPTY_EXTRA,
            },
          },
        },
      ],
      [sender, admin],
    );
  }

  /** The locked holding behind an offer (the first holding it created: the engine locks before the change). */
  const lockedBy = (tx: ReturnType<typeof offer>) =>
    tx.nodes.find((n) => n.kind === 'create' && n.contract.templateId.endsWith(':Holding'))?.contract
      .contractId as string;

  /**
   * The receiver's (or sender's) answer to an instruction, through Quill, with the locked holding disclosed as a
   * registry's choice-context endpoint would (the receiver is no stakeholder of the sender's locked holding).
   */
  async function answer(party: string, contractId: string, choice: string, locked: string) {
    const ev = await w.client.eventsByContractId({
      contractId: locked,
      eventFormat: {
        filtersByParty: {
          [usdq().admin]: {
            cumulative: [
              { identifierFilter: { WildcardFilter: { value: { includeCreatedEventBlob: true } } } },
            ],
          },
        },
      },
    });
    const c = ev.created?.createdEvent;
    return submit(
      party,
      {
        ExerciseCommand: {
          templateId: TRANSFER_INSTRUCTION_INTERFACE,
          contractId,
          choice,
          choiceArgument: { extraArgs: EMPTY_EXTRA },
        },
      },
      {
        disclosedContracts: [
          {
            templateId: c?.templateId,
            contractId: locked,
            createdEventBlob: c?.createdEventBlob,
            synchronizerId: ev.created?.synchronizerId,
          },
        ],
      },
    );
  }

  const pending = async (party: string) => {
    const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/transfer-instructions`);
    expect(r.status).toBe(200);
    return (r.json.items as Record<string, unknown>[]).map((i) => [
      i.direction,
      i.sender === party ? 'self' : i.sender,
      i.receiver === party ? 'self' : i.receiver,
      i.amount,
      i.memo,
    ]);
  };

  /** The contract ids of the party's holdings of one instrument. */
  async function holdingsOf(party: string, id: string): Promise<string[]> {
    const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
    const b = (r.json.instruments as Balance[]).find((x) => x.instrument.id === id);
    return (b?.holdings ?? []).map((h) => h.contractId);
  }

  /** The wallet's events of one type, in order, from its event log. */
  async function eventsOf(type: string) {
    const redis = testRedis();
    try {
      const all = await eventsOfType(redis, redisKeys(config.redisPrefix).prefix, type);
      return all.map((e) => ({
        party: e.party,
        body: JSON.parse(e.body ?? 'null') as { contractId: string },
      }));
    } finally {
      redis.disconnect();
    }
  }

  it('accepted, rejected and withdrawn instructions: listings, holdings per instrument and events after each step', async () => {
    const coin = mint(sandbox.state, alice, '3.0');
    await indexed(alice, coin.updateId);
    // Amulet, whose holdings are its registry's own template (an amount record of its own): read by the view.
    mintHolding(sandbox.state, 'amulet', alice, '7.5');
    await until(async () => (await balances(alice)).Amulet !== undefined, 15_000, 'the Amulet indexed');
    expect((await balances(alice)).Amulet).toEqual(['7.5', '0', ['7.5000000000']]);
    const { contractId: gift } = mintUsdq(stranger, '100.0');
    // 1. The stranger offers alice 30 USDQ: her incoming instruction, the stranger's locked holding is not hers.
    const o1 = offer(stranger, alice, '30.0', [gift], 'invoice 42');
    await indexed(alice, o1.updateId);
    expect(await pending(alice)).toEqual([['incoming', stranger, 'self', '30.0000000000', 'invoice 42']]);
    expect((await balances(alice)).USDQ).toBeUndefined();
    expect(await pending(stranger)).toEqual([]); // not a wallet party: not indexed
    const page = await consolePage(`/console/parties/${encodeURIComponent(alice)}`);
    expect(page).toContain('data-testid="party-transfer-instructions"');
    expect(page).toContain('<td>invoice 42</td>');
    const [i1] = (
      await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(alice)}/transfer-instructions`)
    ).json.items as { contractId: string; executeBefore: string; instrument: unknown }[];
    expect(i1?.instrument).toEqual(usdq().instrument);

    // 2. alice accepts through Quill: 30 USDQ arrive, the instruction is gone.
    await answer(alice, i1!.contractId, 'TransferInstruction_Accept', lockedBy(o1));
    expect(await pending(alice)).toEqual([]);
    expect((await balances(alice)).USDQ).toEqual(['30', '0', ['30.0000000000']]);

    // 3. alice offers bob 12.5 of them: her outgoing, his incoming; her 12.5 locked, 17.5 change.
    const o2 = offer(alice, bob, '12.5', await holdingsOf(alice, 'USDQ'), 'rent');
    await indexed(bob, o2.updateId);
    await indexed(alice, o2.updateId);
    expect(await pending(alice)).toEqual([['outgoing', 'self', bob, '12.5000000000', 'rent']]);
    expect(await pending(bob)).toEqual([['incoming', alice, 'self', '12.5000000000', 'rent']]);
    expect((await balances(alice)).USDQ).toEqual(['30', '12.5', ['12.5000000000', '17.5000000000']]);

    // 4. bob rejects: alice's 12.5 come back unlocked; both listings empty.
    const [i2] = (await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(bob)}/transfer-instructions`))
      .json.items as { contractId: string }[];
    const rejected = await answer(bob, i2!.contractId, 'TransferInstruction_Reject', lockedBy(o2));
    await indexed(alice, rejected.record.updateId as string);
    expect(await pending(bob)).toEqual([]);
    expect(await pending(alice)).toEqual([]);
    expect((await balances(alice)).USDQ).toEqual(['30', '0', ['12.5000000000', '17.5000000000']]);
    expect((await balances(bob)).USDQ).toBeUndefined();

    // 5. alice offers bob 5 again and withdraws it.
    const o3 = offer(alice, bob, '5', await holdingsOf(alice, 'USDQ'), 'oops');
    await indexed(bob, o3.updateId);
    expect((await balances(alice)).USDQ?.[1]).toBe('5');
    const [i3] = (
      await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(alice)}/transfer-instructions`)
    ).json.items as { contractId: string }[];
    const withdrawn = await answer(alice, i3!.contractId, 'TransferInstruction_Withdraw', lockedBy(o3));
    await indexed(bob, withdrawn.record.updateId as string);
    expect(await pending(bob)).toEqual([]);
    expect((await balances(alice)).USDQ?.slice(0, 2)).toEqual(['30', '0']);

    // 6. bob pre-approves USDQ: alice's 2.5 arrive in one step, no instruction, no event.
    const pre = grantPreapproval(sandbox.state, 'usdq', bob);
    const direct = offer(alice, bob, '2.5', await holdingsOf(alice, 'USDQ'), 'direct', pre);
    await indexed(bob, direct.updateId);
    await indexed(alice, direct.updateId);
    expect(await pending(bob)).toEqual([]);
    expect((await balances(bob)).USDQ).toEqual(['2.5', '0', ['2.5000000000']]);
    expect((await balances(alice)).USDQ).toEqual(['27.5', '0', ['27.5000000000']]);

    // The events: one transfer.incoming per instruction, to its receiver, never twice.
    const events = await eventsOf('transfer.incoming');
    expect(events.map((e) => [e.party, e.body.contractId])).toEqual([
      [alice, i1!.contractId],
      [bob, i2!.contractId],
      [bob, i3!.contractId],
    ]);
    // Two instruments, each summed on its own.
    const all = await balances(alice);
    expect(Object.keys(all).sort()).toEqual(['Amulet', 'QuillCoin', 'USDQ']);
    expect(all.USDQ?.[0]).toBe('27.5');
    // The console's party page: a row per instrument.
    const html = await consolePage(`/console/parties/${encodeURIComponent(alice)}`);
    for (const id of ['Amulet', 'QuillCoin', 'USDQ']) expect(html).toContain(`<td>${id}</td>`);
  }, 60_000);
});
