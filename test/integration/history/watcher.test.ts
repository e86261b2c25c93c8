// The ledger watcher on the sandbox over real HTTP and a real Redis: exactly-once indexing, a checkpoint that
// never goes backwards, pruning → ledger.gap, a party onboarded while it runs, one holder of the lease.
import { randomBytes } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import {
  bootstrapCoin,
  COIN_MODULE,
  COIN_PACKAGE,
  mint,
  type Sandbox,
  startSandbox,
  submitInternal,
} from '@quill/sandbox';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryIndex, LedgerWatcher } from '../../../src/history/index.ts';
import { Lease } from '../../../src/redis/lease.ts';
import { eventsOfType, until } from '../../support/events.ts';
import { testRedis } from '../../support/records.ts';

let sb: Sandbox;
let redis: Redis;
let client: LedgerClient;

beforeAll(async () => {
  sb = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  bootstrapCoin(sb.state);
  redis = testRedis();
  client = new LedgerClient({ baseUrl: sb.url, timeoutMs: 10_000 });
});
afterAll(async () => {
  redis.disconnect();
  await sb.close();
});

function setup(parties: string[], prefix = `w-${randomBytes(4).toString('hex')}:`, idleTimeoutMs = 50) {
  const index = new HistoryIndex(redis, prefix);
  const checkpoints: number[] = [];
  const make = () =>
    new LedgerWatcher({
      ledger: client,
      index,
      lease: new Lease(redis, `${prefix}watch:lease`, { ttlMs: 600 }),
      parties: async () => parties,
      pageSize: 200,
      idleTimeoutMs,
      backoff: { initialMs: 20, maxMs: 200 },
      onProgress: (cp) => checkpoints.push(cp),
    });
  return { index, prefix, make, checkpoints };
}

