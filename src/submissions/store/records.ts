// Redis store of submission records: atomic creation with indexes, CAS transitions that never go backwards,
// cursor-paged listings and idempotency keys. A change that signs, decides or ends a record appends its audit
// entry and outbox entry in the same Lua step (src/redis/lua/create.lua, transition.lua, signatures.lua).
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { auditFields, type SignatureEntry } from '../../audit/index.ts';
import { consumerStep } from '../../redis/consumer.ts';
import { redisFailed, StoreError } from '../../redis/errors.ts';
import { type RedisKeys, redisKeys } from '../../redis/keys.ts';
import { runScript } from '../../redis/scripts.ts';
import {
  isTerminal,
  STATUS_RANK,
  STATUS_TABLE,
  SUBMISSION_STATUSES,
  type SubmissionPayload,
  type SubmissionRecord,
  type SubmissionStatus,
} from '../record.ts';
import { KeyFlags } from './key-flags.ts';
import { decodeOutboxEntry, Outbox, outboxFields } from './outbox.ts';
import { CREATE, DROP_PAYLOADS, SIGNATURES, TRANSITION } from './scripts.ts';
import { decodeRecord } from './stored.ts';

export interface VersionedRecord {
  record: SubmissionRecord;
  /** Bumped by every transition: the compare-and-set token. */
  version: number;
}

export interface StoredSubmission extends VersionedRecord {
  /** Absent once the record is final and PAYLOAD_RETENTION_HOURS have passed (`dropPayloads`). */
  payload?: SubmissionPayload;
  /** When the payload was dropped. */
  payloadDroppedAt?: string;
}

export interface IdempotencyEntry {
  fingerprint: string;
  id: string;
}

export interface ListQuery {
  party?: string;
  status?: SubmissionStatus;
  cursor?: string;
  limit: number;
}

export function newSubmissionId(): string {
  return `sub_${randomBytes(15).toString('base64url')}`;
}

/** A list of ARGV items preceded by its length (the scripts take several variable-length parts). */
const withCount = (items: string[]): string[] => [String(items.length), ...items];

/** Audit entries as the create and signatures scripts take them: each its item count, then its items. */
const auditEntries = (entries: Record<string, string>[]): string[] =>
  entries.flatMap((e) => withCount(auditFields(e)));

/** Attempts of a script whose optimistic read went stale before giving up (CONFLICT). */
const MAX_TRIES = 100;

export class SubmissionStore {
  readonly prefix: string;
  readonly keys: RedisKeys;
  readonly outbox: Outbox;
  readonly keyFlags: KeyFlags;

  constructor(
    readonly redis: Redis,
    prefix: string,
  ) {
    this.keys = redisKeys(prefix);
    this.prefix = this.keys.prefix;
    this.outbox = new Outbox(redis, this.keys.outbox);
    this.keyFlags = new KeyFlags(redis, this.keys.disabledKeys);
  }

  /**
   * Stores a new record with all its indexes, unless the command id is taken (then returns that record).
   * `holder` is the record id the caller found in the command index ('' for none), when it just read it.
   */
  async create(
    record: SubmissionRecord,
    payload: SubmissionPayload,
    idempotency?: { scope: string; key: string; fingerprint: string },
    /** One per signature made for this request (several when the party's signing set has several Quill keys). */
    audit?: SignatureEntry | SignatureEntry[],
    holder?: string,
  ): Promise<VersionedRecord & { created: boolean }> {
    const k = this.keys;
    const own = k.record(record.id);
    const commandIndex = k.commandIndex(record.commandId);
    const outbox = outboxFields(record);
    let seen = holder;
    for (let i = 0; i < MAX_TRIES; i++) {
      seen ??= (await this.redis.get(commandIndex).catch(redisFailed)) ?? '';
      const res = (await runScript(
        this.redis,
        CREATE,
        [
          own,
          commandIndex,
          k.sequence,
          k.allIndex,
          k.partyIndex(record.party),
          k.statusIndex(record.status),
          k.partyStatusIndex(record.party, record.status),
          idempotency ? k.idempotency(idempotency.scope, idempotency.key) : own,
          k.audit,
          k.auditHead,
          k.outbox,
          seen ? k.record(seen) : own,
        ],
        [
          record.id,
          JSON.stringify(record),
          JSON.stringify(payload),
          record.status,
          record.preparedTransactionHash,
          idempotency ? JSON.stringify({ fingerprint: idempotency.fingerprint, id: record.id }) : '',
          seen,
          ...withCount(outbox),
          ...auditEntries(
            (audit === undefined ? [] : Array.isArray(audit) ? audit : [audit]) as unknown as Record<
              string,
              string
            >[],
          ),
        ],
      ).catch(redisFailed)) as [number, string?];
      if (res[0] === 1) return { created: true, record, version: 1 };
      if (res[0] === -1) {
        seen = undefined; // the command index changed since it was read: read it again
        continue;
      }
      const existing = await this.head(res[1] as string);
      if (!existing) throw new StoreError('CORRUPT', `command index points at a missing record ${res[1]}`);
      return { created: false, ...existing };
    }
    throw new StoreError('CONFLICT', `command id ${record.commandId}: too many concurrent creations`);
  }

