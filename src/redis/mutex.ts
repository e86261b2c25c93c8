// A short mutual exclusion across processes: `fn` runs while this caller holds `key`; others wait for it. The key
// expires after `ttlMs` if its holder dies; a waiter that still cannot take it then fails (503, retry) rather
// than run beside a holder that is alive.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisFailed, StoreError } from './errors.ts';
import { loadScript, runScript } from './scripts.ts';

/** Compare and delete: a key that expired and was taken by another caller stays theirs. */
const RELEASE = loadScript('lease-release');
/** A waiter looks again after 2 ms, then twice as long each time up to 50 ms: a queue of waiters stays cheap. */
const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 50;

export async function exclusive<T>(
  redis: Redis,
  key: string,
  ttlMs: number,
  fn: () => Promise<T>,
): Promise<T> {
  const token = randomBytes(12).toString('base64url');
  const until = Date.now() + ttlMs;
  let poll = FIRST_POLL_MS;
  while ((await redis.set(key, token, 'PX', ttlMs, 'NX').catch(redisFailed)) !== 'OK') {
    if (Date.now() > until) throw new StoreError('UNAVAILABLE', `${key} stayed held for ${ttlMs} ms`);
    await new Promise((r) => setTimeout(r, poll));
    poll = Math.min(MAX_POLL_MS, poll * 2);
  }
  try {
    return await fn();
  } finally {
    await runScript(redis, RELEASE, [key], [token]);
  }
}
