// Whether this process reaches Redis, for /metrics. Everything Quill keeps lives in Redis, so its loss stops
// accepts, executions, events and webhooks at once; the gauges read from Redis then go quiet rather than to
// zero, so an alert needs a metric that says so itself.
import type { Redis } from 'ioredis';
import { Gauge, type Registry } from 'prom-client';

/** How long a scrape waits for Redis' PONG before calling it down. */
const PING_TIMEOUT_MS = 1000;

export function redisMetrics(registry: Registry, redis: Redis): void {
  new Gauge({
    name: 'quill_redis_up',
    help: '1 when this process’s Redis connection is ready and answered PING within 1 s at scrape time, else 0',
    registers: [registry],
    async collect() {
      // A connection that is not ready would queue the PING until it reconnects: not up, without asking.
      if (redis.status !== 'ready') {
        this.set(0);
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), PING_TIMEOUT_MS);
      });
      try {
        await Promise.race([redis.ping(), late]);
        this.set(1);
      } catch {
        this.set(0);
      } finally {
        clearTimeout(timer);
      }
    },
  });
}
