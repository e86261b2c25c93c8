// An event sink (src/events/sink.ts) defined in one file — here, this test's collector: it receives the events
// written after it first started, in order; a batch it failed to hand on comes again; a restart resumes after the
// last batch it handed on; two processes under one lease never both deliver.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { EventLog, type QuillEvent, startSink } from '../../../src/events/index.ts';
import { Lease, redisKeys } from '../../../src/redis/index.ts';
import { fileConnections, until } from '../../support/events.ts';

const connect = fileConnections();

/** A sink in a few lines: it collects what it is handed, and fails on demand. */
function collector(prefix: string, lease?: Lease) {
  const got: QuillEvent[] = [];
  let failNext = 0;
  const running = startSink({
    name: 'collector',
    redis: connect(),
    reader: connect(),
    prefix,
    pollMs: 50,
    batch: 7,
    ...(lease ? { lease } : {}),
    deliver: async (events) => {
      if (failNext > 0) {
        failNext--;
        throw new Error('the broker is away');
      }
      got.push(...events);
    },
  });
  return { got, running, fail: (n: number) => (failNext = n) };
}

describe('an event sink', () => {
  it('hands on what is written after it started, in order; a failed batch comes again; a restart resumes', async () => {
    const prefix = `sink-${randomBytes(4).toString('hex')}`;
    const log = new EventLog(connect(), prefix);
    await log.append('submission.committed', 'a::1', { before: true });
    const first = collector(prefix);
    // The cursor is set at the log's end on the first step.
    for (let i = 0; i < 200 && !(await connect().exists(redisKeys(prefix).sinkCursor('collector'))); i++)
      await new Promise((r) => setTimeout(r, 20));
    const written: string[] = [];
    first.fail(2);
    for (let i = 0; i < 20; i++) written.push(await log.append('submission.committed', 'a::1', { i }));
    await until(() => new Set(first.got.map((e) => e.id)).size === 20, 10_000, 'the first 20 events');
    await first.running.stop();
    // At least once: a failed batch was handed on again, so nothing is missing and the order holds.
    const ids = first.got.map((e) => e.id);
    expect([...new Set(ids)]).toEqual(written);
    expect(first.got.some((e) => (e.body as { before?: boolean }).before)).toBe(false);

    for (let i = 0; i < 10; i++) written.push(await log.append('transaction.received', 'b::2', { i }));
    const second = collector(prefix);
    await until(() => second.got.length >= 10, 10_000, 'the events written while it was stopped');
    await second.running.stop();
    expect(second.got.map((e) => e.id)).toEqual(written.slice(20));
  });

  it('two processes under one lease: one delivers, and the other takes over when it stops', async () => {
    const prefix = `sink-${randomBytes(4).toString('hex')}`;
    const log = new EventLog(connect(), prefix);
    const key = redisKeys(prefix).sinkLease('collector');
    const a = collector(prefix, new Lease(connect(), key, { ttlMs: 500 }));
    const b = collector(prefix, new Lease(connect(), key, { ttlMs: 500 }));
    await new Promise((r) => setTimeout(r, 300));
    const written: string[] = [];
    for (let i = 0; i < 15; i++) written.push(await log.append('submission.committed', 'a::1', { i }));
    await until(() => a.got.length + b.got.length >= 15, 10_000, 'the events');
    expect(Math.min(a.got.length, b.got.length)).toBe(0);
    const [holder, other] = a.got.length > 0 ? [a, b] : [b, a];
    await holder.running.stop();
    for (let i = 0; i < 5; i++) written.push(await log.append('submission.committed', 'a::1', { i }));
    await until(() => other.got.length >= 5, 10_000, 'the other to take over');
    await other.running.stop();
    expect([...holder.got, ...other.got].map((e) => e.id)).toEqual(written);
  });
});
