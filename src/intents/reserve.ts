// Holdings a transfer has picked, reserved in Redis: first by the request preparing it (`pending:…`, for as long
// as a prepare can take), then by the record it stored (until that record can no longer commit). Two intents of
// a party never spend one holding, whichever API process serves them, and nobody reads records to find out. A
// reservation held by a record that ended rejected or expired is stale: the next pick frees it.
import type { Redis } from 'ioredis';
import { exclusive, loadScript, redisKeys, runScript } from '../redis/index.ts';

/** Compare and delete: a reservation another holder has now stays. */
const RELEASE = loadScript('lease-release');
/** Compare and hand over, with a new time to live. */
const HAND_OVER = loadScript('compare-set');
const PENDING = 'pending:';

export class HoldingReservations {
  private readonly keys;

  /** `prepareMs`: how long a request may take from picking to storing its record. */
  constructor(
    private readonly redis: Redis,
    prefix: string,
    private readonly prepareMs: number,
  ) {
    this.keys = redisKeys(prefix);
  }

  /** A holder name for one request. */
  static pending(id: string): string {
    return `${PENDING}${id}`;
  }

  /** The record id holding a reservation, or undefined while a request (not yet a record) holds it. */
  static recordOf(holder: string): string | undefined {
    return holder.startsWith(PENDING) ? undefined : holder;
  }

  /** Reserves what it can of `contractIds` for `owner`; returns the others with who holds each. */
  async reserve(
    contractIds: readonly string[],
    owner: string,
  ): Promise<{ contractId: string; holder: string }[]> {
    if (contractIds.length === 0) return [];
    const pipe = this.redis.multi();
    for (const c of contractIds) {
      pipe.set(this.keys.intentHolding(c), owner, 'PX', this.prepareMs, 'NX');
      pipe.get(this.keys.intentHolding(c));
    }
    const res = (await pipe.exec()) ?? [];
    return contractIds.flatMap((contractId, i) =>
      res[2 * i]?.[1] === 'OK' ? [] : [{ contractId, holder: String(res[2 * i + 1]?.[1] ?? '') }],
    );
  }

  /** The request's reservations become its record's, until `untilMs` (when the record can no longer commit). */
  async handOver(
    contractIds: readonly string[],
    owner: string,
    recordId: string,
    untilMs: number,
  ): Promise<void> {
    const ttl = Math.max(1000, Math.round(untilMs - Date.now()));
    await Promise.all(
      contractIds.map((c) =>
        runScript(this.redis, HAND_OVER, [this.keys.intentHolding(c)], [owner, recordId, ttl]),
      ),
    );
  }

  /**
   * Runs `fn` as the only request preparing `commandId` (one Idempotency-Key sent twice at once): a second one
   * waits until the first is done, then runs (and finds the first's record).
   */
  exclusive<T>(commandId: string, fn: () => Promise<T>): Promise<T> {
    return exclusive(this.redis, this.keys.intentCommand(commandId), this.prepareMs, fn);
  }

  /** Releases `owner`'s reservations (another holder's are left alone). */
  async release(contractIds: readonly string[], owner: string): Promise<void> {
    await Promise.all(
      contractIds.map((c) => runScript(this.redis, RELEASE, [this.keys.intentHolding(c)], [owner])),
    );
  }
}
