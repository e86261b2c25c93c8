// Retention of what grows with submissions (issue 32): records final for longer than RECORD_RETENTION_HOURS go with
// every index entry and their Idempotency-Key, and the outbox loses the entries every consumer has passed. Record
// retention follows the outbox with its own cursor, as payload retention does: the cursor moves in the Lua step that
// removes, so a sweep that runs twice (a crash, two leaders for a moment) removes nothing twice and skips nothing.
import { consumerStep } from '../../redis/consumer.ts';
import { redisFailed } from '../../redis/errors.ts';
import { runScript } from '../../redis/scripts.ts';
import { isTerminal } from '../record.ts';
import { decodeOutboxEntry } from './outbox.ts';
import type { SubmissionStore } from './records.ts';
import { DROP_RECORDS, OUTBOX_TRIM } from './scripts.ts';
import { RECORD_SCHEMA_VERSION } from './stored.ts';

/** What names a record's index entries, from its stored JSON; undefined when it is not one this code wrote. */
function namesOf(
  raw: string,
  schema: string | null | undefined,
): { commandId: string; party: string; updateId: string | null } | undefined {
  if ((schema ?? '1') !== String(RECORD_SCHEMA_VERSION)) return undefined;
  try {
    const r = JSON.parse(raw) as { commandId?: unknown; party?: unknown; updateId?: unknown };
    if (typeof r.commandId !== 'string' || typeof r.party !== 'string') return undefined;
    return {
      commandId: r.commandId,
      party: r.party,
      updateId: typeof r.updateId === 'string' ? r.updateId : null,
    };
  } catch {
    return undefined;
  }
}

/** Stream entry ids (`<ms>-<seq>`) in order. */
export function compareIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

/**
 * Removes every record that became final before `cutoffMs`, with its index entries and Idempotency-Key. It never
 * passes the event relay: the relay reads a record's body when it turns its outbox entry into an event. Returns
 * how many records it removed.
 */
export async function dropRecords(store: SubmissionStore, cutoffMs: number): Promise<number> {
  const { redis, keys: k } = store;
  const relay = (await redis.get(k.relayCursor).catch(redisFailed)) ?? '0-0';
  const cutoff = `${Math.max(0, Math.floor(cutoffMs))}-${Number.MAX_SAFE_INTEGER}`;
  const through = compareIds(relay, cutoff) < 0 ? relay : cutoff;
  if (through === '0-0') return 0;
  let removed = 0;
  const step = consumerStep({
    name: 'record retention',
    redis,
    reader: redis,
    stream: k.outbox,
    cursor: { key: k.recordRetentionCursor, start: 'first' },
    through: () => through,
    // A small batch: its script holds Redis about a millisecond (200 held it 2–12 ms at 200 submissions/s, and
    // every accept waiting behind it felt that).
    batch: 50,
    handle: async (entries, from, to) => {
      const ids = [
        ...new Set(
          entries.flatMap(({ id, fields }) => {
            const e = decodeOutboxEntry(id, fields);
            return e.id && isTerminal(e.status) ? [e.id] : [];
          }),
        ),
      ];
      // The keys a record's content names, read first: a script may only touch the keys it is given.
      const pipe = redis.pipeline();
      for (const id of ids) pipe.hmget(k.record(id), 'status', 'record', 'schemaVersion', 'idem', 'idems');
      const rows = ids.length ? ((await pipe.exec()) ?? []) : [];
      const groups: string[] = [];
      const idems: string[] = [];
      const held: string[] = [];
      const args: string[] = [];
      for (const [i, [err, value]] of rows.entries()) {
        if (err) throw err;
        const [status, raw, schema, idem, more] = value as (string | null)[];
        const id = ids[i] as string;
        if (!status || !raw || !isTerminal(status as never)) continue;
        // Only the names of its index entries are needed: no full schema check of a large record per sweep.
        const r = namesOf(raw, schema);
        if (!r) continue; // a record this code cannot read is kept as it is (CORRUPT on every read)
        const own = k.record(id);
        groups.push(
          own,
          k.commandIndex(r.commandId),
          r.updateId ? k.updateIndex(r.updateId) : own,
          k.partyIndex(r.party),
          k.statusIndex(status),
          k.partyStatusIndex(r.party, status),
        );
        // Records created before the key's name was stored keep their Idempotency-Key.
        idems.push(idem?.startsWith(k.prefix) ? idem : own);
        // The Idempotency-Keys of requests whose command id this record held (create.lua), by name.
        const named = heldKeys(more).filter((key) => key.startsWith(k.prefix));
        held.push(...named);
        args.push(id, status, String(named.length));
      }
      const n = Number(
        await runScript(
          redis,
          DROP_RECORDS,
          [k.recordRetentionCursor, k.allIndex, ...groups, ...idems, ...held],
          [from, to, ...args],
        ),
      );
      // -1: another sweep moved the cursor first; the next step reads on from where it left it.
      if (n > 0) removed += n;
    },
  });
  try {
    while ((await step()) > 0);
  } catch (err) {
    redisFailed(err);
  }
  return removed;
}

/** The key names of a record's 'idems' map (none when absent or unreadable: those keys then stay). */
function heldKeys(raw: string | null | undefined): string[] {
  if (!raw) return [];
  try {
    const map: unknown = JSON.parse(raw);
    return map && typeof map === 'object' && !Array.isArray(map) ? Object.keys(map) : [];
  } catch {
    return [];
  }
}

/**
 * Trims the outbox up to the slowest persisted cursor: the relay's, payload retention's and, when record
 * retention is on, its own. The outcome waiter follows the outbox in memory from its end and needs no old entries.
 * A consumer that has not run yet holds everything. Returns how many entries went.
 */
export async function trimOutbox(store: SubmissionStore, o: { records: boolean }): Promise<number> {
  const k = store.keys;
  const cursors = [k.relayCursor, k.retentionCursor, ...(o.records ? [k.recordRetentionCursor] : [])];
  return Number(await runScript(store.redis, OUTBOX_TRIM, [k.outbox, ...cursors], []).catch(redisFailed));
}

/** The outbox's length and the time its oldest entry was written (ms; undefined when empty). */
export async function outboxStats(store: SubmissionStore): Promise<{ length: number; oldestMs?: number }> {
  const k = store.keys;
  const [length, first] = await Promise.all([
    store.redis.xlen(k.outbox),
    store.redis.xrange(k.outbox, '-', '+', 'COUNT', 1),
  ]).catch(redisFailed);
  const id = first[0]?.[0];
  return id ? { length, oldestMs: Number(id.slice(0, id.indexOf('-'))) } : { length };
}
