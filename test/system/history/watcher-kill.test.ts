// The watcher SIGKILLed at random, with two processes competing for its lease: each transaction is indexed exactly
// once, each transaction.received written once, and the checkpoint never goes backwards (issue 14).
import { randomBytes } from 'node:crypto';
import { LedgerClient } from '@quill/canton/ledger';
import { bootstrapCoin, mint, type Sandbox, startSandbox } from '@quill/sandbox';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { HistoryIndex } from '../../../src/history/index.ts';
import { testRedis } from '../../support/records.ts';
import { watcherProcesses } from '../../support/watcher-processes.ts';

let sb: Sandbox;
let redis: Redis;
const watchers = watcherProcesses();

beforeAll(async () => {
  sb = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  bootstrapCoin(sb.state);
  redis = testRedis();
});
afterAll(async () => {
  watchers.killAll();
  redis.disconnect();
  await sb.close();
});

const watcherProcess = (env: Record<string, string>) => watchers.start(env);

it('10,000 updates, watchers SIGKILLed at random while two compete: exactly once, checkpoint monotonic', async () => {
  const alice = sb.state.allocateLocalParty(`alice-${randomBytes(3).toString('hex')}`).partyId;
  const prefix = `wk-${randomBytes(4).toString('hex')}:`;
  const index = new HistoryIndex(redis, prefix);
  const env = { REDIS_URL: inject('redisUrl'), LEDGER_URL: sb.url, WATCH_PREFIX: prefix, WATCH_PARTY: alice };
  const N = 10_000;
  for (let i = 0; i < N / 2; i++) mint(sb.state, alice, '1.0');
  const checkpoints: number[] = [];
  const kills: number[] = [];
  const sample = async () => checkpoints.push((await index.checkpoint()) ?? 0);
  for (let round = 0; round < 5; round++) {
    const pair = await Promise.all([watcherProcess(env), watcherProcess(env)]);
    const until = Date.now() + 100 + Math.random() * 300;
    while (Date.now() < until) {
      await sample();
      await new Promise((r) => setTimeout(r, 50));
    }
    kills.push((await index.checkpoint()) ?? 0);
    for (const c of pair) c.kill('SIGKILL'); // mid-page, whatever it was doing
    await Promise.all(
      pair.map((c) => new Promise((r) => (c.exitCode !== null ? r(null) : c.once('exit', r)))),
    );
    await sample();
    for (let i = 0; i < N / 10; i++) mint(sb.state, alice, '1.0');
  }
  console.log(`watchers killed at checkpoints ${kills.join(', ')}`);
  await watcherProcess(env);
  const end = await new LedgerClient({ baseUrl: sb.url }).ledgerEndOffset();
  const deadline = Date.now() + 60_000;
  while (((await index.checkpoint()) ?? 0) < end) {
    if (Date.now() > deadline)
      throw new Error(`the checkpoint stopped at ${await index.checkpoint()} of ${end}`);
    await sample();
    await new Promise((r) => setTimeout(r, 100));
  }
  await sample();
  expect(await index.count(alice)).toBe(N);
  for (let i = 1; i < checkpoints.length; i++)
    expect(checkpoints[i]).toBeGreaterThanOrEqual(checkpoints[i - 1]!);
  const received = (await redis.xrange(`${prefix}events`, '-', '+')).filter(
    ([, f]) => f[1] === 'transaction.received',
  );
  expect(received.length).toBe(N);
}, 120_000);
