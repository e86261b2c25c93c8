// Redis store of submission records: atomic creation with indexes, CAS transitions that never go backwards,
// cursor-paged listings, idempotency keys and the append-only signature audit log.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { QuillError } from '../errors.ts';
import type { Signature } from '../ledger/index.ts';
import { auditFields, type ChainEntry } from './audit.ts';
import {
  isTerminal,
  STATUS_RANK,
  STATUS_TABLE,
  SUBMISSION_STATUSES,
  type SubmissionPayload,
  type SubmissionRecord,
  type SubmissionStatus,
} from './record.ts';
import { AUDITED, CREATE, DROP_PAYLOADS, runScript, TRANSITION } from './scripts.ts';

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

export interface AuditEntry {
  at: string;
  actor: string;
  party: string;
  keyFingerprint: string;
  hash: string;
  commandId: string;
  /** The id the new record was to have; a record by that id exists only when `stored` is 'true'. */
  submission: string;
  /** Set by the store: 'false' when the command id was already taken and the signature went unused. */
  stored?: 'true' | 'false';
  /** Set by the store when `stored` is 'false': the record that holds the command id. */
  existingSubmission?: string;
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

export type StoreErrorCode =
  /** Redis refused or failed a command, or the connection is down: try again later. */
  | 'UNAVAILABLE'
  /** Too many concurrent writers on one record. */
  | 'CONFLICT'
  | 'NOT_FOUND'
  /** An index points at a record that is not there, or a stored value cannot be read. */
  | 'CORRUPT'
  /** A list cursor this store did not hand out. */
  | 'INVALID_CURSOR';

export class StoreError extends QuillError<StoreErrorCode> {
  override readonly name = 'StoreError';
  constructor(code: StoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** Wraps whatever a Redis command threw (connection closed, retries spent, an error reply). */
export function redisFailed(err: unknown): never {
  if (err instanceof StoreError) throw err;
  throw new StoreError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
}

export function newSubmissionId(): string {
  return `sub_${randomBytes(15).toString('base64url')}`;
}

export class SubmissionStore {
  readonly prefix: string;
  constructor(
    readonly redis: Redis,
    prefix: string,
  ) {
    this.prefix = prefix.endsWith(':') ? prefix : `${prefix}:`;
  }

  private k(...parts: string[]): string {
    return this.prefix + parts.join(':');
  }
  recordKey(id: string): string {
    return this.k('sub', id);
  }
  /** The outbox: one entry per record created and per change into an announced status (awaiting approval, final), written in the same Lua step. */
  get outboxKey(): string {
    return `${this.prefix}outbox`;
  }

  /** Stores a new record with all its indexes, unless the command id is taken (then returns that record). */
  async create(
    record: SubmissionRecord,
    payload: SubmissionPayload,
    idempotency?: { scope: string; key: string; fingerprint: string },
    audit?: AuditEntry,
  ): Promise<VersionedRecord & { created: boolean }> {
    const idemKey = idempotency ? this.idemKey(idempotency.scope, idempotency.key) : this.k('idem', '-');
    const idemValue = idempotency
      ? JSON.stringify({ fingerprint: idempotency.fingerprint, id: record.id })
      : '';
    const res = (await runScript(
      this.redis,
      CREATE,
      [
        this.recordKey(record.id),
        this.k('idx', 'cmd', record.commandId),
        this.k('seq'),
        this.k('idx', 'all'),
        this.k('idx', 'party', record.party),
        this.k('idx', 'status', record.status),
        this.k('idx', 'ps', record.party, record.status),
        idemKey,
        this.k('audit'),
      ],
      [
        record.id,
        JSON.stringify(record),
        JSON.stringify(payload),
        record.status,
        record.preparedTransactionHash,
        idemValue,
        this.prefix,
        String(outboxFields(record).length),
        ...outboxFields(record),
        ...(audit ? auditFields(audit) : []),
      ],
    ).catch(redisFailed)) as [number, string];
    if (res[0] === 1) return { created: true, record, version: 1 };
    const existing = await this.head(res[1]);
    if (!existing) throw new StoreError('CORRUPT', `command index points at a missing record ${res[1]}`);
    return { created: false, ...existing };
  }

  /** The record and its version, without the payload (which only the executor needs). */
  private async head(id: string): Promise<VersionedRecord | undefined> {
    const [v, rec] = await this.redis.hmget(this.recordKey(id), 'v', 'record').catch(redisFailed);
    if (!v || !rec) return undefined;
    return { version: Number(v), record: JSON.parse(rec) as SubmissionRecord };
  }

  async get(id: string): Promise<StoredSubmission | undefined> {
    const [v, rec, payload, droppedAt] = await this.redis
      .hmget(this.recordKey(id), 'v', 'record', 'payload', 'payloadDroppedAt')
      .catch(redisFailed);
    if (!v || !rec) return undefined;
    return {
      version: Number(v),
      record: JSON.parse(rec) as SubmissionRecord,
      ...(payload ? { payload: JSON.parse(payload) as SubmissionPayload } : {}),
      ...(droppedAt ? { payloadDroppedAt: droppedAt } : {}),
    };
  }

  /**
   * Drops the prepared transaction and signatures of every record that became final before `cutoffMs` (it
   * follows the outbox with its own cursor). Returns how many payloads it dropped.
   */
  async dropPayloads(cutoffMs: number, now = new Date()): Promise<number> {
    let dropped = 0;
    for (;;) {
      const [passed, n] = (await runScript(
        this.redis,
        DROP_PAYLOADS,
        [],
        [
          this.prefix,
          `${Math.max(0, Math.floor(cutoffMs))}-${Number.MAX_SAFE_INTEGER}`,
          500,
          now.toISOString(),
        ],
      ).catch(redisFailed)) as [number, number];
      dropped += n;
      if (passed < 500) return dropped;
    }
  }

  async getRecord(id: string): Promise<SubmissionRecord | undefined> {
    const rec = await this.redis.hget(this.recordKey(id), 'record').catch(redisFailed);
    return rec ? (JSON.parse(rec) as SubmissionRecord) : undefined;
  }

  async byCommandId(commandId: string): Promise<SubmissionRecord | undefined> {
    const id = await this.redis.get(this.k('idx', 'cmd', commandId)).catch(redisFailed);
    return id ? this.getRecord(id) : undefined;
  }

  async byUpdateId(updateId: string): Promise<SubmissionRecord | undefined> {
    const id = await this.redis.get(this.k('idx', 'update', updateId)).catch(redisFailed);
    return id ? this.getRecord(id) : undefined;
  }

  private idemKey(scope: string, key: string): string {
    return this.k('idem', Buffer.from(scope).toString('base64url'), Buffer.from(key).toString('base64url'));
  }

  async idempotency(scope: string, key: string): Promise<IdempotencyEntry | undefined> {
    const raw = await this.redis.get(this.idemKey(scope, key)).catch(redisFailed);
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
    let known = from;
    for (let i = 0; i < 100; i++) {
      const cur = known ?? (await this.head(id));
      known = undefined;
      if (!cur) throw new StoreError('NOT_FOUND', `no submission ${id}`);
      if (isTerminal(cur.record.status)) return cur;
      const next = change(structuredClone(cur.record));
      if (!next) return cur;
      if (STATUS_RANK[next.status] < STATUS_RANK[cur.record.status]) return cur;
      next.updatedAt = new Date().toISOString();
      const res = (await runScript(
        this.redis,
        TRANSITION,
        [this.recordKey(id)],
        [
          String(cur.version),
          next.status,
          JSON.stringify(next),
          this.prefix,
          id,
          next.party,
          next.updateId && next.updateId !== cur.record.updateId ? next.updateId : '',
          ...withCount(STATUS_TABLE[next.status].announce ? outboxFields(next) : []),
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
    const key =
      q.party && q.status
        ? this.k('idx', 'ps', q.party, q.status)
        : q.party
          ? this.k('idx', 'party', q.party)
          : q.status
            ? this.k('idx', 'status', q.status)
            : this.k('idx', 'all');
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
      for (const id of page) pipe.hget(this.recordKey(id), 'record');
      for (const [e, raw] of (await pipe.exec().catch(redisFailed)) ?? []) {
        if (e) redisFailed(e);
        if (typeof raw === 'string') items.push(JSON.parse(raw) as SubmissionRecord);
      }
    }
    const last = scores[page.length - 1];
    return { items, nextCursor: ids.length > q.limit && last ? encodeCursor(last) : null };
  }

  /**
   * Outbox entries after `after` (a cursor from an earlier entry; `0-0` = from the start), oldest first, at most
   * `count`. With `blockMs`, waits that long for one to arrive; blocking needs a connection of its own (`via`).
   */
  async readOutbox(
    after: string,
    count = 100,
    blocking?: { blockMs: number; via: Redis },
  ): Promise<OutboxEntry[]> {
    const key = this.outboxKey;
    const res = await (blocking
      ? blocking.via.xread('COUNT', count, 'BLOCK', blocking.blockMs, 'STREAMS', key, after)
      : this.redis.xread('COUNT', count, 'STREAMS', key, after)
    ).catch(redisFailed);
    return (res?.[0]?.[1] ?? []).map(([cursor, fields]) => outboxEntry(cursor, fields));
  }

  /** The cursor of the newest outbox entry (`0-0` when there is none): reading after it gives only new ones. */
  async outboxEnd(): Promise<string> {
    const last = await this.redis.xrevrange(this.outboxKey, '+', '-', 'COUNT', 1).catch(redisFailed);
    return last[0]?.[0] ?? '0-0';
  }

  /** Ids of records in the given status (oldest first), for recovery of work lost between steps. */
  async idsInStatus(status: SubmissionStatus, limit = 1000): Promise<string[]> {
    return this.redis.zrange(this.k('idx', 'status', status), '0', String(limit - 1)).catch(redisFailed);
  }

  /** Records per status: all of them, or one party's. */
  async countByStatus(party?: string): Promise<Record<SubmissionStatus, number>> {
    const statuses = SUBMISSION_STATUSES;
    const pipe = this.redis.pipeline();
    for (const s of statuses)
      pipe.zcard(party === undefined ? this.k('idx', 'status', s) : this.k('idx', 'ps', party, s));
    const res = (await pipe.exec().catch(redisFailed)) ?? [];
    for (const [e] of res) if (e) redisFailed(e);
    return Object.fromEntries(statuses.map((s, i) => [s, Number(res[i]?.[1] ?? 0)])) as Record<
      SubmissionStatus,
      number
    >;
  }

  /**
   * Keys disabled while submissions signed with them may still be queued: the worker sends nothing more
   * for them (key status itself lives in the key store, which worker-only processes do not open).
   */
  /**
   * Stores the signature made after an approval quorum in the record's payload and logs it in the audit
   * stream, in one MULTI (only the caller whose write reached the quorum calls this).
   */
  async attachSignature(id: string, party: string, signature: Signature, audit: AuditEntry): Promise<void> {
    const raw = await this.redis.hget(this.recordKey(id), 'payload').catch(redisFailed);
    if (!raw) throw new StoreError('NOT_FOUND', `no submission ${id}`);
    const payload = JSON.parse(raw) as SubmissionPayload;
    payload.partySignatures = { signatures: [{ party, signatures: [signature] }] };
    await runScript(
      this.redis,
      AUDITED,
      [this.k('audit'), this.recordKey(id)],
      ['payload', JSON.stringify(payload), ...auditFields(audit)],
    ).catch(redisFailed);
  }

  async markKeyDisabled(fingerprint: string): Promise<void> {
    await this.redis.sadd(this.k('keys', 'disabled'), fingerprint).catch(redisFailed);
  }

  async isKeyDisabled(fingerprint: string): Promise<boolean> {
    return (await this.redis.sismember(this.k('keys', 'disabled'), fingerprint).catch(redisFailed)) === 1;
  }

  /** Appends one entry to the audit chain on its own (a change that is not in Redis: a key file written). */
  async audit(entry: Record<string, string>): Promise<void> {
    await runScript(
      this.redis,
      AUDITED,
      [this.k('audit'), this.k('audit')],
      ['', '', ...auditFields(entry)],
    ).catch(redisFailed);
  }

  /** Entries of the audit chain after `after` (exclusive; '0-0' = from the start), in order, fields as stored. */
  async auditEntries(after = '0-0', count = 1000): Promise<ChainEntry[]> {
    const rows = await this.redis
      .xrange(this.k('audit'), `(${after}`, '+', 'COUNT', count)
      .catch(redisFailed);
    return rows.map(([id, f]) => ({
      id,
      fields: Array.from({ length: f.length / 2 }, (_, i) => [f[2 * i], f[2 * i + 1]] as [string, string]),
    }));
  }

  /** The hash of the newest audit entry (what the next one links to); undefined before the first. */
  async auditHead(): Promise<string | undefined> {
    return (await this.redis.get(`${this.k('audit')}:head`).catch(redisFailed)) ?? undefined;
  }

  /** The signature entries of the audit chain (entries of other kinds — approvals, policy, keys — left out). */
  async auditLog(count = 10_000): Promise<AuditEntry[]> {
    const rows = await this.redis.xrange(this.k('audit'), '-', '+', 'COUNT', count).catch(redisFailed);
    return rows.flatMap(([, fields]) => {
      const o: Record<string, string> = {};
      for (let i = 0; i < fields.length; i += 2) o[fields[i] as string] = fields[i + 1] as string;
      return o.kind === undefined ? [o as unknown as AuditEntry] : [];
    });
  }
}

/**
 * A record that was created or moved into an announced status (STATUS_TABLE `announce`), as the outbox tells
 * it; `status` is the status it had then (not necessarily final: filter with `isTerminal`).
 */
export interface OutboxEntry {
  /** The stream entry id: read after it to resume. */
  cursor: string;
  id: string;
  status: SubmissionStatus;
  party: string;
  commandId: string;
  updateId: string | null;
  completionOffset: number | null;
  errorCode: string | null;
  /** When the record became final (its `updatedAt`). */
  at: string;
}

/** A list of ARGV items preceded by its length (the scripts take several variable-length parts). */
const withCount = (items: string[]): string[] => [String(items.length), ...items];

function outboxFields(r: SubmissionRecord): string[] {
  return [
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

function outboxEntry(cursor: string, fields: string[]): OutboxEntry {
  const f: Record<string, string> = {};
  for (let i = 0; i + 1 < fields.length; i += 2) f[fields[i] as string] = fields[i + 1] as string;
  return {
    cursor,
    id: f.id ?? '',
    status: f.status as SubmissionStatus,
    party: f.party ?? '',
    commandId: f.commandId ?? '',
    updateId: f.updateId || null,
    completionOffset: f.completionOffset ? Number(f.completionOffset) : null,
    errorCode: f.errorCode || null,
    at: f.at ?? '',
  };
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