  /** The record and its version, without the payload (which only the executor needs). */
  private async head(id: string): Promise<VersionedRecord | undefined> {
    const [v, rec, schema] = await this.redis
      .hmget(this.keys.record(id), 'v', 'record', 'schemaVersion')
      .catch(redisFailed);
    if (!v || !rec) return undefined;
    return { version: Number(v), record: decodeRecord(id, rec, schema) };
  }

  async get(id: string): Promise<StoredSubmission | undefined> {
    const [v, rec, payload, droppedAt, schema] = await this.redis
      .hmget(this.keys.record(id), 'v', 'record', 'payload', 'payloadDroppedAt', 'schemaVersion')
      .catch(redisFailed);
    if (!v || !rec) return undefined;
    return {
      version: Number(v),
      record: decodeRecord(id, rec, schema),
      ...(payload ? { payload: JSON.parse(payload) as SubmissionPayload } : {}),
      ...(droppedAt ? { payloadDroppedAt: droppedAt } : {}),
    };
  }

  /**
   * Drops the prepared transaction and signatures of every record that became final before `cutoffMs`, following
   * the outbox with its own cursor (moved in the same step, so a sweep that runs twice drops nothing twice and a
   * crash in between loses nothing). Returns how many payloads it dropped.
   */
  async dropPayloads(cutoffMs: number, now = new Date()): Promise<number> {
    const k = this.keys;
    let dropped = 0;
    const step = consumerStep({
      name: 'payload retention',
      redis: this.redis,
      reader: this.redis,
      stream: k.outbox,
      cursor: { key: k.retentionCursor, start: 'first' },
      through: () => `${Math.max(0, Math.floor(cutoffMs))}-${Number.MAX_SAFE_INTEGER}`,
      batch: 100, // small: its script holds Redis about a millisecond (every accept waits behind it)
      handle: async (entries, from, to) => {
        const finals = entries.flatMap(({ id, fields }) => {
          const e = decodeOutboxEntry(id, fields);
          return e.id && isTerminal(e.status) ? [k.record(e.id)] : [];
        });
        const n = Number(
          await runScript(
            this.redis,
            DROP_PAYLOADS,
            [k.retentionCursor, ...finals],
            [from, to, now.toISOString()],
          ),
        );
        // -1: another sweep moved the cursor first; the next step reads on from where it left it.
        if (n > 0) dropped += n;
      },
    });
    try {
      while ((await step()) > 0);
    } catch (err) {
      redisFailed(err);
    }
    return dropped;
  }

  async getRecord(id: string): Promise<SubmissionRecord | undefined> {
    const [rec, schema] = await this.redis
      .hmget(this.keys.record(id), 'record', 'schemaVersion')
      .catch(redisFailed);
    return rec ? decodeRecord(id, rec, schema) : undefined;
  }

  async byCommandId(commandId: string): Promise<SubmissionRecord | undefined> {
    const id = await this.redis.get(this.keys.commandIndex(commandId)).catch(redisFailed);
    return id ? this.getRecord(id) : undefined;
  }

  async byUpdateId(updateId: string): Promise<SubmissionRecord | undefined> {
    const id = await this.redis.get(this.keys.updateIndex(updateId)).catch(redisFailed);
    return id ? this.getRecord(id) : undefined;
  }

  async idempotency(scope: string, key: string): Promise<IdempotencyEntry | undefined> {
    const raw = await this.redis.get(this.keys.idempotency(scope, key)).catch(redisFailed);
    return raw ? (JSON.parse(raw) as IdempotencyEntry) : undefined;
  }

