// The watcher's token index over a real Redis, fed ledger transactions in the participant's shapes (interface
// views, implementedInterfaces): holdings of any registry per party after each step, transfer instructions and
// their `transfer.incoming` events exactly once, however often a transaction is ingested again.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryIndex } from '../../../src/history/index.ts';
import { isLocked, tokenChanges } from '../../../src/history/tokens.ts';
import { eventsOfType } from '../../support/events.ts';
import { testRedis } from '../../support/records.ts';
import { consumed, holdingCreated, instructionCreated, tokenTx } from '../../support/token-events.ts';

const A = 'alice::1220aa';
const B = 'bob::1220bb';
const S = 'stranger::1220cc';
const AMULET = { admin: 'dso::1220dd', id: 'Amulet' };
const USD = { admin: 'issuer::1220ee', id: 'USDx' };

let redis: Redis;
beforeAll(() => {
  redis = testRedis();
});
afterAll(() => redis.disconnect());

function fresh() {
  const prefix = `tok-${randomBytes(4).toString('hex')}:`;
  return { index: new HistoryIndex(redis, prefix), prefix };
}

/** contractId → amount of the party's holdings, sorted. */
async function held(index: HistoryIndex, party: string) {
  return (await index.holdings(party)).map((h) => [h.contractId, h.instrument.id, h.amount]).sort();
}

