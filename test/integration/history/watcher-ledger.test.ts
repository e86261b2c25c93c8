// The ledger watcher against a participant's stricter behaviour (issue 26): the JSON server's request timeout
// (bug 4: steady traffic must not starve it) and a ledger that moves backwards (bug 6: ledger.reset, never an old
// update announced again).
import { randomBytes } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import { bootstrapCoin, mint, type Sandbox, startSandbox } from '@quill/sandbox';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HistoryIndex, LedgerWatcher } from '../../../src/history/index.ts';
import type { Log } from '../../../src/log.ts';
import { Lease } from '../../../src/redis/lease.ts';
import { eventsOfType, until } from '../../support/events.ts';
import { testRedis } from '../../support/records.ts';

let redis: Redis;
const sandboxes: Sandbox[] = [];

beforeAll(() => {
  redis = testRedis();
});
afterAll(async () => {
  redis.disconnect();
  await Promise.all(sandboxes.map((s) => s.close()));
});

async function sandbox(requestTimeoutMs?: number): Promise<{ sb: Sandbox; client: LedgerClient }> {
  const sb = await startSandbox({
    port: 0,
    scanPort: 0,
    host: '127.0.0.1',
    auth: 'none',
    ...(requestTimeoutMs ? { options: { requestTimeoutMs } } : {}),
  });
  sandboxes.push(sb);
  bootstrapCoin(sb.state);
  return { sb, client: new LedgerClient({ baseUrl: sb.url, timeoutMs: 10_000 }) };
}

function watcher(
  o: { client: LedgerClient; index: HistoryIndex; prefix: string; parties: string[] },
  tuning: { pageSize: number; idleTimeoutMs: number },
  log: Log = () => {},
) {
  return new LedgerWatcher({
    ledger: o.client,
    index: o.index,
    lease: new Lease(redis, `${o.prefix}watch:lease`, { ttlMs: 600 }),
    parties: async () => o.parties,
    ...tuning,
    backoff: { initialMs: 20, maxMs: 200 },
    log,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('ledger watcher against the JSON server request timeout (bug 4)', () => {
  it('keeps up with steady traffic when every request is cut at 1 s (503 text/plain)', async () => {
    // The review's case scaled down: 20 s timeout, limit 200 and a 5 s idle timeout starve at 0.2–10 updates/s;
    // here a 1 s timeout, limit 200 and a 500 ms idle timeout with an update every 120 ms.
    const { sb, client } = await sandbox(1000);
    const prefix = `wt-${randomBytes(4).toString('hex')}:`;
    const alice = sb.state.allocateLocalParty(`alice-${randomBytes(3).toString('hex')}`).partyId;
    const index = new HistoryIndex(redis, prefix);
    const w = watcher({ client, index, prefix, parties: [alice] }, { pageSize: 200, idleTimeoutMs: 500 });
    w.start();
    let minted = 0;
    const traffic = setInterval(() => {
      mint(sb.state, alice, '1.0');
      minted++;
    }, 120);
    try {
      await sleep(1500);
      const lagging: number[] = [];
      // For 3 s of traffic, what was minted 700 ms earlier must be indexed by now.
      for (let i = 0; i < 6; i++) {
        const before = minted;
        await sleep(700);
        const count = await index.count(alice);
        if (count < before) lagging.push(before - count);
      }
      expect(lagging, 'updates still waiting after 700 ms, per sample').toEqual([]);
    } finally {
      clearInterval(traffic);
    }
    await until(async () => (await index.count(alice)) === minted, 10_000);
    await w.stop();
    expect(await index.checkpoint()).toBe(sb.state.log.end);
  }, 30_000);
});

describe('a ledger that moves backwards (bug 6)', () => {
  it('warns once, writes one ledger.reset, follows the new ledger and never announces an old update again', async () => {
    const prefix = `wr-${randomBytes(4).toString('hex')}:`;
    const index = new HistoryIndex(redis, prefix);
    const hint = `alice-${randomBytes(3).toString('hex')}`;
    const tuning = { pageSize: 200, idleTimeoutMs: 50 };
    // The first ledger: five transactions for alice, indexed.
    const first = await sandbox();
    const alice = first.sb.state.allocateLocalParty(hint).partyId;
    for (let i = 0; i < 5; i++) mint(first.sb.state, alice, '1.0');
    let w = watcher({ client: first.client, index, prefix, parties: [alice] }, tuning);
    w.start();
    await until(async () => (await index.count(alice)) === 5, 10_000);
    await w.stop();
    const before = (await index.checkpoint())!;
    expect(before).toBe(first.sb.state.log.end);
    // The participant comes back with a shorter ledger (the same party id: same participant namespace).
    const second = await sandbox();
    expect(second.sb.state.allocateLocalParty(hint).partyId).toBe(alice);
    mint(second.sb.state, alice, '2.0');
    const end = second.sb.state.log.end;
    expect(end).toBeLessThan(before);
    const warnings: string[] = [];
    w = watcher({ client: second.client, index, prefix, parties: [alice] }, tuning, (level, msg) => {
      if (level === 'warn') warnings.push(msg);
    });
    w.start();
    await until(async () => (await index.count(alice)) === 6, 10_000);
    mint(second.sb.state, alice, '3.0');
    await until(async () => (await index.count(alice)) === 7, 10_000);
    await sleep(200); // more steps: no second warning, no second event
    await w.stop();
    expect(warnings.filter((m) => m.includes('before the checkpoint'))).toHaveLength(1);
    const resets = await eventsOfType(redis, prefix, 'ledger.reset');
    expect(resets).toHaveLength(1);
    expect(resets[0]!.party).toBe('');
    expect(JSON.parse(resets[0]!.body!)).toEqual({ checkpoint: before, ledgerEnd: end });
    expect(await index.checkpoint()).toBe(second.sb.state.log.end);
    // Each transaction announced once: the five of the first ledger, the two of the second.
    const received = await eventsOfType(redis, prefix, 'transaction.received');
    const ids = received.map((e) => JSON.parse(e.body!).updateId as string);
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(7);
  }, 30_000);
});
