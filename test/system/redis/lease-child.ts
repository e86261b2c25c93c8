// One process competing for a lease (test/lease.test.ts): every 20 ms it tries to take LEASE_KEY and, while it
// believes it holds it, appends "<pid> <ms>" to LEASE_KEY:log, until it is killed.
import { Redis } from 'ioredis';
import { Lease } from '../../../src/redis/lease.ts';

const key = process.env.LEASE_KEY as string;
const redis = new Redis(process.env.REDIS_URL as string);
const lease = new Lease(redis, key, { ttlMs: Number(process.env.LEASE_TTL_MS ?? 600) });
process.stdout.write('started\n');
setInterval(async () => {
  if (lease.held || (await lease.acquire().catch(() => false))) {
    await redis.rpush(`${key}:log`, `${process.pid} ${Date.now()}`);
  }
}, 20);