describe('token index', () => {
  it('follows holdings of every instrument through their Holding view, after each step', async () => {
    const { index } = fresh();
    const t1 = tokenTx(
      1,
      [A],
      [holdingCreated('a1', A, AMULET, '100.0000000000'), holdingCreated('u1', A, USD, '5.5')],
    );
    await index.ingest({ transactions: [t1], checkpoint: 1 });
    expect(await held(index, A)).toEqual([
      ['a1', 'Amulet', '100.0000000000'],
      ['u1', 'USDx', '5.5'],
    ]);
    // A transfer of 40 Amulet to bob with change; a transient holding (created and consumed here) never shows.
    const t2 = tokenTx(
      2,
      [A, B],
      [
        consumed('a1', A),
        holdingCreated('tmp', A, AMULET, '100.0000000000'),
        consumed('tmp', A),
        holdingCreated('b1', B, AMULET, '40.0000000000'),
        holdingCreated('a2', A, AMULET, '60.0000000000'),
        holdingCreated('s1', S, AMULET, '1.0'), // a stranger's: not ours, not indexed
      ],
    );
    await index.ingest({ transactions: [t2], checkpoint: 2 });
    expect(await held(index, A)).toEqual([
      ['a2', 'Amulet', '60.0000000000'],
      ['u1', 'USDx', '5.5'],
    ]);
    expect(await held(index, B)).toEqual([['b1', 'Amulet', '40.0000000000']]);
    expect(await held(index, S)).toEqual([]);
    // Ingested again (a catch-up overlapping the live read): nothing comes back to life, nothing is doubled.
    await index.ingest({ transactions: [t1, t2], checkpoint: 2 });
    expect(await held(index, A)).toEqual([
      ['a2', 'Amulet', '60.0000000000'],
      ['u1', 'USDx', '5.5'],
    ]);
  });

  it('lists pending transfer instructions for sender and receiver; transfer.incoming once, to the receiver', async () => {
    const { index, prefix } = fresh();
    const offer = instructionCreated('ti1', {
      sender: A,
      receiver: B,
      amount: '250.0000000000',
      instrument: AMULET,
      memo: 'invoice 42',
    });
    const t1 = tokenTx(
      10,
      [A, B],
      [
        consumed('a0', A),
        holdingCreated('lockedA', A, AMULET, '250.0000000000', {
          holders: [AMULET.admin],
          expiresAt: '2099-01-01T00:00:00Z',
          expiresAfter: null,
          context: 'transfer to bob',
        }),
        offer,
      ],
    );
    await index.ingest({ transactions: [t1], checkpoint: 10 });
    await index.ingest({ transactions: [t1], checkpoint: 10 }); // again: no second event
    for (const p of [A, B]) {
      const [t] = await index.instructions(p);
      expect(t).toMatchObject({
        contractId: 'ti1',
        sender: A,
        receiver: B,
        amount: '250.0000000000',
        instrument: AMULET,
        memo: 'invoice 42',
        status: 'TransferPendingReceiverAcceptance',
        executeBefore: '2099-01-01T00:00:00Z',
        updateId: t1.updateId,
      });
    }
    const incoming = await eventsOfType(redis, prefix, 'transfer.incoming');
    expect(incoming.map((e) => [e.party, JSON.parse(e.body!).contractId])).toEqual([[B, 'ti1']]);
    expect((await index.holdings(A))[0]?.lock?.holders).toEqual([AMULET.admin]);

    // bob accepts: the instruction and the locked holding go, bob's holding arrives; no new event.
    const t2 = tokenTx(
      11,
      [A, B],
      [
        consumed('ti1', B, 'instruction'),
        consumed('lockedA', A),
        holdingCreated('b1', B, AMULET, '250.0000000000'),
      ],
    );
    await index.ingest({ transactions: [t2], checkpoint: 11 });
    expect(await index.instructions(A)).toEqual([]);
    expect(await index.instructions(B)).toEqual([]);
    expect(await held(index, A)).toEqual([]);
    expect(await held(index, B)).toEqual([['b1', 'Amulet', '250.0000000000']]);
    expect((await eventsOfType(redis, prefix, 'transfer.incoming')).length).toBe(1);
  });

  it('announces an instruction between two wallet parties though Quill submitted it', async () => {
    const { index, prefix } = fresh();
    // The command index says Quill submitted it: no transaction.received, but the receiver is still told.
    const t = tokenTx(
      5,
      [A, B],
      [instructionCreated('ti2', { sender: A, receiver: B, amount: '1.0', instrument: USD })],
    );
    t.commandId = 'cmd-ours';
    await redis.set(index.keys.commandIndex('cmd-ours'), 'sub_x');
    await index.ingest({ transactions: [t], checkpoint: 5 });
    expect(await eventsOfType(redis, prefix, 'transaction.received')).toEqual([]);
    expect((await eventsOfType(redis, prefix, 'transfer.incoming')).map((e) => e.party)).toEqual([B]);
  });

  it('leaves out views that failed or do not parse, and keeps indexing', () => {
    const bad = holdingCreated('x', A, AMULET, '1.0');
    (bad.CreatedEvent.interfaceViews[0] as { viewStatus: { code: number } }).viewStatus = {
      code: 9,
      message: 'view failed',
      details: [],
    } as never;
    const odd = holdingCreated('y', A, AMULET, 'lots');
    const good = holdingCreated('z', A, AMULET, '2');
    const ch = tokenChanges(tokenTx(1, [A], [bad, odd, good]).transaction);
    expect(ch.holdings.map((h) => h.contractId)).toEqual(['z']);
  });

  it('a lock counts until it expires (expiresAt inclusive, expiresAfter from creation, the earlier wins)', () => {
    const now = Date.parse('2026-06-01T00:00:00Z');
    const lock = (expiresAt: string | null, expiresAfterMicros: string | null) => ({
      holders: ['x'],
      expiresAt,
      expiresAfterMicros,
      context: null,
    });
    const at = (l: ReturnType<typeof lock> | null, createdAt = '2026-05-31T23:00:00Z') =>
      isLocked({ lock: l, createdAt }, now);
    expect(at(null)).toBe(false);
    expect(at(lock(null, null))).toBe(true); // no expiry: locked for good
    expect(at(lock('2026-06-01T00:00:00Z', null))).toBe(false); // expiresAt <= now
    expect(at(lock('2026-06-01T00:00:00.001Z', null))).toBe(true);
    expect(at(lock(null, String(3600n * 1_000_000n)))).toBe(false); // created an hour ago, an hour's lock
    expect(at(lock(null, String(7200n * 1_000_000n)))).toBe(true);
    expect(at(lock('2099-01-01T00:00:00Z', String(60n * 1_000_000n)))).toBe(false); // the earlier wins
  });
});