  /**
   * Applies `change` to the current record atomically (compare-and-set, retried on conflict).
   * `change` returns the new record, or undefined to leave it as it is. Terminal records and moves to a
   * lower status are refused by the script: the current record is returned unchanged.
   */
  async update(
    id: string,
    change: (current: SubmissionRecord) => SubmissionRecord | undefined,
  ): Promise<SubmissionRecord> {
    return (await this.transition(id, change)).record;
  }

  /**
   * `update`, returning the version too. `from` is a version the caller already holds (a record it just
   * read or wrote): the first try uses it instead of reading again, and a stale one only costs a re-read.
   * When this call's write is the one that stuck, the record returned is the object `change` returned.
   */
  async transition(
    id: string,
    change: (current: SubmissionRecord) => SubmissionRecord | undefined,
    from?: VersionedRecord,
    /** An audit entry for the change (an approval decision), appended to the chain only by the write that lands. */
    audit?: (next: SubmissionRecord) => Record<string, string>,
  ): Promise<VersionedRecord> {
    const k = this.keys;
    let known = from;
    for (let i = 0; i < MAX_TRIES; i++) {
      const cur = known ?? (await this.head(id));
      known = undefined;
      if (!cur) throw new StoreError('NOT_FOUND', `no submission ${id}`);
      if (isTerminal(cur.record.status)) return cur;
      const next = change(structuredClone(cur.record));
      if (!next) return cur;
      if (STATUS_RANK[next.status] < STATUS_RANK[cur.record.status]) return cur;
      next.updatedAt = new Date().toISOString();
      const was = cur.record.status;
      const updateId = next.updateId && next.updateId !== cur.record.updateId ? next.updateId : '';
      const res = (await runScript(
        this.redis,
        TRANSITION,
        [
          k.record(id),
          k.statusIndex(was),
          k.statusIndex(next.status),
          k.partyStatusIndex(next.party, was),
          k.partyStatusIndex(next.party, next.status),
          updateId ? k.updateIndex(updateId) : k.record(id),
          k.outbox,
          k.audit,
          k.auditHead,
        ],
        [
          String(cur.version),
          was,
          next.status,
          JSON.stringify(next),
          id,
          updateId,
          // An approval decision is announced too (the relay's `submission.approval`), whatever it led to.
          ...withCount(
            STATUS_TABLE[next.status].announce || was === 'awaiting_approval' ? outboxFields(next, was) : [],
          ),
          ...(audit ? auditFields(audit(next)) : []),
        ],
      ).catch(redisFailed)) as [number, string | number];
      if (res[0] === 1) return { record: next, version: Number(res[1]) };
      if (res[0] === -2) throw new StoreError('NOT_FOUND', `no submission ${id}`);
      // -1: refused (terminal or backwards) — re-read and let the loop return the current record.
      // 0: version conflict — retry with the fresh record.
    }
    throw new StoreError('CONFLICT', `submission ${id}: too many concurrent updates`);
  }

  /** Newest first; the cursor is opaque (the sequence number of the last item returned). */
  async list(q: ListQuery): Promise<{ items: SubmissionRecord[]; nextCursor: string | null }> {
    const k = this.keys;
    const key =
      q.party && q.status
        ? k.partyStatusIndex(q.party, q.status)
        : q.party
          ? k.partyIndex(q.party)
          : q.status
            ? k.statusIndex(q.status)
            : k.allIndex;
    const max = q.cursor ? `(${decodeCursor(q.cursor)}` : '+inf';
    const rows = await this.redis
      .zrevrangebyscore(key, max, '-inf', 'WITHSCORES', 'LIMIT', '0', String(q.limit + 1))
      .catch(redisFailed);
    const ids: string[] = [];
    const scores: string[] = [];
    for (let i = 0; i < rows.length; i += 2) {
      ids.push(rows[i] as string);
      scores.push(rows[i + 1] as string);
    }
    const page = ids.slice(0, q.limit);
    const items: SubmissionRecord[] = [];
    if (page.length > 0) {
      const pipe = this.redis.pipeline();
      for (const id of page) pipe.hmget(k.record(id), 'record', 'schemaVersion');
      const rows = (await pipe.exec().catch(redisFailed)) ?? [];
      for (const [i, [e, value]] of rows.entries()) {
        if (e) redisFailed(e);
        const [raw, schema] = value as [string | null, string | null];
        if (raw) items.push(decodeRecord(page[i] as string, raw, schema));
      }
    }
    const last = scores[page.length - 1];
    return { items, nextCursor: ids.length > q.limit && last ? encodeCursor(last) : null };
  }

