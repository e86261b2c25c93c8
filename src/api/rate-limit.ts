// The per-token accept rate limit (issue #12, finding 1): a window that opens at the token's first accept in it,
// counted in Redis so it holds across every API process of a deployment. A token is its subject and party
// together (what scopes its idempotency keys).
import type { Redis } from 'ioredis';
import { redisKeys, StoreError } from '../redis/index.ts';
import { ApiError } from './errors.ts';

export interface AcceptRateLimit {
  /** Submissions a token may have accepted per window. */
  max: number;
  windowMs: number;
}

/** Counts `n` submissions for the token; throws 429 `RATE_LIMITED` (with when to retry) once over the limit. */
export type AcceptLimiter = (
  who: { subject: string; party?: string | undefined },
  n: number,
) => Promise<void>;

export function acceptLimiter(redis: Redis, prefix: string, limit: AcceptRateLimit): AcceptLimiter {
  const keys = redisKeys(prefix);
  return async (who, n) => {
    const key = keys.acceptRate(who.subject, who.party ?? '');
    // NX: only the first accept of a window sets its end; the count then lives exactly one window.
    const res = await redis
      .multi()
      .incrby(key, n)
      .pexpire(key, limit.windowMs, 'NX')
      .pttl(key)
      .exec()
      .catch((err: unknown) => {
        throw new StoreError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
      });
    // A failed command (e.g. a server without PEXPIRE NX) would leave a count that never expires: refuse instead.
    const failed = res?.find(([e]) => e)?.[0];
    if (failed) throw new StoreError('UNAVAILABLE', 'Redis refused the rate-limit count', { cause: failed });
    const count = Number(res?.[0]?.[1] ?? 0);
    if (count > limit.max) {
      const retryAfterSeconds = Math.max(1, Math.ceil(Number(res?.[2]?.[1] ?? limit.windowMs) / 1000));
      throw new ApiError(
        429,
        'RATE_LIMITED',
        `this token may have at most ${limit.max} submissions accepted per ${limit.windowMs / 1000} s; retry after ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  };
}
