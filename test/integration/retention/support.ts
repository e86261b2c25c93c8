// What the retention tests share: a store whose records move to final, the relay passed over them, and the key
// names a store holds.
import type { Redis } from 'ioredis';
import { relayStep } from '../../../src/events/relay.ts';
import type { SubmissionRecord, SubmissionStore } from '../../../src/submissions/index.ts';
import { expire } from '../../../src/submissions/transitions.ts';
import { payload, record } from '../../support/records.ts';

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Creates a record (with an Idempotency-Key unless `idem` is false) and returns it. */
export async function created(
  store: SubmissionStore,
  over: Partial<SubmissionRecord> = {},
  idem = true,
): Promise<SubmissionRecord> {
  const r = record({ status: 'executing', ...over });
  await store.create(
    r,
    payload,
    idem ? { scope: 'tok|alice', key: `k-${r.id}`, fingerprint: 'f' } : undefined,
  );
  return r;
}

export async function commit(store: SubmissionStore, id: string, updateId = `upd-${id}`): Promise<void> {
  await store.update(id, (r) => ({ ...r, status: 'committed', updateId, completionOffset: 7 }));
}

export async function expireIt(store: SubmissionStore, id: string): Promise<void> {
  await store.update(id, expire({ code: 'EXPIRED', message: 'too late' }));
}

/** Runs the event relay over everything in the outbox. */
export async function relayAll(store: SubmissionStore): Promise<void> {
  while ((await relayStep(store.redis, store.prefix, 500)) > 0);
}

/** Every key under the store's prefix. */
export async function keysOf(redis: Redis, prefix: string): Promise<string[]> {
  const out: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    out.push(...batch);
  } while (cursor !== '0');
  return out.sort();
}

/** The index entries a record has: which of its indexes still name it. */
export async function indexed(store: SubmissionStore, r: SubmissionRecord): Promise<string[]> {
  const k = store.keys;
  const redis = store.redis;
  const cur = await store.getRecord(r.id);
  const status = cur?.status ?? r.status;
  const found: string[] = [];
  if (await redis.exists(k.record(r.id))) found.push('record');
  if ((await redis.get(k.commandIndex(r.commandId))) === r.id) found.push('cmd');
  if ((await redis.zscore(k.allIndex, r.id)) !== null) found.push('all');
  if ((await redis.zscore(k.partyIndex(r.party), r.id)) !== null) found.push('party');
  if ((await redis.zscore(k.statusIndex(status), r.id)) !== null) found.push('status');
  if ((await redis.zscore(k.partyStatusIndex(r.party, status), r.id)) !== null) found.push('ps');
  if (await redis.exists(k.idempotency('tok|alice', `k-${r.id}`))) found.push('idem');
  return found;
}

export const ALL_INDEXES = ['record', 'cmd', 'all', 'party', 'status', 'ps', 'idem'];

/** What a key under a prefix holds, by its name after the prefix. */
export function kindOf(prefix: string, key: string): string {
  const rest = key.slice(prefix.length);
  for (const k of [
    'sub:',
    'idx:cmd:',
    'idx:update:',
    'idx:party:',
    'idx:status:',
    'idx:ps:',
    'idem:',
    'bull:',
  ]) {
    if (rest.startsWith(k)) return k.slice(0, -1);
  }
  for (const k of ['wh:dlv:', 'wh:attempts:', 'wh:dead:', 'wh:chain:', 'hist:party:', 'hist:holdings:']) {
    if (rest.startsWith(k)) return k.slice(0, -1);
  }
  return rest;
}

/** MEMORY USAGE (all of each value sampled) summed by kind, and the key count, under a prefix. */
export async function footprint(
  redis: Redis,
  prefix: string,
): Promise<{ bytes: Record<string, number>; keys: Record<string, number>; total: number; count: number }> {
  const all = await keysOf(redis, prefix);
  const pipe = redis.pipeline();
  for (const k of all) pipe.memory('USAGE', k, 'SAMPLES', 0);
  const rows = (await pipe.exec()) ?? [];
  const bytes: Record<string, number> = {};
  const keys: Record<string, number> = {};
  let total = 0;
  for (const [i, [, v]] of rows.entries()) {
    const kind = kindOf(prefix, all[i] as string);
    bytes[kind] = (bytes[kind] ?? 0) + Number(v ?? 0);
    keys[kind] = (keys[kind] ?? 0) + 1;
    total += Number(v ?? 0);
  }
  return { bytes, keys, total, count: all.length };
}
