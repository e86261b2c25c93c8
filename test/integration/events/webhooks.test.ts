// Webhook delivery over real HTTP, real Redis and real BullMQ: retries through failures and a timeout keep
// order per party and lose nothing, every request is signed (both secrets during a rotation's grace), a
// receiver down for good ends dead-lettered and redelivery works.
import { afterEach, describe, expect, it } from 'vitest';
import { dispatchStep, startDelivery, verifySignature } from '../../../src/events/index.ts';
import { conn, parts, receiver, until } from '../../support/events.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanup.splice(0).reverse()) await c();
});

describe('webhook delivery', () => {
  it('retries through three failures and a timeout: every event arrives once accepted, signed, in order per party', async () => {
    const p = parts();
    cleanup.push(() => p.close());
    const rx = await receiver((n) => (n <= 3 ? 500 : n === 4 ? 'hang' : 200));
    cleanup.push(() => rx.close());
    const { webhook, secret } = await p.hooks.create({
      url: rx.url,
      types: [],
      party: null,
      description: null,
    });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 200,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries); // sets the cursor at the (empty) end
    const written: { id: string; party: string }[] = [];
    for (let i = 0; i < 30; i++) {
      const party = ['alice::1220aa', 'bob::1220bb', 'carol::1220cc'][i % 3] as string;
      written.push({ id: await p.log.append('submission.accepted', party, { i }), party });
    }
    await until(
      () => new Set(rx.accepted.map((r) => JSON.parse(r.body).eventId)).size === 30,
      20_000,
      'all events',
    );
    const bodies = rx.accepted.map(
      (r) => JSON.parse(r.body) as { eventId: string; party: string; webhookId: string },
    );
    // Every request, accepted or not, carries a valid signature over its exact body.
    for (const r of rx.got)
      expect(verifySignature(String(r.headers['quill-signature']), r.body, secret)).toBe(true);
    expect(bodies.every((b) => b.webhookId === webhook.id)).toBe(true);
    expect(new Set(bodies.map((b) => b.eventId))).toEqual(new Set(written.map((w) => w.id)));
    for (const party of new Set(written.map((w) => w.party))) {
      const seen = [...new Set(bodies.filter((b) => b.party === party).map((b) => b.eventId))];
      expect(seen).toEqual(written.filter((w) => w.party === party).map((w) => w.id));
    }
    expect(rx.got.length).toBeGreaterThanOrEqual(34);
    // The receiver answered before the worker noted it: wait for the log to catch up.
    await until(
      async () => (await p.deliveries.list(webhook.id, 100)).every((d) => d.state === 'delivered'),
      5000,
      'the delivery log',
    );
    const log = await p.deliveries.list(webhook.id, 100);
    expect(log).toHaveLength(30);
    const errors = log.flatMap((d) => d.attemptLog.map((a) => a.error)).filter((e) => e !== null);
    expect(errors).toContain('TIMEOUT');
    expect(errors.filter((e) => e === 'HTTP 500')).toHaveLength(3);
  });

  it('filters by type and party; signs with both secrets during the grace period after a rotation', async () => {
    const p = parts();
    cleanup.push(() => p.close());
    const rx = await receiver();
    cleanup.push(() => rx.close());
    const { webhook, secret: old } = await p.hooks.create({
      url: rx.url,
      types: ['submission.committed'],
      party: 'alice::1220aa',
      description: null,
    });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 200,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    const { secret: fresh } = await p.hooks.rotate(webhook.id, 60_000);
    await p.log.append('submission.accepted', 'alice::1220aa', {});
    await p.log.append('submission.committed', 'bob::1220bb', {});
    const want = await p.log.append('submission.committed', 'alice::1220aa', {});
    await until(() => rx.accepted.length === 1, 10_000, 'the one matching event');
    const r = rx.accepted[0];
    expect(JSON.parse(r?.body ?? '').eventId).toBe(want);
    const header = String(r?.headers['quill-signature']);
    expect(header.match(/v1=/g)).toHaveLength(2);
    expect(verifySignature(header, r?.body ?? '', old)).toBe(true);
    expect(verifySignature(header, r?.body ?? '', fresh)).toBe(true);
    await new Promise((res) => setTimeout(res, 300));
    expect(rx.got).toHaveLength(1);
  });

  it('dead-letters after retrying for the configured time, and a redelivery then succeeds', async () => {
    const p = parts({ retryForMs: 400 });
    cleanup.push(() => p.close());
    let up = false;
    const rx = await receiver(() => (up ? 200 : 503));
    cleanup.push(() => rx.close());
    const { webhook } = await p.hooks.create({ url: rx.url, types: [], party: null, description: null });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 200,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    const a = await p.log.append('submission.rejected', 'alice::1220aa', {});
    const b = await p.log.append('submission.committed', 'alice::1220aa', {});
    await until(
      async () => {
        const all = await p.deliveries.list(webhook.id, 10);
        return all.length === 2 && all.every((d) => d.state === 'dead');
      },
      10_000,
      'dead',
    );
    const dead = await p.deliveries.list(webhook.id, 10);
    expect(dead.map((d) => d.eventId).sort()).toEqual([a, b].sort());
    expect(dead[0]?.attempts).toBeGreaterThan(1);
    expect(dead[0]?.lastStatusCode).toBe(503);
    up = true;
    await p.deliveries.redeliver(webhook.id, a);
    await until(
      async () => (await p.deliveries.state(webhook.id, a))?.state === 'delivered',
      10_000,
      'redelivered',
    );
    expect(rx.accepted.map((r) => JSON.parse(r.body).eventId)).toEqual([a]);
  });

  it('refuses private targets at delivery time unless allowed', async () => {
    const p = parts({ allowPrivateTargets: false, retryForMs: 1 });
    cleanup.push(() => p.close());
    const rx = await receiver();
    cleanup.push(() => rx.close());
    const { webhook } = await p.hooks.create({ url: rx.url, types: [], party: null, description: null });
    const runner = startDelivery(p.deliveries, {
      connection: conn(),
      reader: conn(),
      sweepEveryMs: 200,
      pollMs: 200,
    });
    cleanup.push(() => runner.stop());
    await dispatchStep(p.deliveries);
    const id = await p.log.append('ledger.gap', '', {});
    await until(async () => (await p.deliveries.state(webhook.id, id))?.state === 'dead', 10_000, 'refused');
    expect((await p.deliveries.state(webhook.id, id))?.lastError).toBe('PRIVATE_TARGET');
    expect(rx.got).toHaveLength(0);
  });
});
