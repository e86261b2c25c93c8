// Holdings a transfer being prepared has picked, reserved in Redis until its record is stored (from then on the
// record's intent says they are spent): two intents of one party prepared at once never pick the same holding,
// whichever API process serves them. A reservation expires on its own if its process dies.
import type { Redis } from 'ioredis';
import { loadScript, redisKeys, runScript } from '../redis/index.ts';

/** Compare and delete: a reservation that expired and was taken by another intent stays. */
const RELEASE = loadScript('lease-release');

export class HoldingReservations {
  private readonly keys;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly ttlMs: number,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** Reserves what it can of `contractIds` for `owner`; returns the ones another intent holds. */
  async reserve(contractIds: readonly string[], owner: string): Promise<string[]> {
    if (contractIds.length === 0) return [];
    const pipe = this.redis.multi();
    for (const c of contractIds) pipe.set(this.keys.intentHolding(c), owner, 'PX', this.ttlMs, 'NX');
    const res = (await pipe.exec()) ?? [];
    return contractIds.filter((_, i) => res[i]?.[1] !== 'OK');
  }

  /**
   * Runs `fn` as the only request preparing `commandId` (one Idempotency-Key sent twice at once): a second one
   * waits until the first is done, then runs (and finds the first's record).
   */
  async exclusive<T>(commandId: string, owner: string, fn: () => Promise<T>): Promise<T> {
    const key = this.keys.intentCommand(commandId);
    const until = Date.now() + this.ttlMs;
    while ((await this.redis.set(key, owner, 'PX', this.ttlMs, 'NX')) !== 'OK') {
      if (Date.now() > until) break; // a holder that died: its lock expired by now anyway
      await new Promise((r) => setTimeout(r, 50));
    }
    try {
      return await fn();
    } finally {
      await runScript(this.redis, RELEASE, [key], [owner]);
    }
  }

  /** Releases `owner`'s reservations (another owner's are left alone). */
  async release(contractIds: readonly string[], owner: string): Promise<void> {
    await Promise.all(
      contractIds.map((c) => runScript(this.redis, RELEASE, [this.keys.intentHolding(c)], [owner])),
    );
  }
}
