// The per-token accept rate limit (issue #12, finding 1): a window that opens at the token's first accept in it,
// counted in Redis so it holds across every API process of a deployment. A token is its subject and party
// together (what scopes its idempotency keys).
import type { Redis } from 'ioredis';
import { loadScript, redisKeys, runScript, StoreError } from '../redis/index.ts';
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

const COUNT = loadScript('rate-count');

export function acceptLimiter(redis: Redis, prefix: string, limit: AcceptRateLimit): AcceptLimiter {
  const keys = redisKeys(prefix);
  return async (who, n) => {
    const key = keys.acceptRate(who.subject, who.party ?? '');
    const [count, msLeft] = (await runScript(redis, COUNT, [key], [n, limit.windowMs]).catch(
      (err: unknown) => {
        // A refused count (e.g. a server without PEXPIRE NX) would leave a count that never expires: refuse instead.
        throw new StoreError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
      },
    )) as [number, number];
    if (count > limit.max) {
      const retryAfterSeconds = Math.max(1, Math.ceil((msLeft > 0 ? msLeft : limit.windowMs) / 1000));
      throw new ApiError(
        429,
        'RATE_LIMITED',
        `this token may have at most ${limit.max} submissions accepted per ${limit.windowMs / 1000} s; retry after ${retryAfterSeconds} s`,
        { retryAfterSeconds },
      );
    }
  };
}
