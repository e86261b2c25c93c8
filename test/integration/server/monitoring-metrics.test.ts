// The metrics the monitoring pack's alerts read (monitoring/alerts.yml) say what they claim, over real Redis, BullMQ
// and HTTP: webhook delivery outcomes and dead letters, the relay's lag behind the outbox, the queue's oldest
// waiting job, the oldest open submission and the approvals near their deadline, Redis reachability, and key files
// that fail to open. (That every metric a rule names is served at
// all: test/system/deploy/monitoring.test.ts.)
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { Registry } from 'prom-client';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { dispatchStep, eventMetrics, startDelivery } from '../../../src/events/index.ts';
import { redisKeys, redisMetrics } from '../../../src/redis/index.ts';
import { KeyStore, keyStoreMetrics } from '../../../src/signing/index.ts';
import { watchBacklog } from '../../../src/submissions/index.ts';
import { conn, parts, receiver, until } from '../../support/events.ts';
import { FAST_SCRYPT, PASSPHRASE, tempDir } from '../../support/keys.ts';
import { freshStore, payload, record } from '../../support/records.ts';
import { freePort } from '../../support/redis-global-setup.ts';

const cleanup: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

/** The value of one series in a registry's exposition text. */
async function value(registry: Registry, series: string): Promise<number | undefined> {
  const line = (await registry.metrics()).split('\n').find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe('the monitoring metrics', () => {
  it('count webhook deliveries by outcome, and the dead letters until they are redelivered', async () => {
    const p = parts({ retryForMs: 300, retryBaseMs: 20, retryMaxDelayMs: 50 });
    cleanup.push(() => p.close());
    const registry = new Registry();
    eventMetrics(registry, { redis: p.redis, prefix: p.prefix, deliveries: p.deliveries, hooks: p.hooks });
    let up = true;
    const rx = await receiver(() => (up ? 200 : 503));
    cleanup.push(() => rx.close());
    const { webhook } = await p.hooks.create({ url: rx.url, types: [], party: null, description: null });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 100,
      pollMs: 100,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    const ok = await p.log.append('ledger.gap', '', {});
    await until(
      async () => (await p.deliveries.state(webhook.id, ok))?.state === 'delivered',
      10_000,
      'delivered',
    );
    expect(await value(registry, 'quill_webhook_deliveries_total{outcome="delivered"}')).toBe(1);
    expect(await value(registry, 'quill_webhook_dead_letters')).toBe(0);

    up = false;
    const lost = await p.log.append('ledger.gap', '', {});
    await until(async () => (await p.deliveries.state(webhook.id, lost))?.state === 'dead', 10_000, 'dead');
    expect(await value(registry, 'quill_webhook_deliveries_total{outcome="dead"}')).toBe(1);
    expect(await value(registry, 'quill_webhook_deliveries_total{outcome="failed"}')).toBeGreaterThanOrEqual(
      1,
    );
    expect(await value(registry, 'quill_webhook_dead_letters')).toBe(1);

    up = true;
    await p.deliveries.redeliver(webhook.id, lost);
    await until(
      async () => (await p.deliveries.state(webhook.id, lost))?.state === 'delivered',
      10_000,
      'again',
    );
    expect(await value(registry, 'quill_webhook_dead_letters')).toBe(0);
    expect(await value(registry, 'quill_webhook_deliveries_total{outcome="delivered"}')).toBe(2);
  });

  it('measure the relay lag from the oldest outbox entry after its cursor', async () => {
    const p = parts();
    cleanup.push(() => p.close());
    const registry = new Registry();
    eventMetrics(registry, { redis: p.redis, prefix: p.prefix, deliveries: p.deliveries, hooks: p.hooks });
    const keys = redisKeys(p.prefix);
    expect(await value(registry, 'quill_event_relay_lag_seconds')).toBe(0);
    // Entries written 90 s and 30 s ago, none relayed: the lag is the older one's age.
    const now = Date.now();
    const first = await p.redis.xadd(keys.outbox, `${now - 90_000}-0`, 'id', 'x');
    await p.redis.xadd(keys.outbox, `${now - 30_000}-0`, 'id', 'y');
    const lag = (await value(registry, 'quill_event_relay_lag_seconds')) as number;
    expect(lag).toBeGreaterThanOrEqual(90);
    expect(lag).toBeLessThan(100);
    // The relay moved past the first: the second's age.
    await p.redis.set(keys.relayCursor, first as string);
    const next = (await value(registry, 'quill_event_relay_lag_seconds')) as number;
    expect(next).toBeGreaterThanOrEqual(30);
    expect(next).toBeLessThan(40);
  });

  it('give the age of the oldest waiting job, 0 when none waits', async () => {
    const redis = new Redis(inject('redisUrl'), { maxRetriesPerRequest: null });
    const queue = new Queue(`q-${randomBytes(4).toString('hex')}`, { connection: redis });
    cleanup.push(async () => {
      await queue.obliterate({ force: true });
      await queue.close();
      redis.disconnect();
    });
    const registry = new Registry();
    watchBacklog(registry, {
      statuses: async () => ({}),
      jobs: async () => ({}),
      oldestJob: async () => {
        const [job] = await queue.getJobs(['waiting'], 0, 0, true);
        return job ? job.timestamp : undefined;
      },
    });
    expect(await value(registry, 'quill_queue_oldest_waiting_seconds')).toBe(0);
    await queue.add('a', {}, { timestamp: Date.now() - 60_000 });
    await queue.add('b', {});
    const age = (await value(registry, 'quill_queue_oldest_waiting_seconds')) as number;
    expect(age).toBeGreaterThanOrEqual(60);
    expect(age).toBeLessThan(70);
  });

  it('give the age of the least recently changed open record, and the approvals due within each window', async () => {
    const redis = new Redis(inject('redisUrl'));
    cleanup.push(() => redis.disconnect());
    const store = freshStore(redis);
    const registry = new Registry();
    watchBacklog(registry, {
      statuses: () => store.countByStatus(),
      jobs: async () => ({}),
      oldest: (status, limit) => store.oldestInStatus(status, limit),
    });
    expect(await value(registry, 'quill_submissions_oldest_seconds{status="executing"}')).toBe(0);
    const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
    const ahead = (ms: number) => new Date(Date.now() + ms).toISOString();
    // Executing: one unchanged for 20 minutes, one just changed.
    await store.create(
      record({ status: 'executing', createdAt: ago(30 * 60_000), updatedAt: ago(20 * 60_000) }),
      payload,
    );
    await store.create(record({ status: 'executing', updatedAt: ago(1000) }), payload);
    const approval = (deadline: string | null) => ({
      rule: 'big',
      policyVersion: 1,
      quorum: 1,
      group: null,
      approvers: null,
      deadline,
    });
    // Awaiting approval: due in 10 min, in 50 min, in 5 h, already past, and without a deadline.
    for (const deadline of [ahead(10 * 60_000), ahead(50 * 60_000), ahead(5 * 3600_000), ago(60_000), null])
      await store.create(record({ status: 'awaiting_approval', approval: approval(deadline) }), payload);
    const stuck = (await value(registry, 'quill_submissions_oldest_seconds{status="executing"}')) as number;
    expect(stuck).toBeGreaterThanOrEqual(1200);
    expect(stuck).toBeLessThan(1260);
    expect(await value(registry, 'quill_submissions_oldest_seconds{status="queued"}')).toBe(0);
    expect(await value(registry, 'quill_approvals_expiring{within="15m"}')).toBe(1);
    expect(await value(registry, 'quill_approvals_expiring{within="1h"}')).toBe(2);
    expect(await value(registry, 'quill_approvals_expiring{within="24h"}')).toBe(3);
    expect(await value(registry, 'quill_approvals_pending')).toBe(5);
  });

  it('say whether Redis answers', async () => {
    const registry = new Registry();
    const good = new Redis(inject('redisUrl'));
    cleanup.push(() => good.disconnect());
    await good.ping();
    redisMetrics(registry, good);
    expect(await value(registry, 'quill_redis_up')).toBe(1);
    const other = new Registry();
    const none = new Redis(`redis://127.0.0.1:${await freePort()}`, { maxRetriesPerRequest: 1 });
    none.on('error', () => {});
    cleanup.push(() => none.disconnect());
    redisMetrics(other, none);
    expect(await value(other, 'quill_redis_up')).toBe(0);
  });

  it('count key files that fail to open', async () => {
    const dir = await tempDir();
    const store = new KeyStore({ dir, passphrase: PASSPHRASE, scrypt: FAST_SCRYPT });
    const registry = new Registry();
    keyStoreMetrics(registry, store);
    await store.generate('ed25519');
    expect(await value(registry, 'quill_keystore_readable')).toBe(1);
    expect(await value(registry, 'quill_keystore_broken_keys')).toBe(0);
    writeFileSync(join(dir, `${'12'.repeat(34)}.json`), '{"not":"a key"}');
    await new Promise((r) => setTimeout(r, 1100)); // one survey per second at most
    expect(await value(registry, 'quill_keystore_broken_keys')).toBe(1);
    expect(await value(registry, 'quill_keystore_readable')).toBe(1);
  });
});
