// Keys disabled while submissions signed with them may still be queued: the worker sends nothing more for them
// (a key's status itself lives in the key store, which worker-only processes do not open).
import type { Redis } from 'ioredis';
import { redisFailed } from '../../redis/errors.ts';

export class KeyFlags {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  async markDisabled(fingerprint: string): Promise<void> {
    await this.redis.sadd(this.key, fingerprint).catch(redisFailed);
  }

  async isDisabled(fingerprint: string): Promise<boolean> {
    return (await this.redis.sismember(this.key, fingerprint).catch(redisFailed)) === 1;
  }
}
