// History retention (HISTORY_RETENTION_HOURS): the watcher's per-transaction party history older than the window
// goes — by update id, by hash, and from each party's history — oldest first, party by party (a party's history is
// in offset order, and offsets follow record time). Holdings and pending instructions are live state: untouched.
import type { Redis } from 'ioredis';
import { redisKeys } from '../redis/keys.ts';
import { loadScript, runScript } from '../redis/scripts.ts';
import { HistoryError } from './errors.ts';
import type { IndexedTransaction } from './index-store.ts';

const PRUNE = loadScript('history-prune');

/**
 * The parties whose oldest history entry is past the cutoff: two round trips per 500 parties, so a sweep every few
 * seconds over many parties costs little when there is nothing to remove.
 */
async function withOldEntries(
  redis: Redis,
  k: ReturnType<typeof redisKeys>,
  parties: readonly string[],
  cutoffMs: number,
): Promise<string[]> {
  const out: string[] = [];
  for (let i = 0; i < parties.length; i += 500) {
    const chunk = parties.slice(i, i + 500);
    const pipe = redis.pipeline();
    for (const p of chunk) pipe.zrange(k.historyOfParty(p), '0', '0');
    const firsts = ((await pipe.exec()) ?? []).map(([err, v]) => {
      if (err) throw err;
      return (v as string[])[0];
    });
    const ids = firsts.filter((u): u is string => u !== undefined);
    if (ids.length === 0) continue;
    const raw = await redis.hmget(k.historyByUpdate, ...ids);
    const time = new Map(ids.map((u, j) => [u, raw[j]]));
    for (const [j, u] of firsts.entries()) {
      if (u === undefined) continue;
      const v = time.get(u);
      // A missing transaction (an orphan entry) is removed too.
      if (
        v === null ||
        v === undefined ||
        Date.parse((JSON.parse(v) as IndexedTransaction).recordTime) < cutoffMs
      )
        out.push(chunk[j] as string);
    }
  }
  return out;
}

/**
 * Removes the history entries of `parties` whose record time is before `cutoffMs`; returns how many transactions
 * went. Each step's reads are checked again in its Lua step, so two sweeps side by side remove each entry once.
 */
export async function pruneHistory(
  redis: Redis,
  prefix: string,
  parties: readonly string[],
  cutoffMs: number,
  // Small: a step's script holds Redis about a millisecond (200 held it 3–12 ms at 200 submissions/s).
  batch = 50,
): Promise<number> {
  const k = redisKeys(prefix);
  const partyPrefix = k.historyOfParty('');
  let removed = 0;
  try {
    for (const party of await withOldEntries(redis, k, parties, cutoffMs)) {
      const own = k.historyOfParty(party);
      for (;;) {
        const ids = await redis.zrange(own, '0', String(batch - 1));
        if (ids.length === 0) break;
        const raw = await redis.hmget(k.historyByUpdate, ...ids);
        const keys = [k.historyByUpdate, k.historyByHash, own];
        const at = new Map([[own, 3]]);
        const items: { u: string; s: number }[] = [];
        let reachedWindow = false;
        for (const [i, v] of raw.entries()) {
          const u = ids[i] as string;
          if (v === null) {
            items.push({ u, s: 3 });
            continue;
          }
          const t = JSON.parse(v) as IndexedTransaction;
          if (!(Date.parse(t.recordTime) < cutoffMs)) {
            reachedWindow = true;
            break;
          }
          for (const p of t.parties) {
            const key = k.historyOfParty(p);
            if (!at.has(key)) at.set(key, keys.push(key));
          }
          items.push({ u, s: 3 });
        }
        if (items.length === 0) break;
        const n = Number(await runScript(redis, PRUNE, keys, [partyPrefix, JSON.stringify(items)]));
        removed += n;
        // Some entry skipped (a party merged in meanwhile): the next sweep takes it, not this loop again.
        if (reachedWindow || ids.length < batch || n < items.length) break;
      }
    }
  } catch (err) {
    if (err instanceof HistoryError) throw err;
    throw new HistoryError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
  }
  return removed;
}
