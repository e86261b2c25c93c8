// The events side's metrics: what became of webhook deliveries, the dead letters waiting for an operator, and how
// far the relay is behind the outbox. Without them a receiver that stopped answering, or a relay that stopped,
// shows only as callers who never hear of their submissions.
import type { Redis } from 'ioredis';
import { Counter, Gauge, type Registry } from 'prom-client';
import { redisKeys } from '../redis/keys.ts';
import type { Deliveries } from './webhooks/deliveries.ts';
import type { WebhookRegistry } from './webhooks/registry.ts';

/** The milliseconds part of a stream entry id (`<ms>-<seq>`). */
function entryMs(id: string): number {
  return Number(id.slice(0, id.indexOf('-')));
}

export function eventMetrics(
  registry: Registry,
  o: { redis: Redis; prefix: string; deliveries: Deliveries; hooks: WebhookRegistry },
): void {
  const keys = redisKeys(o.prefix);
  const outcomes = o.deliveries.outcomes;
  new Counter({
    name: 'quill_webhook_deliveries_total',
    help: 'Webhook delivery attempts of this process by outcome (delivered, failed: retried later, dead: dead-lettered, expired: the event left the log first)',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [outcome, n] of Object.entries(outcomes)) this.inc({ outcome }, n);
    },
  });
  // Dead letters stay until an operator redelivers them: the number waiting, the same in every process.
  new Gauge({
    name: 'quill_webhook_dead_letters',
    help: 'Webhook deliveries dead-lettered and not redelivered since, over all webhooks',
    registers: [registry],
    async collect() {
      try {
        const hooks = await o.hooks.list();
        const pipe = o.redis.pipeline();
        for (const h of hooks) pipe.llen(keys.webhookDead(h.id));
        const rows = (await pipe.exec()) ?? [];
        this.set(rows.reduce((n, [e, v]) => n + (e ? 0 : Number(v)), 0));
      } catch {
        // Redis unreachable: quill_redis_up says so.
      }
    },
  });
  // The relay turns outbox entries into events; its lag is the age of the oldest entry not yet relayed (entry ids
  // carry the time they were written).
  new Gauge({
    name: 'quill_event_relay_lag_seconds',
    help: 'Age of the oldest submission outbox entry the event relay has not turned into an event yet (0: none)',
    registers: [registry],
    async collect() {
      try {
        const cursor = (await o.redis.get(keys.relayCursor)) ?? '0-0';
        const [first] = await o.redis.xrange(keys.outbox, `(${cursor}`, '+', 'COUNT', 1);
        this.set(first ? Math.max(0, (Date.now() - entryMs(first[0])) / 1000) : 0);
      } catch {
        // Redis unreachable: as above.
      }
    },
  });
}
