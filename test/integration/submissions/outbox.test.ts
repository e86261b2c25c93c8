// The outbox: one entry for each record that becomes final, written in the same Lua step as the final state
// (never for a refused transition, never twice when finalizers race), and the waiter that reads it.
import { afterAll, describe, expect, it } from 'vitest';
import { OutcomeWaiter, SubmissionStore } from '../../../src/submissions/index.ts';
import { expire, reject } from '../../../src/submissions/transitions.ts';
import { freshStore, payload, record, testRedis } from '../../support/records.ts';

const redis = testRedis();
afterAll(() => redis.quit());

const committed = (updateId: string, offset: number) => (r: Parameters<ReturnType<typeof reject>>[0]) => ({
  ...r,
  status: 'committed' as const,
  updateId,
  completionOffset: offset,
});

describe('outbox', () => {
  it('gets one entry at creation and one when a record becomes final, with what readers need, and none for other changes', async () => {
    const store = freshStore(redis);
    const a = record();
    await store.create(a, payload);
    const created = await store.outbox.read('0-0');
    expect(created.map((e) => [e.id, e.status, e.from])).toEqual([[a.id, a.status, null]]);
    const start = created[0]?.cursor ?? '';
    await store.update(a.id, (r) => ({ ...r, status: 'queued' }));
    await store.update(a.id, (r) => ({ ...r, status: 'executing' }));
    expect(await store.outbox.read(start)).toEqual([]);
    const done = await store.update(a.id, committed('upd-1', 7));
    const entries = await store.outbox.read(start);
    expect(entries).toEqual([
      {
        cursor: expect.stringMatching(/^\d+-\d+$/),
        id: a.id,
        status: 'committed',
        from: 'executing',
        party: a.party,
        commandId: a.commandId,
        updateId: 'upd-1',
        completionOffset: 7,
        errorCode: null,
        at: done.updatedAt,
      },
    ]);
    // A final record is never written again: a later transition is refused and adds nothing.
    await store.update(a.id, expire({ code: 'LATE', message: 'late' }));
    expect(await store.outbox.read(start)).toHaveLength(1);
    expect(await store.outbox.end()).toBe(entries[0]?.cursor);
  });

  it('has exactly one entry per record when many writers race to finalize it', async () => {
    const store = freshStore(redis);
    const recs = Array.from({ length: 20 }, () => record({ status: 'executing' }));
    for (const r of recs) await store.create(r, payload);
    const start = await store.outbox.end();
    await Promise.all(
      recs.flatMap((r, i) => [
        store.update(r.id, committed(`upd-${i}`, i + 1)),
        store.update(r.id, reject({ code: 'X', message: 'x' })),
        store.update(r.id, expire({ code: 'Y', message: 'y' })),
        store.update(r.id, committed(`upd-${i}-b`, i + 100)),
      ]),
    );
    const entries = await store.outbox.read(start, 1000);
    expect(entries.map((e) => e.id).sort()).toEqual(recs.map((r) => r.id).sort());
    for (const e of entries) {
      const final = await store.getRecord(e.id);
      expect(e.status).toBe(final?.status);
      expect(e.updateId).toBe(final?.updateId);
    }
  });

  it('pages after a cursor, and a blocking read wakes when an entry arrives', async () => {
    const store = freshStore(redis);
    const recs = Array.from({ length: 5 }, () => record({ status: 'executing' }));
    for (const r of recs) await store.create(r, payload);
    const start = await store.outbox.end();
    for (const r of recs.slice(0, 3)) await store.update(r.id, reject({ code: 'R', message: 'r' }));
    const first = await store.outbox.read(start, 2);
    expect(first.map((e) => e.id)).toEqual(recs.slice(0, 2).map((r) => r.id));
    const rest = await store.outbox.read(first[1]?.cursor ?? '', 10);
    expect(rest.map((e) => e.id)).toEqual([recs[2]?.id]);
    const blocking = testRedis();
    try {
      const pending = store.outbox.read(rest[0]?.cursor ?? '', 10, { blockMs: 5000, via: blocking });
      await new Promise((r) => setTimeout(r, 100));
      await store.update(recs[3]?.id ?? '', reject({ code: 'R', message: 'r' }));
      expect((await pending).map((e) => e.id)).toEqual([recs[3]?.id]);
    } finally {
      blocking.disconnect();
    }
  });
});

describe('OutcomeWaiter', () => {
  it('wakes on a final record written by another connection, long before its poll', async () => {
    const store = freshStore(redis);
    const other = testRedis();
    const writer = new SubmissionStore(other, store.prefix);
    const waiter = new OutcomeWaiter(testRedis(), store, 60_000);
    try {
      const a = record({ status: 'executing' });
      await store.create(a, payload);
      const started = Date.now();
      const waiting = waiter.wait(a.id, 30_000);
      await new Promise((r) => setTimeout(r, 200));
      await writer.update(a.id, committed('upd-w', 3));
      const rec = await waiting;
      expect(rec?.status).toBe('committed');
      expect(Date.now() - started).toBeLessThan(5000);
    } finally {
      await waiter.close();
      other.disconnect();
    }
  });

  it('returns at once for a record that was final before the wait began, and times out on one that is not', async () => {
    const store = freshStore(redis);
    const waiter = new OutcomeWaiter(testRedis(), store, 50);
    try {
      const a = record({ status: 'executing' });
      const b = record({ status: 'executing' });
      await store.create(a, payload);
      await store.create(b, payload);
      await store.update(a.id, reject({ code: 'R', message: 'r' }));
      let started = Date.now();
      expect((await waiter.wait(a.id, 10_000))?.status).toBe('rejected');
      expect(Date.now() - started).toBeLessThan(1000);
      started = Date.now();
      expect((await waiter.wait(b.id, 300))?.status).toBe('executing');
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    } finally {
      await waiter.close();
    }
  });
});
