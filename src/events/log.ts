// The event log: one Redis stream `<prefix>events`, one entry per event (fields type, party, at, body), the entry
// id being the event id. Readers page after an id with type/party filters or block for new entries on a
// connection of their own; retention trims by age and/or count, and an id older than what was trimmed is
// recognised (`expired`), so a reader knows it missed events instead of silently skipping them.
import type { Redis } from 'ioredis';
import { type RedisKeys, redisKeys } from '../redis/keys.ts';
import { loadScript, runScript } from '../redis/scripts.ts';
import { EventLogError } from './errors.ts';

const TRIM = loadScript('trim');

export const EVENT_TYPES = [
  'submission.accepted',
  'submission.awaiting_approval',
  /** An approver decided (or a new policy version reviewed it) and it did not end: its approvals and status now. */
  'submission.approval',
  /** Quill signed what it holds of the party's signing set; the external holders are awaited (M of N). */
  'submission.awaiting_signatures',
  /** A signature was added to a round (an external holder's, or Quill's after a quorum): its round and status now. */
  'submission.signature',
  'submission.committed',
  'submission.rejected',
  'submission.expired',
  'transaction.received',
  /** A pending TransferInstruction whose receiver is the party; its `contractId` identifies it (drop repeats). */
  'transfer.incoming',
  'ledger.gap',
  'ledger.reset',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/** The events that say how a submission ended. */
export const OUTCOME_TYPES: readonly EventType[] = [
  'submission.committed',
  'submission.rejected',
  'submission.expired',
];

export function isEventType(s: string): s is EventType {
  return (EVENT_TYPES as readonly string[]).includes(s);
}

export interface QuillEvent {
  /** The stream entry id `<ms>-<seq>`: unique, ordered, the SSE id and the webhook `eventId`. */
  id: string;
  type: EventType;
  /** The party it concerns; '' for none (ledger.reset). */
  party: string;
  /** ISO time it was written. */
  at: string;
  body: unknown;
}

export interface EventFilter {
  types?: readonly EventType[];
  /** Only this party's events (undefined: every party, and events for none). */
  party?: string;
}

const STREAM_ID = /^(\d{1,20})-(\d{1,20})$/;

/** Whether `s` is a stream id as Redis writes them (`<ms>-<seq>`). */
export function isEventId(s: string): boolean {
  const m = STREAM_ID.exec(s);
  return !!m && BigInt(m[1] as string) < 2n ** 64n && BigInt(m[2] as string) < 2n ** 64n;
}

/** Orders two stream ids: negative, 0 or positive. */
export function compareIds(a: string, b: string): number {
  const [am, as] = a.split('-').map((x) => BigInt(x));
  const [bm, bs] = b.split('-').map((x) => BigInt(x));
  if (am !== bm) return (am as bigint) < (bm as bigint) ? -1 : 1;
  if (as !== bs) return (as as bigint) < (bs as bigint) ? -1 : 1;
  return 0;
}

export function matches(e: Pick<QuillEvent, 'type' | 'party'>, f: EventFilter): boolean {
  if (f.types && f.types.length > 0 && !f.types.includes(e.type)) return false;
  if (f.party !== undefined && e.party !== f.party) return false;
  return true;
}

export function decodeEntry(id: string, fields: string[]): QuillEvent | undefined {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i] as string] = fields[i + 1] as string;
  if (!f.type || !isEventType(f.type)) return undefined;
  let body: unknown = null;
  try {
    body = f.body ? JSON.parse(f.body) : null;
  } catch {
    body = null;
  }
  return { id, type: f.type, party: f.party ?? '', at: f.at ?? '', body };
}

function unavailable(err: unknown): never {
  throw new EventLogError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
}

export interface Retention {
  /** 0 = no age limit. */
  maxAgeMs: number;
  /** 0 = no count limit. */
  maxCount: number;
}

export class EventLog {
  readonly key: string;
  readonly #keys: RedisKeys;
  constructor(
    readonly redis: Redis,
    prefix: string,
    readonly retention: Retention = { maxAgeMs: 0, maxCount: 0 },
  ) {
    this.#keys = redisKeys(prefix);
    this.key = this.#keys.events;
  }

  /** Appends one event; returns its id. */
  async append(type: EventType, party: string, body: unknown, at = new Date()): Promise<string> {
    const id = await this.redis
      .xadd(this.key, '*', 'type', type, 'party', party, 'at', at.toISOString(), 'body', JSON.stringify(body))
      .catch(unavailable);
    return id as string;
  }

  async get(id: string): Promise<QuillEvent | undefined> {
    if (!isEventId(id)) return undefined;
    const res = await this.redis.xrange(this.key, id, id).catch(unavailable);
    const e = res[0];
    return e ? decodeEntry(e[0], e[1]) : undefined;
  }

  /**
   * Events after `after` that match `filter`, at most `count` scanned; `next` is the id to read after next time
   * (it moves past entries the filter skipped, so a sparse filter still makes progress).
   */
  async read(
    after: string,
    filter: EventFilter = {},
    count = 100,
    blocking?: { blockMs: number; via: Redis },
  ): Promise<{ events: QuillEvent[]; next: string }> {
    const res = await (blocking
      ? blocking.via.xread('COUNT', count, 'BLOCK', blocking.blockMs, 'STREAMS', this.key, after)
      : this.redis.xread('COUNT', count, 'STREAMS', this.key, after)
    ).catch(unavailable);
    const entries = res?.[0]?.[1] ?? [];
    const events: QuillEvent[] = [];
    let next = after;
    for (const [id, fields] of entries) {
      next = id;
      const e = decodeEntry(id, fields);
      if (e && matches(e, filter)) events.push(e);
    }
    return { events, next };
  }

  /** The id of the newest event ('0-0' when there is none). */
  async end(): Promise<string> {
    const last = await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1).catch(unavailable);
    return last[0]?.[0] ?? '0-0';
  }

  /** The newest id retention removed ('0-0' when none was). */
  async trimmedThrough(): Promise<string> {
    return (await this.redis.get(this.#keys.eventsTrimmed).catch(unavailable)) ?? '0-0';
  }

  /** Whether a reader that last saw `after` has missed events retention removed. */
  async expired(after: string): Promise<boolean> {
    return compareIds(after, await this.trimmedThrough()) < 0;
  }

  /**
   * Applies retention: drops events older than maxAgeMs and beyond maxCount, and notes the newest id it
   * removed (in the same script), so `expired` knows who missed what. Returns how many went.
   */
  async trim(now = Date.now()): Promise<number> {
    const minId = this.retention.maxAgeMs > 0 ? `${Math.max(0, now - this.retention.maxAgeMs)}-0` : '';
    return Number(
      await runScript(
        this.redis,
        TRIM,
        [this.key, this.#keys.eventsTrimmed],
        [minId, this.retention.maxCount],
      ).catch(unavailable),
    );
  }

  /** Final submission outcomes since a time (event ids are times), oldest first, among at most 20,000 events. */
  async outcomesSince(sinceMs: number, party?: string): Promise<{ type: EventType; at: string }[]> {
    const out: { type: EventType; at: string }[] = [];
    const filter: EventFilter = { types: OUTCOME_TYPES, ...(party !== undefined ? { party } : {}) };
    let after = `${Math.max(0, Math.floor(sinceMs))}-0`;
    for (let page = 0; page < 20; page++) {
      const read = await this.read(after, filter, 1000);
      for (const e of read.events) out.push({ type: e.type, at: e.at });
      if (read.next === after) break;
      after = read.next;
    }
    return out;
  }
}
