// The outbox: one stream entry per record created, per change into an announced status (awaiting approval,
// final) and per change out of awaiting approval (a decision), written in the same Lua step as the change. Its readers (the outcome waiter, the event relay, payload
// retention) follow it, each with its own cursor.
import type { Redis } from 'ioredis';
import { redisFailed } from '../../redis/errors.ts';
import type { SubmissionRecord, SubmissionStatus } from '../record.ts';

/**
 * A record that was created or moved into an announced status (STATUS_TABLE `announce`), as the outbox tells
 * it; `status` is the status it had then (not necessarily final: filter with `isTerminal`).
 */
export interface OutboxEntry {
  /** The stream entry id: read after it to resume. */
  cursor: string;
  id: string;
  status: SubmissionStatus;
  /** The status the change left; null for a creation (and for entries written before this field existed). */
  from: SubmissionStatus | null;
  party: string;
  commandId: string;
  updateId: string | null;
  completionOffset: number | null;
  errorCode: string | null;
  /** When the record became final (its `updatedAt`). */
  at: string;
}

/**
 * The field/value items of a record's outbox entry, as the create and transition scripts append them; `from` is the
 * status a transition left (none for a creation).
 */
export function outboxFields(r: SubmissionRecord, from?: SubmissionStatus): string[] {
  return [
    'from',
    from ?? '',
    'id',
    r.id,
    'status',
    r.status,
    'party',
    r.party,
    'commandId',
    r.commandId,
    'updateId',
    r.updateId ?? '',
    'completionOffset',
    r.completionOffset === null ? '' : String(r.completionOffset),
    'errorCode',
    r.error?.code ?? '',
    'at',
    r.updatedAt,
  ];
}

/** An outbox entry from the stream entry Redis returns. */
export function decodeOutboxEntry(cursor: string, fields: string[]): OutboxEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i] as string] = fields[i + 1] as string;
  return {
    cursor,
    id: f.id ?? '',
    status: f.status as SubmissionStatus,
    from: (f.from || null) as SubmissionStatus | null,
    party: f.party ?? '',
    commandId: f.commandId ?? '',
    updateId: f.updateId || null,
    completionOffset: f.completionOffset ? Number(f.completionOffset) : null,
    errorCode: f.errorCode || null,
    at: f.at ?? '',
  };
}

export class Outbox {
  constructor(
    private readonly redis: Redis,
    readonly key: string,
  ) {}

  /**
   * Entries after `after` (a cursor from an earlier entry; `0-0` = from the start), oldest first, at most `count`.
   * With `blockMs`, waits that long for one to arrive; blocking needs a connection of its own (`via`).
   */
  async read(after: string, count = 100, blocking?: { blockMs: number; via: Redis }): Promise<OutboxEntry[]> {
    const res = await (blocking
      ? blocking.via.xread('COUNT', count, 'BLOCK', blocking.blockMs, 'STREAMS', this.key, after)
      : this.redis.xread('COUNT', count, 'STREAMS', this.key, after)
    ).catch(redisFailed);
    return (res?.[0]?.[1] ?? []).map(([cursor, fields]) => decodeOutboxEntry(cursor, fields));
  }

  /** The cursor of the newest entry (`0-0` when there is none): reading after it gives only new ones. */
  async end(): Promise<string> {
    const last = await this.redis.xrevrange(this.key, '+', '-', 'COUNT', 1).catch(redisFailed);
    return last[0]?.[0] ?? '0-0';
  }
}
