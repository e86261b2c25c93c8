// History retention (HISTORY_RETENTION_HOURS): the watcher's per-transaction history older than the window goes by
// update id, by hash and from every party's history; newer entries, and holdings and pending instructions (live
// state), stay. Two sweeps side by side remove each entry once.
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { HistoryIndex, type IndexedTransaction, pruneHistory } from '../../../src/history/index.ts';
import { testRedis } from '../../support/records.ts';
import { holdingCreated, tokenTx } from '../../support/token-events.ts';

const redis = testRedis();
afterAll(() => redis.quit());

const A = 'alice::1220aa';
const B = 'bob::1220bb';

function tx(offset: number, parties: string[], recordTime: string, hash?: string): IndexedTransaction {
  const updateId = `u-${offset}`;
  return {
    updateId,
    offset,
    recordTime,
    parties,
    ...(hash ? { externalTransactionHash: hash } : {}),
    transaction: { updateId, offset, events: [], synchronizerId: 's', effectiveAt: recordTime, recordTime },
  } as unknown as IndexedTransaction;
}

describe('history retention', () => {
  it('removes entries older than the window from every index, keeps newer ones and live state', async () => {
    const prefix = `hr-${randomBytes(4).toString('hex')}:`;
    const index = new HistoryIndex(redis, prefix);
    const old = '2026-01-01T00:00:00Z';
    const recent = '2026-03-01T00:00:00Z';
    const cutoff = Date.parse('2026-02-01T00:00:00Z');
    const holding = {
      ...tokenTx(3, [A], [holdingCreated('h1', A, { admin: 'dso::1220dd', id: 'Amulet' }, '5.0')]),
    };
    await index.ingest({
      transactions: [
        tx(1, [A, B], old, 'aa'.repeat(32)),
        tx(2, [B], old),
        holding, // recordTime 2026-01-01: old, but its holding is live state
        tx(4, [A], recent, 'bb'.repeat(32)),
        tx(5, [A, B], recent),
      ],
      checkpoint: 5,
    });
    expect(await index.count(A)).toBe(4);
    const [x, y] = await Promise.all([
      pruneHistory(redis, prefix, [A, B], cutoff, 2),
      pruneHistory(redis, prefix, [B, A], cutoff, 2),
    ]);
    expect(x + y).toBe(3);
    expect(await pruneHistory(redis, prefix, [A, B], cutoff)).toBe(0);
    expect(await index.byUpdateId('u-1')).toBeUndefined();
    expect(await index.byHash('aa'.repeat(32))).toBeUndefined();
    expect(await index.byUpdateId(holding.updateId)).toBeUndefined();
    expect((await index.byHash('bb'.repeat(32)))?.updateId).toBe('u-4');
    expect((await index.page(A, { limit: 10, order: 'asc' })).items.map((t) => t.updateId)).toEqual([
      'u-4',
      'u-5',
    ]);
    expect((await index.page(B, { limit: 10, order: 'asc' })).items.map((t) => t.updateId)).toEqual(['u-5']);
    expect((await index.holdings(A)).map((h) => h.contractId)).toEqual(['h1']);
    // A later cutoff takes the rest.
    expect(await pruneHistory(redis, prefix, [A, B], Date.parse('2026-04-01T00:00:00Z'))).toBe(2);
    expect(await redis.hlen(index.keys.historyByUpdate)).toBe(0);
    expect(await redis.exists(index.keys.historyOfParty(A), index.keys.historyOfParty(B))).toBe(0);
    expect((await index.holdings(A)).map((h) => h.contractId)).toEqual(['h1']);
  });

  it('removes an entry from the history of every party it names, swept for one of them', async () => {
    const prefix = `hr-${randomBytes(4).toString('hex')}:`;
    const index = new HistoryIndex(redis, prefix);
    await index.ingest({ transactions: [tx(1, [A, B], '2026-01-01T00:00:00Z')], checkpoint: 1 });
    const cutoff = Date.parse('2026-02-01T00:00:00Z');
    expect(await pruneHistory(redis, prefix, [A], cutoff)).toBe(1);
    expect(await index.count(B)).toBe(0);
  });
});
