// End to end on the sandbox over real HTTP and Redis: the watcher reads the demo coin through the token standard's
// Holding interface (instrument {admin: operator, id: 'QuillCoin'}); GET /wallet/v1/parties/{party}/holdings after
// each step of transfers between two wallet parties and a stranger; and the fees a submission's record keeps (the
// prepare response's costEstimation as sent, the committed transaction's paidTrafficCost).
import { randomUUID } from 'node:crypto';
import { mint, type Sandbox, submitInternal } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { startConsoleWallet } from '../../support/console.ts';
import { until } from '../../support/events.ts';
import { coinTemplate, LEDGER_USER, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
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
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { WATCHER_IDLE_TIMEOUT_MS: '100' }));
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

/** The party's balances: instrument id → [total, locked, holding amounts]. */
async function balances(party: string) {
  const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
  expect(r.status).toBe(200);
  const out: Record<string, [string, string, string[]]> = {};
  for (const b of r.json.instruments as Balance[]) {
    expect(b.instrument.admin).toMatch(/^operator::/);
    out[b.instrument.id] = [b.total, b.locked, b.holdings.map((h) => h.amount).sort()];
  }
  return out;
}

/** The party's one QuillCoin holding with at least `amount` (a contract id). */
async function holdingOf(party: string): Promise<string> {
  const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
  const [b] = r.json.instruments as Balance[];
  const [h] = b?.holdings ?? [];
  if (!h) throw new Error(`${party} holds nothing`);
  return h.contractId;
}

/** Prepares a coin transfer for `from` on the sandbox and submits it through Quill, with the prepare's estimate. */
async function transfer(from: string, to: string, amount: string, opts: { estimate?: boolean } = {}) {
  const p = await w.client.prepare({
    userId: LEDGER_USER,
    commandId: randomUUID(),
    actAs: [from],
    synchronizerId: '',
    packageIdSelectionPreference: [],
    commands: [
      {
        ExerciseCommand: {
          templateId: coinTemplate('Holding'),
          contractId: await holdingOf(from),
          choice: 'Holding_Transfer',
          choiceArgument: { receiver: to, amount },
        },
      },
    ],
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
    expect(typeof tx.paidTrafficCost).toBe('number');
    expect(record.paidTrafficCost).toBe(tx.paidTrafficCost);
    const again = await w.call('GET', `/wallet/v1/submissions/${record.id}`);
    expect(again.json).toMatchObject({ costEstimation, paidTrafficCost: tx.paidTrafficCost });
    // Without an estimate the record has none.
    const plain = await transfer(alice, bob, '1.0');
    expect(plain.record.costEstimation).toBeUndefined();
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
