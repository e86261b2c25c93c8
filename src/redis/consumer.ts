// The one loop behind every follower of a stream: the event relay (outbox → events), the webhook dispatcher and any
// other event sink (events → somewhere), payload retention (outbox, up to a cutoff), the outcome waiter (outbox, in
// memory) and the ledger watcher (the ledger's updates). `startLoop` runs a step until stopped — only while holding
// a lease when given one, again at once after progress, after a pause when idle, with backoff after a failure.
// `startConsumer` is that loop over a Redis stream read after a cursor.
import type { Redis } from 'ioredis';
import { type Log, noLog } from '../log.ts';
import type { Lease } from './lease.ts';
import { loadScript, runScript } from './scripts.ts';

const STREAM_AFTER = loadScript('stream-after');

export interface Running {
  /** Ends the loop after the step under way; resolves when it has. */
  stop(): Promise<void>;
}

export interface LoopOptions {
  /** For log lines: "event relay", "webhook dispatcher", … */
  name: string;
  /** One step; true when it made progress (the next one runs at once). */
  step: () => Promise<boolean>;
  /** Act only while holding it (acquired as needed, released at stop). */
  lease?: Lease;
  /** The pause after a step without progress, and while another process holds the lease. */
  idleMs: number;
  /** Backoff after a failed step: doubles from `initialMs` up to `maxMs`, with jitter. */
  backoff?: { initialMs: number; maxMs: number };
  log?: Log;
  /** Where a failed step's error goes (default: one warning line each). */
  onError?: (err: Error) => void;
  /** Called when stopping, before the step under way ends (e.g. to disconnect a blocked reader). */
  interrupt?: () => void;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms).unref());

export function startLoop(o: LoopOptions): Running {
  const log = o.log ?? noLog;
  const { initialMs, maxMs } = o.backoff ?? { initialMs: Math.min(200, o.idleMs), maxMs: 10_000 };
  let stopped = false;
  const running = (async () => {
    let backoff = initialMs;
    while (!stopped) {
      try {
        if (o.lease && !o.lease.held) {
          if (!(await o.lease.acquire().catch(() => false))) {
            await sleep(o.idleMs);
            continue;
          }
          log('info', `${o.name}: holding the lease`);
        }
        const progress = await o.step();
        backoff = initialMs;
        if (!progress && !stopped) await sleep(o.idleMs);
      } catch (err) {
        if (stopped) break;
        if (o.onError) o.onError(err as Error);
        else log('warn', `${o.name}: ${(err as Error).message}; retrying in ${backoff} ms`);
        await sleep(backoff * (0.5 + Math.random() / 2));
        backoff = Math.min(maxMs, backoff * 2);
      }
    }
  })();
  return {
    async stop() {
      stopped = true;
      o.interrupt?.();
      await running;
      await o.lease?.release();
    },
  };
}

/** A stream entry as Redis returns it. */
export interface StreamEntry {
  id: string;
  fields: string[];
}

export interface ConsumerOptions {
  name: string;
  redis: Redis;
  /** A connection of its own: waiting for new entries blocks it. */
  reader: Redis;
  /** The stream followed. */
  stream: string;
  /**
   * Where the position lives: a key (kept in Redis, moved by `handle` in the same step as its effect), or 'memory'
   * (this process's own position, from the stream's end at start).
   */
  cursor: { key: string; start: 'first' | 'end' } | 'memory';
  /** Entries up to this id only (payload retention's cutoff); absent: follow the stream as it grows. */
  through?: () => string;
  /**
   * Applies a batch read after `from` that ends at `to`. With a cursor key, it moves that key from `from` to `to`
   * in the same atomic step as its effect, and changes nothing when the key no longer holds `from` (another
   * consumer did the batch): the next step reads from wherever the key is then.
   */
  handle: (entries: StreamEntry[], from: string, to: string) => Promise<void>;
  batch?: number;
  lease?: Lease;
  /** How long one wait for new entries blocks (and the pause while idle with `through`). */
  pollMs?: number;
  /**
   * After a wait that an entry ended, how long to let others come before reading (0, the default: read at once).
   * A consumer whose every step costs round trips reads a few entries per step this way instead of one.
   */
  gatherMs?: number;
  log?: Log;
  onError?: (err: Error) => void;
}

/**
 * One step of a consumer: reads after its cursor and hands the batch on; returns how many entries it handed on.
 * With `blockMs`, it then waits that long on the reader for an entry after what it read, unless the batch was full,
 * and once one came, `gatherMs` more for others: following a stream a few entries at a time, a batch then costs two
 * round trips besides its own step (the wait, and one script reading the cursor and the entries), not five.
 */
export function consumerStep(o: ConsumerOptions): (blockMs?: number) => Promise<number> {
  const batch = o.batch ?? 200;
  let position: string | undefined;
  const after = async (): Promise<{ from: string; entries: StreamEntry[] }> => {
    if (o.cursor === 'memory') {
      position ??= await lastId(o.redis, o.stream);
      const entries = o.through
        ? await range(o.redis, o.stream, position, o.through(), batch)
        : await read(o.redis, o.stream, position, batch);
      return { from: position, entries };
    }
    const [from, rows] = (await runScript(
      o.redis,
      STREAM_AFTER,
      [o.cursor.key, o.stream],
      [o.cursor.start, batch, o.through ? o.through() : '+'],
    )) as [string, [string, string[]][]];
    return { from, entries: rows.map(([id, fields]) => ({ id, fields })) };
  };
  const wait = async (blockMs: number | undefined, id: string) => {
    if (blockMs === undefined || o.through) return;
    const came = await o.reader.xread('COUNT', 1, 'BLOCK', blockMs, 'STREAMS', o.stream, id);
    if (came && o.gatherMs) await sleep(o.gatherMs);
  };
  return async (blockMs) => {
    const { from, entries } = await after();
    const last = entries.at(-1);
    if (!last) {
      await wait(blockMs, from);
      return 0;
    }
    await o.handle(entries, from, last.id);
    if (o.cursor === 'memory') position = last.id;
    // A batch that was not full read all there was: the wait ends at once when more came meanwhile.
    if (entries.length < batch) await wait(blockMs, last.id);
    return entries.length;
  };
}

/** Follows `stream` after a cursor, handing each batch to `handle`, until stopped. */
export function startConsumer(o: ConsumerOptions): Running {
  const pollMs = o.pollMs ?? 1000;
  const step = consumerStep(o);
  return startLoop({
    name: o.name,
    idleMs: pollMs,
    ...(o.lease ? { lease: o.lease } : {}),
    ...(o.log ? { log: o.log } : {}),
    ...(o.onError ? { onError: o.onError } : {}),
    interrupt: () => o.reader.disconnect(),
    // Following a growing stream, a step has already waited on the reader: look again at once.
    step: async () => (await step(o.through ? undefined : pollMs)) > 0 || !o.through,
  });
}

async function lastId(redis: Redis, stream: string): Promise<string> {
  return (await redis.xrevrange(stream, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
}

async function read(redis: Redis, stream: string, after: string, count: number): Promise<StreamEntry[]> {
  const res = await redis.xread('COUNT', count, 'STREAMS', stream, after);
  return (res?.[0]?.[1] ?? []).map(([id, fields]) => ({ id, fields }));
}

async function range(
  redis: Redis,
  stream: string,
  after: string,
  through: string,
  count: number,
): Promise<StreamEntry[]> {
  const rows = await redis.xrange(stream, `(${after}`, through, 'COUNT', count);
  return rows.map(([id, fields]) => ({ id, fields }));
}
