// The relay: turns submission outbox entries into events. It follows the outbox with its cursor in Redis; each
// batch's events are appended and the cursor moved in one Lua step that changes nothing when another relay moved
// the cursor first: a relay that dies between steps loses nothing, and two running side by side cannot double an
// event.
import type { Redis } from 'ioredis';
import type { Log } from '../log.ts';
import {
  type ConsumerOptions,
  consumerStep,
  type Running,
  type StreamEntry,
  startConsumer,
} from '../redis/consumer.ts';
import { type RedisKeys, redisKeys } from '../redis/keys.ts';
import { loadScript, runScript } from '../redis/scripts.ts';
import { decodeOutboxEntry, isTerminal, type OutboxEntry } from '../submissions/index.ts';
import type { EventLog, EventType } from './log.ts';

const RELAY = loadScript('relay');

/**
 * final → submission.<status>, awaiting_approval → submission.awaiting_approval, awaiting_signatures →
 * submission.awaiting_signatures, anything else (creation) → accepted.
 */
const TYPES: Readonly<Record<string, EventType>> = {
  committed: 'submission.committed',
  rejected: 'submission.rejected',
  expired: 'submission.expired',
  awaiting_approval: 'submission.awaiting_approval',
  awaiting_signatures: 'submission.awaiting_signatures',
};

/**
 * An entry's event: how it ended; else the start of a signature round (at creation, or when an approval quorum
 * sent it there); else a decision on a record that awaited approval; else a signature added to a round; else its
 * creation.
 */
function eventType(e: OutboxEntry): EventType {
  if (isTerminal(e.status)) return TYPES[e.status] as EventType;
  if (e.status === 'awaiting_signatures' && e.from !== 'awaiting_signatures')
    return 'submission.awaiting_signatures';
  if (e.from === 'awaiting_approval') return 'submission.approval';
  if (e.from === 'awaiting_signatures') return 'submission.signature';
  return TYPES[e.status] ?? 'submission.accepted';
}

/** One batch of outbox entries as events, the cursor moved from `from` to `to` in the same step. */
async function relayBatch(redis: Redis, keys: RedisKeys, entries: StreamEntry[], from: string, to: string) {
  const records: string[] = [];
  const args: string[] = [];
  for (const { id, fields } of entries) {
    const e = decodeOutboxEntry(id, fields);
    records.push(keys.record(e.id));
    args.push(eventType(e), e.party, e.at);
  }
  await runScript(redis, RELAY, [keys.relayCursor, keys.events, ...records], [from, to, ...args]);
}

function relayConsumer(redis: Redis, reader: Redis, prefix: string, count?: number): ConsumerOptions {
  const keys = redisKeys(prefix);
  return {
    name: 'event relay',
    redis,
    reader,
    stream: keys.outbox,
    cursor: { key: keys.relayCursor, start: 'first' },
    handle: (entries, from, to) => relayBatch(redis, keys, entries, from, to),
    ...(count !== undefined ? { batch: count } : {}),
  };
}

/** One relay step: up to `count` outbox entries read after the cursor (0 when there were none). */
export function relayStep(redis: Redis, prefix: string, count = 200): Promise<number> {
  return consumerStep(relayConsumer(redis, redis, prefix, count))();
}

export interface RelayOptions {
  redis: Redis;
  /** A connection of its own: waiting for new outbox entries blocks it. */
  reader: Redis;
  prefix: string;
  events: EventLog;
  /** How long one wait for the outbox blocks, and the pause after a failure. */
  pollMs?: number;
  /** How often event retention runs. */
  trimEveryMs?: number;
  log?: Log;
}

/**
 * How long the relay lets outbox entries gather once one came: each step costs the relay script and two round
 * trips, so at a few hundred submissions a second it moves several entries per step instead of one.
 */
export const GATHER_MS = 10;

/** Runs the relay (and event retention) until `stop`. */
export function startRelay(o: RelayOptions): Running {
  const relay = startConsumer({
    ...relayConsumer(o.redis, o.reader, o.prefix),
    gatherMs: GATHER_MS,
    ...(o.pollMs !== undefined ? { pollMs: o.pollMs } : {}),
    ...(o.log ? { log: o.log } : {}),
  });
  const retain = () => {
    o.events.trim().catch((err: Error) => o.log?.('warn', `event retention: ${err.message}`));
  };
  retain();
  const trim = setInterval(retain, o.trimEveryMs ?? 5_000);
  trim.unref();
  return {
    async stop() {
      clearInterval(trim);
      await relay.stop();
    },
  };
}
