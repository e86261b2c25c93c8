// An event sink hands every event of the log to somewhere else (a message broker, another system), at least once
// and in order, from when it first started: it follows the event log with a cursor of its own and moves it after
// each batch is handed on (a crash in between hands that batch on again; event ids let receivers drop duplicates).
// Under a lease, one process of a deployment runs it. A new sink is one file: its `deliver`, started with this.
//
//   export function startNatsSink(o: { redis: Redis; reader: Redis; prefix: string; lease: Lease; nc: NatsConnection }) {
//     return startSink({ ...o, name: 'nats', deliver: async (events) => {
//       for (const e of events) o.nc.publish(`quill.${e.type}`, JSON.stringify(e));
//       await o.nc.flush();
//     } });
//   }
import type { Redis } from 'ioredis';
import type { Log } from '../log.ts';
import { type Running, startConsumer } from '../redis/consumer.ts';
import { redisKeys } from '../redis/keys.ts';
import type { Lease } from '../redis/lease.ts';
import { loadScript, runScript } from '../redis/scripts.ts';
import { decodeEntry, type QuillEvent } from './log.ts';

const MOVE = loadScript('cursor-move');

export interface SinkOptions {
  /** The sink's name: its cursor is `<prefix>sink:<name>:cursor`. */
  name: string;
  redis: Redis;
  /** A connection of its own: waiting for new events blocks it. */
  reader: Redis;
  prefix: string;
  /** Hands a batch on; throwing leaves the cursor where it was, and the batch is handed on again. */
  deliver: (events: QuillEvent[]) => Promise<void>;
  lease?: Lease;
  batch?: number;
  pollMs?: number;
  log?: Log;
}

export function startSink(o: SinkOptions): Running {
  const keys = redisKeys(o.prefix);
  const cursor = keys.sinkCursor(o.name);
  return startConsumer({
    name: `event sink ${o.name}`,
    redis: o.redis,
    reader: o.reader,
    stream: keys.events,
    cursor: { key: cursor, start: 'end' },
    handle: async (entries, from, to) => {
      await o.deliver(entries.flatMap(({ id, fields }) => decodeEntry(id, fields) ?? []));
      await runScript(o.redis, MOVE, [cursor], [from, to]);
    },
    ...(o.lease ? { lease: o.lease } : {}),
    ...(o.batch !== undefined ? { batch: o.batch } : {}),
    ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
}