  /** Ids of records in the given status (oldest first), for recovery of work lost between steps. */
  async idsInStatus(status: SubmissionStatus, limit = 1000): Promise<string[]> {
    return this.redis.zrange(this.keys.statusIndex(status), '0', String(limit - 1)).catch(redisFailed);
  }

  /**
   * The records first in a status's index (the oldest created), at most `limit`: what /metrics reads to tell a
   * submission stuck in `executing`, or an approval near its deadline, without scanning every record.
   */
  async oldestInStatus(status: SubmissionStatus, limit = 1): Promise<SubmissionRecord[]> {
    const ids = await this.idsInStatus(status, limit);
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hmget(this.keys.record(id), 'record', 'schemaVersion');
    const rows = (await pipe.exec().catch(redisFailed)) ?? [];
    const out: SubmissionRecord[] = [];
    for (const [i, [e, value]] of rows.entries()) {
      if (e) redisFailed(e);
      const [raw, schema] = value as [string | null, string | null];
      if (raw) out.push(decodeRecord(ids[i] as string, raw, schema));
    }
    return out;
  }

  /** Records per status: all of them, or one party's. */
  async countByStatus(party?: string): Promise<Record<SubmissionStatus, number>> {
    const statuses = SUBMISSION_STATUSES;
    const pipe = this.redis.pipeline();
    for (const s of statuses)
      pipe.zcard(party === undefined ? this.keys.statusIndex(s) : this.keys.partyStatusIndex(party, s));
    const res = (await pipe.exec().catch(redisFailed)) ?? [];
    for (const [e] of res) if (e) redisFailed(e);
    return Object.fromEntries(statuses.map((s, i) => [s, Number(res[i]?.[1] ?? 0)])) as Record<
      SubmissionStatus,
      number
    >;
  }

  /**
   * Adds signatures to a record (a signature round's, the worker's re-signing after a key rotation): `change`
   * plans the new record and payload from the current ones (undefined: nothing to write), and the signatures
   * script writes both with their audit entries (and an outbox entry when `announce`), by compare-and-set on the
   * version and status it read. Of concurrent callers whose changes move the record on, exactly one write lands;
   * the others re-plan from the record it left. `written` is true when this call's write is the one returned.
   */
  async addSignatures(
    id: string,
    change: (
      current: SubmissionRecord,
      payload: SubmissionPayload,
    ) =>
      | {
          record: SubmissionRecord;
          payload: SubmissionPayload;
          audit: Record<string, string>[];
          announce: boolean;
        }
      | undefined,
  ): Promise<VersionedRecord & { written: boolean }> {
    const k = this.keys;
    for (let i = 0; i < MAX_TRIES; i++) {
      const cur = await this.get(id);
      if (!cur) throw new StoreError('NOT_FOUND', `no submission ${id}`);
      if (isTerminal(cur.record.status) || !cur.payload) return { ...cur, written: false };
      const planned = change(structuredClone(cur.record), structuredClone(cur.payload));
      if (!planned) return { ...cur, written: false };
      const next = planned.record;
      if (STATUS_RANK[next.status] < STATUS_RANK[cur.record.status]) return { ...cur, written: false };
      next.updatedAt = new Date().toISOString();
      const was = cur.record.status;
      const res = (await runScript(
        this.redis,
        SIGNATURES,
        [
          k.record(id),
          k.statusIndex(was),
          k.statusIndex(next.status),
          k.partyStatusIndex(next.party, was),
          k.partyStatusIndex(next.party, next.status),
          k.outbox,
          k.audit,
          k.auditHead,
        ],
        [
          String(cur.version),
          was,
          next.status,
          JSON.stringify(next),
          JSON.stringify(planned.payload),
          id,
          ...withCount(planned.announce ? outboxFields(next, was) : []),
          ...auditEntries(planned.audit),
        ],
      ).catch(redisFailed)) as [number, string | number];
      if (res[0] === 1) return { record: next, version: Number(res[1]), written: true };
      if (res[0] === -2) throw new StoreError('NOT_FOUND', `no submission ${id}`);
      // 0: another write came first (a signature, an expiry): plan again from the record it left.
    }
    throw new StoreError('CONFLICT', `submission ${id}: too many concurrent updates`);
  }
}

function encodeCursor(seq: string): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString();
  const n = Number(text.slice(1));
  if (!text.startsWith('s') || !Number.isSafeInteger(n) || n < 0)
    throw new StoreError('INVALID_CURSOR', 'invalid cursor');
  return n;
}
