// Issue 32 item 4: a final record older than RECORD_RETENTION_HOURS goes with every index entry and its
// Idempotency-Key, in one Lua step per batch following the outbox; non-final records, records final inside the
// window and records the relay has not passed stay. A sweep run twice or side by side removes each record once.
import { afterAll, describe, expect, it } from 'vitest';
import { dropRecords, trimOutbox } from '../../../src/submissions/index.ts';
import { freshStore, testRedis } from '../../support/records.ts';
import { ALL_INDEXES, commit, created, expireIt, indexed, relayAll, sleep } from './support.ts';

const redis = testRedis();
afterAll(() => redis.quit());

describe('record retention', () => {
  it('removes final records past the window with every index entry and the Idempotency-Key, nothing else', async () => {
    const store = freshStore(redis);
    const old = await created(store);
    const oldExpired = await created(store, {}, false);
    const live = await created(store);
    const late = await created(store);
    await commit(store, old.id);
    await expireIt(store, oldExpired.id);
    await sleep(5);
    const cutoff = Date.now();
    await sleep(5);
    await commit(store, late.id);
    await relayAll(store);

    expect(await dropRecords(store, cutoff)).toBe(2);
    expect(await store.get(old.id)).toBeUndefined();
    expect(await store.get(oldExpired.id)).toBeUndefined();
    expect(await indexed(store, old)).toEqual([]);
    expect(await indexed(store, oldExpired)).toEqual([]);
    expect(await store.byUpdateId(`upd-${old.id}`)).toBeUndefined();
    expect(await store.idempotency('tok|alice', `k-${old.id}`)).toBeUndefined();
    // Not final (whatever its age) or final inside the window: every entry stays.
    expect(await indexed(store, live)).toEqual(ALL_INDEXES);
    expect(await indexed(store, late)).toEqual(ALL_INDEXES);
    expect((await store.byUpdateId(`upd-${late.id}`))?.id).toBe(late.id);
    const listed = await store.list({ limit: 10 });
    expect(listed.items.map((r) => r.id).sort()).toEqual([live.id, late.id].sort());
    expect((await store.countByStatus()).committed).toBe(1);

    // Again: nothing twice. A later cutoff reaches the later record, never the live one.
    expect(await dropRecords(store, cutoff)).toBe(0);
    expect(await dropRecords(store, Date.now() + 1)).toBe(1);
    expect(await indexed(store, live)).toEqual(ALL_INDEXES);
    expect(await store.get(late.id)).toBeUndefined();
  });

  it('never passes the event relay: a record whose final entry was not relayed stays', async () => {
    const store = freshStore(redis);
    const a = await created(store);
    await commit(store, a.id);
    expect(await dropRecords(store, Date.now() + 1)).toBe(0);
    expect(await indexed(store, a)).toEqual(ALL_INDEXES);
    await relayAll(store);
    expect(await dropRecords(store, Date.now() + 1)).toBe(1);
    expect(await indexed(store, a)).toEqual([]);
  });

  it('keeps a command index handed on to a newer record, and removes a record without an idem field (older layout)', async () => {
    const store = freshStore(redis);
    const first = await created(store);
    await expireIt(store, first.id);
    // The same command id, another hash: handed to the new record once the first is expired.
    const second = await created(store, { commandId: first.commandId });
    expect((await store.byCommandId(first.commandId))?.id).toBe(second.id);
    // As a record written before create.lua stored the key's name.
    await redis.hdel(store.keys.record(first.id), 'idem');
    await relayAll(store);
    expect(await dropRecords(store, Date.now() + 1)).toBe(1);
    expect(await store.get(first.id)).toBeUndefined();
    expect((await store.byCommandId(first.commandId))?.id).toBe(second.id);
    expect(await indexed(store, second)).toEqual(ALL_INDEXES);
    // Its Idempotency-Key could not be named: it stays (and names a record that answers 404).
    expect(await store.idempotency('tok|alice', `k-${first.id}`)).toBeDefined();
  });

  it("removes the Idempotency-Keys of requests refused for the record's command id with it, unless reused", async () => {
    const store = freshStore(redis);
    const held = await created(store);
    // Two more requests for the same command id while it is live: not stored, but their keys are (create.lua).
    const again = await created(store, { commandId: held.commandId });
    const third = await created(store, { commandId: held.commandId });
    expect((await store.byCommandId(held.commandId))?.id).toBe(held.id);
    expect((await store.idempotency('tok|alice', `k-${again.id}`))?.id).toBe(again.id);
    // The third key now holds something else (as if set anew): it is not this record's to remove.
    const thirdKey = store.keys.idempotency('tok|alice', `k-${third.id}`);
    await redis.set(thirdKey, JSON.stringify({ fingerprint: 'g', id: 'sub_other' }));
    await commit(store, held.id);
    await relayAll(store);
    expect(await dropRecords(store, Date.now() + 1)).toBe(1);
    expect(await store.idempotency('tok|alice', `k-${held.id}`)).toBeUndefined();
    expect(await store.idempotency('tok|alice', `k-${again.id}`)).toBeUndefined();
    expect((await store.idempotency('tok|alice', `k-${third.id}`))?.id).toBe('sub_other');
  });

  it("a damaged 'idems' field stops neither a request for the command id nor the record's removal", async () => {
    const store = freshStore(redis);
    const held = await created(store);
    await redis.hset(store.keys.record(held.id), 'idems', 'not json');
    const again = await created(store, { commandId: held.commandId });
    expect((await store.idempotency('tok|alice', `k-${again.id}`))?.id).toBe(again.id);
    await redis.hset(store.keys.record(held.id), 'idems', '[1');
    await commit(store, held.id);
    await relayAll(store);
    expect(await dropRecords(store, Date.now() + 1)).toBe(1);
    expect(await store.get(held.id)).toBeUndefined();
  });

  it('two sweeps side by side remove each of 700 records once', async () => {
    const store = freshStore(redis);
    const recs = [];
    for (let i = 0; i < 700; i++) recs.push(await created(store));
    for (const r of recs) await expireIt(store, r.id);
    await relayAll(store);
    const [a, b, c] = await Promise.all([
      dropRecords(store, Date.now() + 1),
      dropRecords(store, Date.now() + 1),
      dropRecords(store, Date.now() + 1),
    ]);
    expect(a + b + c).toBe(700);
    expect(await redis.zcard(store.keys.allIndex)).toBe(0);
    expect(await dropRecords(store, Date.now() + 1)).toBe(0);
  });

  it('a cursor that moved meanwhile changes nothing (the step is the cursor compare-and-set)', async () => {
    const store = freshStore(redis);
    const a = await created(store);
    await commit(store, a.id);
    await relayAll(store);
    // Another sweep took the cursor past the entry without removing (as a crashed one would not): nothing removed.
    const [last] = await redis.xrevrange(store.keys.outbox, '+', '-', 'COUNT', 1);
    await redis.set(store.keys.recordRetentionCursor, last?.[0] as string);
    expect(await dropRecords(store, Date.now() + 1)).toBe(0);
    expect(await indexed(store, a)).toEqual(ALL_INDEXES);
  });
});

