// The loop behind every stream follower (src/redis/consumer.ts) against a real Redis: a cursor never set starts at
// the stream's end or its first entry, what is handed on comes in order and once, and entries that arrive within
// `gatherMs` of a wake-up are handed on as one batch.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { type ConsumerOptions, type StreamEntry, startConsumer } from '../../../src/redis/consumer.ts';
import { loadScript, runScript } from '../../../src/redis/index.ts';
import { fileConnections, until } from '../../support/events.ts';

const MOVE = loadScript('cursor-move');
const connect = fileConnections();

/** A consumer that records each batch it is handed and moves its cursor as a real one does (cursor-move.lua). */
function follow(redis: Redis, stream: string, cursor: string, o: Partial<ConsumerOptions> = {}) {
  const batches: StreamEntry[][] = [];
  const running = startConsumer({
    name: 'test consumer',
    redis,
    reader: connect(),
    stream,
    cursor: { key: cursor, start: 'end' },
    pollMs: 100,
    handle: async (entries, from, to) => {
      if (Number(await runScript(redis, MOVE, [cursor], [from, to])) === 1) batches.push(entries);
    },
    ...o,
  });
  return { batches, running, ids: () => batches.flat().map((e) => e.fields[1]) };
}

describe('a stream consumer', () => {
  it('starts at the end of the stream when its cursor was never set, and hands on what follows in order', async () => {
    const redis = connect();
    const p = `consumer-${randomBytes(4).toString('hex')}`;
    await redis.xadd(`${p}:s`, '*', 'n', 'before');
    const c = follow(redis, `${p}:s`, `${p}:cursor`);
    for (let i = 0; i < 200 && !(await redis.exists(`${p}:cursor`)); i++)
      await new Promise((r) => setTimeout(r, 10));
    for (let i = 0; i < 25; i++) await redis.xadd(`${p}:s`, '*', 'n', String(i));
    await until(() => c.ids().length >= 25, 10_000, '25 entries');
    await c.running.stop();
    expect(c.ids()).toEqual(Array.from({ length: 25 }, (_, i) => String(i)));
    const last = (await redis.xrevrange(`${p}:s`, '+', '-', 'COUNT', 1))[0]?.[0];
    expect(await redis.get(`${p}:cursor`)).toBe(last);
  });

  it("reads from the first entry with start 'first', and a second consumer on the same cursor repeats nothing", async () => {
    const redis = connect();
    const p = `consumer-${randomBytes(4).toString('hex')}`;
    for (let i = 0; i < 10; i++) await redis.xadd(`${p}:s`, '*', 'n', String(i));
    const a = follow(redis, `${p}:s`, `${p}:cursor`, {
      cursor: { key: `${p}:cursor`, start: 'first' },
      batch: 3,
    });
    const b = follow(redis, `${p}:s`, `${p}:cursor`, {
      cursor: { key: `${p}:cursor`, start: 'first' },
      batch: 3,
    });
    for (let i = 10; i < 40; i++) await redis.xadd(`${p}:s`, '*', 'n', String(i));
    await until(() => a.ids().length + b.ids().length >= 40, 10_000, '40 entries');
    await Promise.all([a.running.stop(), b.running.stop()]);
    const all = [...a.ids(), ...b.ids()].map(Number).sort((x, y) => x - y);
    expect(all).toEqual(Array.from({ length: 40 }, (_, i) => i));
  });

  it('hands on the entries that came within gatherMs of a wake-up as one batch', async () => {
    const redis = connect();
    const p = `consumer-${randomBytes(4).toString('hex')}`;
    const c = follow(redis, `${p}:s`, `${p}:cursor`, { gatherMs: 1_000, pollMs: 5_000 });
    for (let i = 0; i < 200 && !(await redis.exists(`${p}:cursor`)); i++)
      await new Promise((r) => setTimeout(r, 10));
    await new Promise((r) => setTimeout(r, 50)); // the consumer is waiting on its reader
    await redis.xadd(`${p}:s`, '*', 'n', 'a');
    await new Promise((r) => setTimeout(r, 40));
    for (const n of ['b', 'c', 'd']) await redis.xadd(`${p}:s`, '*', 'n', n);
    await until(() => c.ids().length >= 4, 10_000, '4 entries');
    await c.running.stop();
    expect(c.batches.map((b) => b.map((e) => e.fields[1]))).toEqual([['a', 'b', 'c', 'd']]);
  });
});
