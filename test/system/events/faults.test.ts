// Webhook delivery survives a worker SIGKILLed mid-delivery and a Redis restart (AOF, fsync always): every
// event reaches the receiver, the first arrival of each party's events is in order, none is missing.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { Deliveries, dispatchStep, EventLog, WebhookRegistry } from '../../../src/events/index.ts';
import { fastDelivery, receiver, until } from '../../support/events.ts';
import { freePort } from '../../support/redis-global-setup.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function startRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'always',
      '--save',
      '',
    ],
    { stdio: 'ignore' },
  );
  for (let i = 0; i < 100; i++) {
    const probe = new Redis(port, '127.0.0.1', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      probe.disconnect();
      break;
    } catch {
      probe.disconnect();
      await sleep(50);
    }
  }
  return child;
}

function worker(redisUrl: string, prefix: string): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', 'test/system/events/delivery-worker.ts'], {
    env: { ...process.env, REDIS_URL: redisUrl, PREFIX: prefix },
    stdio: 'ignore',
  });
}

describe('webhook delivery faults', () => {
  it('loses nothing when the worker is SIGKILLed mid-delivery and Redis restarts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'quill-wh-redis-'));
    const port = await freePort();
    let redisProc = await startRedis(port, dir);
    cleanups.push(() => {
      redisProc.kill('SIGKILL');
      rmSync(dir, { recursive: true, force: true });
    });
    const url = `redis://127.0.0.1:${port}`;
    const prefix = 'whf:';
    const redis = new Redis(url, { maxRetriesPerRequest: null });
    redis.on('error', () => {});
    const bull = new Redis(url, { maxRetriesPerRequest: null });
    bull.on('error', () => {});
    cleanups.push(() => {
      redis.disconnect();
      bull.disconnect();
    });
    const log = new EventLog(redis, prefix);
    const hooks = new WebhookRegistry(redis, prefix);
    const d = new Deliveries(redis, bull, prefix, log, hooks, fastDelivery);
    cleanups.push(() => d.close());
    // Each answer takes 80 ms, so a kill lands while a request is in flight.
    const rx = await receiver(() => 200, 80);
    cleanups.push(() => rx.close());
    await hooks.create({ url: rx.url, types: [], party: null, description: null });
    await dispatchStep(d);
    const parties = ['a::1220aa', 'b::1220bb', 'c::1220cc'];
    const written: { id: string; party: string }[] = [];
    for (let i = 0; i < 45; i++) {
      const party = parties[i % 3] as string;
      written.push({ id: await log.append('submission.committed', party, { i }), party });
    }
    let w = worker(url, prefix);
    cleanups.push(() => {
      w.kill('SIGKILL');
    });
    await until(() => rx.got.length >= 8, 20_000, 'first deliveries');
    w.kill('SIGKILL');
    await sleep(200);
    w = worker(url, prefix);
    await until(() => rx.got.length >= 20, 20_000, 'deliveries after the kill');
    redisProc.kill('SIGKILL');
    await sleep(300);
    redisProc = await startRedis(port, dir);
    const ids = () => new Set(rx.accepted.map((r) => JSON.parse(r.body).eventId as string));
    await until(() => ids().size === 45, 40_000, 'every event');
    for (const party of parties) {
      const firsts: string[] = [];
      for (const r of rx.accepted) {
        const b = JSON.parse(r.body) as { eventId: string; party: string };
        if (b.party === party && !firsts.includes(b.eventId)) firsts.push(b.eventId);
      }
      expect(firsts).toEqual(written.filter((x) => x.party === party).map((x) => x.id));
    }
    // Its own waits add up to 80 s: the default 30 s cut it short on a loaded machine (CI, 2026-11-26).
  }, 120_000);
});