describe('ledger watcher', () => {
  it('indexes 10,000 updates exactly once across stops and restarts, the checkpoint never going back', async () => {
    const alice = sb.state.allocateLocalParty(`alice-${randomBytes(3).toString('hex')}`).partyId;
    const other = sb.state.allocateLocalParty('stranger').partyId;
    const { index, prefix, make, checkpoints } = setup([alice]);
    const N = 10_000;
    for (let i = 0; i < N / 2; i++) mint(sb.state, alice, '1.0');
    for (let i = 0; i < 50; i++) mint(sb.state, other, '1.0'); // not ours: never indexed
    let w = make();
    w.start();
    // Stop at random points while more updates arrive; a new watcher goes on from the checkpoint.
    for (let round = 0; round < 5; round++) {
      await new Promise((r) => setTimeout(r, 20 + Math.random() * 80));
      await w.stop();
      for (let i = 0; i < N / 10; i++) mint(sb.state, alice, '1.0');
      w = make();
      w.start();
    }
    const end = await client.ledgerEndOffset();
    await until(async () => ((await index.checkpoint()) ?? 0) >= end, 20_000);
    await w.stop();
    expect(await index.count(alice)).toBe(N);
    expect(await index.count(other)).toBe(0);
    for (let i = 1; i < checkpoints.length; i++)
      expect(checkpoints[i]).toBeGreaterThanOrEqual(checkpoints[i - 1]!);
    // Minted by the operator, not submitted through Quill: each is a transaction.received, once.
    const received = await eventsOfType(redis, prefix, 'transaction.received');
    expect(received.length).toBe(N);
    expect(new Set(received.map((e) => JSON.parse(e.body!).updateId)).size).toBe(N);
    // Cursor paging both ways covers the history exactly.
    const seen: number[] = [];
    let after: number | undefined;
    for (;;) {
      const page = await index.page(alice, {
        limit: 500,
        order: 'asc',
        ...(after !== undefined ? { after } : {}),
      });
      seen.push(...page.items.map((t) => t.offset));
      if (page.next === undefined) break;
      after = page.next;
    }
    expect(seen.length).toBe(N);
    expect([...seen].sort((a, b) => a - b)).toEqual(seen);
    const desc = await index.page(alice, { limit: 3, order: 'desc' });
    expect(desc.items.map((t) => t.offset)).toEqual(seen.slice(-3).reverse());
    const one = desc.items[0]!;
    expect((await index.byUpdateId(one.updateId))?.offset).toBe(one.offset);
  }, 60_000);

  it('after pruning while stopped emits ledger.gap naming the lost range and goes on', async () => {
    const bob = sb.state.allocateLocalParty(`bob-${randomBytes(3).toString('hex')}`).partyId;
    const { index, prefix, make } = setup([bob]);
    mint(sb.state, bob, '1.0');
    let w = make();
    w.start();
    await until(async () => (await index.count(bob)) === 1, 20_000);
    await w.stop();
    const cp = (await index.checkpoint())!;
    for (let i = 0; i < 5; i++) mint(sb.state, bob, '1.0');
    const pruneTo = await client.ledgerEndOffset();
    const res = await fetch(`${sb.url}/admin/prune`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offset: pruneTo }),
    });
    expect(res.status).toBeLessThan(300);
    mint(sb.state, bob, '1.0');
    w = make();
    w.start();
    await until(async () => (await index.count(bob)) === 2, 20_000);
    await w.stop();
    const gaps = await eventsOfType(redis, prefix, 'ledger.gap');
    expect(gaps.length).toBe(1);
    expect(gaps[0]!.party).toBe(bob);
    expect(JSON.parse(gaps[0]!.body!)).toMatchObject({ fromExclusive: cp, toInclusive: pruneTo });
  }, 20_000);

  it('follows a party onboarded while it runs, from its allocation on', async () => {
    const carol = `carol-${randomBytes(3).toString('hex')}`;
    const parties: string[] = [];
    const first = sb.state.allocateLocalParty(`dave-${randomBytes(3).toString('hex')}`).partyId;
    parties.push(first);
    const { index, make } = setup(parties);
    const w = make();
    w.start();
    mint(sb.state, first, '1.0');
    await until(async () => (await index.count(first)) === 1, 20_000);
    const id = sb.state.allocateLocalParty(carol).partyId;
    mint(sb.state, id, '2.0'); // before the registry names it
    await until(async () => ((await index.checkpoint()) ?? 0) >= sb.state.log.end, 20_000);
    parties.push(id);
    mint(sb.state, id, '3.0');
    await until(async () => (await index.count(id)) === 2, 20_000);
    await w.stop();
  }, 20_000);

  it('under steady traffic one step reads what gathered meanwhile, not one transaction each', async () => {
    const hana = sb.state.allocateLocalParty(`hana-${randomBytes(3).toString('hex')}`).partyId;
    // A wait for news of up to 1 s: the watcher lets updates gather for 100 ms after a step that caught up.
    const { index, make, checkpoints } = setup([hana], undefined, 1000);
    const w = make();
    w.start();
    mint(sb.state, hana, '1.0');
    await until(async () => (await index.count(hana)) === 1, 20_000);
    const before = checkpoints.length;
    // 40 transactions 10 ms apart: one step each without the gathering (about 40), a handful with it.
    for (let i = 0; i < 40; i++) {
      mint(sb.state, hana, '1.0');
      await new Promise((r) => setTimeout(r, 10));
    }
    await until(async () => (await index.count(hana)) === 41, 20_000);
    await w.stop();
    expect(checkpoints.length - before).toBeLessThanOrEqual(12);
  }, 20_000);

  it('two watchers: one holds the lease; when it dies the other takes over, never two at once', async () => {
    const erin = sb.state.allocateLocalParty(`erin-${randomBytes(3).toString('hex')}`).partyId;
    const { index, make, prefix } = setup([erin]);
    const a = make();
    const b = make();
    a.start();
    b.start();
    const la = new Lease(redis, `${prefix}watch:lease`, { ttlMs: 600 });
    await until(async () => (await redis.get(`${prefix}watch:lease`)) !== null, 20_000);
    expect(await la.acquire()).toBe(false); // held by one of them
    mint(sb.state, erin, '1.0');
    await until(async () => (await index.count(erin)) === 1, 20_000);
    const holder = await redis.get(`${prefix}watch:lease`);
    // The holder "dies": stop() releases; the other must take over and keep indexing.
    await a.stop();
    mint(sb.state, erin, '1.0');
    await until(async () => (await index.count(erin)) === 2, 20_000);
    const now = await redis.get(`${prefix}watch:lease`);
    expect(now).not.toBeNull();
    if (holder !== now) expect(now).not.toBe(holder);
    await b.stop();
  }, 20_000);

  it('an incoming coin transfer from a party Quill does not hold is transaction.received, in history and holdings', async () => {
    const ours = sb.state.allocateLocalParty(`frank-${randomBytes(3).toString('hex')}`).partyId;
    const stranger = sb.state.allocateLocalParty(`gina-${randomBytes(3).toString('hex')}`).partyId;
    const { index, prefix, make } = setup([ours]);
    const w = make();
    w.start();
    const minted = mint(sb.state, stranger, '10.0');
    const holding = minted.nodes.find(
      (n) => n.kind === 'create' && String(n.contract.templateId).endsWith(':Holding'),
    );
    if (holding?.kind !== 'create') throw new Error('no holding minted');
    const transfer = submitInternal(
      sb.state,
      [
        {
          ExerciseCommand: {
            templateId: `#${COIN_PACKAGE}:${COIN_MODULE}:Holding`,
            contractId: holding.contract.contractId,
            choice: 'Holding_Transfer',
            choiceArgument: { receiver: ours, amount: '4.0' },
          },
        },
      ],
      [stranger],
    );
    await until(async () => (await index.count(ours)) === 1, 20_000);
    await w.stop();
    const received = await eventsOfType(redis, prefix, 'transaction.received');
    expect(received.map((e) => [e.party, JSON.parse(e.body!).updateId])).toEqual([[ours, transfer.updateId]]);
    const page = await index.page(ours, { limit: 10, order: 'asc' });
    expect(page.items.map((t) => t.updateId)).toEqual([transfer.updateId]);
    // Its holding, read through the Holding interface's view.
    const held = await index.holdings(ours);
    expect(held.map((h) => [h.instrument.id, h.amount, h.owner])).toEqual([
      ['QuillCoin', '4.0000000000', ours],
    ]);
  }, 20_000);
});
