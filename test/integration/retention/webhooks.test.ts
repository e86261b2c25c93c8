// Webhook delivery retention (WEBHOOK_RETENTION_HOURS): delivered and dead-lettered states that ended before the
// cutoff go with their dead letters and attempts; pending ones (whatever their age) and those that ended inside the
// window stay. The webhook sweep runs it.
import { afterEach, describe, expect, it } from 'vitest';
import { type DeliveryState, dispatchStep, startDelivery } from '../../../src/events/index.ts';
import { conn, parts, receiver, until } from '../../support/events.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

const iso = (ms: number) => new Date(ms).toISOString();

describe('webhook delivery retention', () => {
  it('removes delivered and dead states past the window with their attempts and dead letters, nothing else', async () => {
    const p = parts();
    cleanup.push(() => p.close());
    const { webhook } = await p.hooks.create({
      url: 'http://127.0.0.1:1/x',
      types: [],
      party: null,
      description: null,
    });
    const d = p.deliveries;
    const now = Date.now();
    const old = now - 3_600_000;
    const ev = (ms: number, n: number) => `${ms}-${n}`;
    const state = (eventId: string, s: DeliveryState['state'], at: number): DeliveryState => ({
      eventId,
      party: 'alice::1220aa',
      state: s,
      attempts: 1,
      queuedAt: iso(at - 10),
      firstAttemptAt: iso(at),
      lastAttemptAt: iso(at),
    });
    const oldDelivered = ev(old, 0);
    const oldDead = ev(old, 1);
    const oldPending = ev(old, 2);
    const newDelivered = ev(now - 1000, 0);
    // An old event whose delivery ended recently (retried for long): its end is what counts.
    const lateDead = ev(old, 3);
    for (const [id, s, at] of [
      [oldDelivered, 'delivered', old],
      [oldDead, 'dead', old],
      [oldPending, 'pending', old],
      [newDelivered, 'delivered', now - 1000],
      [lateDead, 'dead', now - 1000],
    ] as const) {
      await d.setState(webhook.id, state(id, s, at));
      await d.noteAttempt(webhook.id, {
        eventId: id,
        attempt: 1,
        at: iso(at),
        statusCode: 200,
        latencyMs: 1,
        error: null,
      });
      if (s === 'dead') await p.redis.rpush(d.keys.webhookDead(webhook.id), id);
    }
    const cutoff = now - 60_000;
    const [a, b] = await Promise.all([d.prune(cutoff), d.prune(cutoff)]);
    expect(a + b).toBe(2);
    expect(await d.prune(cutoff)).toBe(0);
    const left = (await d.list(webhook.id, 100)).map((s) => [s.eventId, s.state, s.attemptLog.length]);
    expect(left.sort()).toEqual(
      [
        [oldPending, 'pending', 1],
        [newDelivered, 'delivered', 1],
        [lateDead, 'dead', 1],
      ].sort(),
    );
    expect(await p.redis.lrange(d.keys.webhookDead(webhook.id), 0, -1)).toEqual([lateDead]);
    expect(await p.redis.llen(d.keys.webhookAttempts(webhook.id))).toBe(3);
  });

  it('over many pages of states, every past one goes with its attempts (the attempts log is swept once, at the last page)', async () => {
    const p = parts();
    cleanup.push(() => p.close());
    const { webhook } = await p.hooks.create({
      url: 'http://127.0.0.1:1/x',
      types: [],
      party: null,
      description: null,
    });
    const d = p.deliveries;
    const now = Date.now();
    const at = (ms: number) => ({ queuedAt: iso(ms - 10), firstAttemptAt: iso(ms), lastAttemptAt: iso(ms) });
    const ids = [...Array.from({ length: 450 }, (_, i) => `${now - 3_600_000 + i}-0`), `${now - 1000}-0`];
    for (const id of ids) {
      const ms = Number(id.split('-')[0]);
      await d.setState(webhook.id, {
        eventId: id,
        party: 'alice::1220aa',
        state: 'delivered',
        attempts: 1,
        ...at(ms),
      });
      await d.noteAttempt(webhook.id, {
        eventId: id,
        attempt: 1,
        at: iso(ms),
        statusCode: 200,
        latencyMs: 1,
        error: null,
      });
    }
    expect(await d.prune(now - 60_000)).toBe(450);
    expect(await p.redis.hkeys(d.keys.webhookDeliveries(webhook.id))).toEqual([`${now - 1000}-0`]);
    const attempts = await p.redis.lrange(d.keys.webhookAttempts(webhook.id), 0, -1);
    expect(attempts.map((a) => (JSON.parse(a) as { eventId: string }).eventId)).toEqual([`${now - 1000}-0`]);
  });

  it('the webhook sweep prunes delivered states once they are past WEBHOOK_RETENTION_HOURS', async () => {
    const p = parts();
    cleanup.push(() => p.close());
    const rx = await receiver();
    cleanup.push(() => rx.close());
    const { webhook } = await p.hooks.create({ url: rx.url, types: [], party: null, description: null });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 100,
      retentionMs: 300,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    for (let i = 0; i < 5; i++) await p.log.append('submission.accepted', 'alice::1220aa', { i });
    await until(() => rx.accepted.length === 5, 10_000, 'deliveries');
    await until(
      async () => (await p.redis.hlen(p.deliveries.keys.webhookDeliveries(webhook.id))) === 0,
      10_000,
      'states pruned',
    );
    expect(await p.redis.llen(p.deliveries.keys.webhookAttempts(webhook.id))).toBe(0);
  });
});