describe('outbox trim', () => {
  it('trims up to the slowest cursor and never past one that has not moved', async () => {
    const store = freshStore(redis);
    const recs = [];
    for (let i = 0; i < 5; i++) recs.push(await created(store));
    for (const r of recs) await commit(store, r.id);
    expect(await redis.xlen(store.keys.outbox)).toBe(10);
    // The relay never ran: no cursor, nothing trimmed.
    await store.dropPayloads(Date.now() + 1);
    expect(await trimOutbox(store, { records: true })).toBe(0);
    await relayAll(store);
    // Record retention has not run yet: still nothing.
    expect(await trimOutbox(store, { records: true })).toBe(0);
    // Off: it is not a consumer, the relay and payload retention passed everything.
    expect(await trimOutbox(store, { records: false })).toBe(10);
    expect(await redis.xlen(store.keys.outbox)).toBe(0);

    // More entries; the relay stops after some: the trim stops at its cursor.
    const more = [];
    for (let i = 0; i < 4; i++) more.push(await created(store));
    const relayCursorBefore = await redis.get(store.keys.relayCursor);
    await store.dropPayloads(Date.now() + 1);
    await dropRecords(store, Date.now() + 1);
    expect(await trimOutbox(store, { records: true })).toBe(0);
    expect(await redis.get(store.keys.relayCursor)).toBe(relayCursorBefore);
    expect(await redis.xlen(store.keys.outbox)).toBe(4);
    await relayAll(store);
    await dropRecords(store, Date.now() + 1);
    expect(await trimOutbox(store, { records: true })).toBe(4);
    // The records not final yet stay, and their final entries will be read after the cursors.
    for (const r of more) expect(await indexed(store, r)).toEqual(ALL_INDEXES);
    for (const r of more) await commit(store, r.id);
    await relayAll(store);
    expect(await dropRecords(store, Date.now() + 1)).toBe(4);
  });
});
