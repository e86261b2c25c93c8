// A ledger watcher alone in a process, for the SIGKILL test (test/events/watcher-kill.test.ts): it follows
// WATCH_PARTY on the ledger at LEDGER_URL with the index under WATCH_PREFIX until it is killed.

import { LedgerClient } from '@quill/canton/ledger';
import { Redis } from 'ioredis';
import { HistoryIndex, LedgerWatcher } from '../../../src/history/index.ts';
import { Lease } from '../../../src/redis/lease.ts';

const env = process.env as Record<string, string>;
const redis = new Redis(env.REDIS_URL as string);
const prefix = env.WATCH_PREFIX as string;
const watcher = new LedgerWatcher({
  ledger: new LedgerClient({ baseUrl: env.LEDGER_URL as string, timeoutMs: 10_000 }),
  index: new HistoryIndex(redis, prefix),
  lease: new Lease(redis, `${prefix}watch:lease`, { ttlMs: 500 }),
  parties: async () => [env.WATCH_PARTY as string],
  pageSize: 50,
  idleTimeoutMs: 50,
  backoff: { initialMs: 20, maxMs: 200 },
});
watcher.start();
process.stdout.write('started\n');
