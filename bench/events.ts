// Watcher ingest (updates/s into the party index, events and checkpoint in Redis) against a plain
// POST /v2/updates/flats read of the same range (ratio; goal ≥ 0.5×). Part A of bench:events.
// REDIS_URL to use an existing Redis; else a private redis-server. N (default 20000) updates.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LedgerClient } from '@quill/canton/ledger';
import { bootstrapCoin, mint, startSandbox } from '@quill/sandbox';
import { Redis } from 'ioredis';
import { HistoryIndex, LedgerWatcher } from '../src/history/index.ts';
import { Lease } from '../src/redis/lease.ts';

const N = Number(process.env.N ?? 20_000);

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

async function main(): Promise<void> {
  let server: ChildProcess | undefined;
  let dir: string | undefined;
  let redisUrl = process.env.REDIS_URL;
  if (!redisUrl) {
    const port = await freePort();
    dir = mkdtempSync(join(tmpdir(), 'quill-bench-redis-'));
    server = spawn(
      'redis-server',
      ['--port', String(port), '--save', '', '--appendonly', 'no', '--dir', dir],
      {
        stdio: 'ignore',
      },
    );
    await new Promise((r) => setTimeout(r, 300));
    redisUrl = `redis://127.0.0.1:${port}`;
  }
  const sb = await startSandbox({ port: 0, scanPort: 0, host: '127.0.0.1', auth: 'none' });
  bootstrapCoin(sb.state);
  const party = sb.state.allocateLocalParty('bench').partyId;
  const begin = sb.state.log.end;
  for (let i = 0; i < N; i++) mint(sb.state, party, '1.0');
  const end = sb.state.log.end;
  const client = new LedgerClient({ baseUrl: sb.url, timeoutMs: 60_000 });
  const updateFormat = {
    includeTransactions: {
      eventFormat: { filtersByParty: { [party]: { cumulative: [] } }, verbose: false },
      transactionShape: 'TRANSACTION_SHAPE_LEDGER_EFFECTS' as const,
    },
  };

  let t = performance.now();
  let plain = 0;
  for await (const _ of client.iterateUpdates({
    beginExclusive: begin,
    endInclusive: end,
    pageSize: 200,
    updateFormat,
  }))
    plain++;
  const plainS = (performance.now() - t) / 1000;

  const redis = new Redis(redisUrl);
  const prefix = `bench-${randomBytes(4).toString('hex')}:`;
  const index = new HistoryIndex(redis, prefix);
  await redis.set(`${prefix}watch:checkpoint`, String(begin));
  const watcher = new LedgerWatcher({
    ledger: client,
    index,
    lease: new Lease(redis, `${prefix}watch:lease`, { ttlMs: 10_000 }),
    parties: async () => [party],
    pageSize: 200,
    idleTimeoutMs: 50,
  });
  t = performance.now();
  watcher.start();
  while (((await index.checkpoint()) ?? 0) < end) await new Promise((r) => setTimeout(r, 5));
  const watchS = (performance.now() - t) / 1000;
  await watcher.stop();
  const indexed = await index.count(party);

  const plainRate = plain / plainS;
  const watchRate = indexed / watchS;
  console.log(`updates: ${N} (plain read saw ${plain}, watcher indexed ${indexed})`);
  console.log(`plain flats read: ${plainRate.toFixed(0)} updates/s`);
  console.log(`watcher ingest:   ${watchRate.toFixed(0)} updates/s`);
  console.log(`ratio: ${(watchRate / plainRate).toFixed(2)}x (goal >= 0.5x)`);
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
  await sb.close();
  server?.kill();
  if (dir) rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
