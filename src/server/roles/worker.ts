// The worker role: the submissions worker, the ledger watcher (one across workers, by lease), the leader's
// once-per-deployment work (recovery sweep, payload retention), the event relay and webhook delivery.
import type { Worker } from 'bullmq';
import { startDelivery, startRelay } from '../../events/index.ts';
import { HistoryIndex, LedgerWatcher, type WatcherLedger } from '../../history/index.ts';
import { Lease, redisKeys } from '../../redis/index.ts';
import {
  closeWorker,
  type JobData,
  type LedgerPort,
  requeueStranded,
  startWorker,
} from '../../submissions/index.ts';
import type { Shared } from './shared.ts';

export interface WorkerRoleOptions {
  ledger: LedgerPort;
  /** The ledger watcher's reads and the parties it follows (absent: no watcher). */
  watch?: { ledger: WatcherLedger; parties: () => Promise<string[]> };
  /** Test overrides of the queue's and the sweeps' timing. */
  timing?: {
    lockDurationMs?: number;
    stalledIntervalMs?: number;
    sweepEveryMs?: number;
    /** Webhook chains without a job are looked for this often (default 5 s). */
    webhookSweepEveryMs?: number;
  };
}

export interface WorkerRole {
  worker: Worker<JobData>;
  watcher?: LedgerWatcher;
  /** The leader lease of the recovery sweep (one holder across workers). */
  leader: Lease;
  close(): Promise<void>;
}

export function startWorkerRole(s: Shared, o: WorkerRoleOptions): WorkerRole {
  const { config, store, log } = s;
  const keys = redisKeys(config.redisPrefix);
  const closers: (() => Promise<void>)[] = [];
  const workerConn = s.connect();
  const lockMs = o.timing?.lockDurationMs ?? config.queue.lockDurationMs;
  const stalledMs = o.timing?.stalledIntervalMs ?? config.queue.stalledIntervalMs;
  // Reconciliation looks in the watcher's index first (no ledger scan when the watcher has seen it).
  const indexed = o.watch && config.watcher.enabled;
  const worker = startWorker(
    {
      store,
      ledger: indexed
        ? { ...o.ledger, indexed: async (hash) => (await s.history.byHash(hash))?.transaction }
        : o.ledger,
      metrics: s.metrics,
      config: {
        maxAttempts: config.queue.maxAttempts,
        baseDelayMs: config.queue.baseDelayMs,
        maxDelayMs: config.queue.maxDelayMs,
        dedup: config.dedup,
        ledgerTimeoutMs: config.ledgerTimeoutMs,
        ...config.commitWindow,
      },
    },
    {
      connection: workerConn,
      queueName: config.queue.name,
      prefix: config.redisPrefix,
      concurrency: config.queue.concurrency,
      rateLimit: config.queue.rateLimit,
      ...(lockMs ? { lockDurationMs: lockMs } : {}),
      ...(stalledMs ? { stalledIntervalMs: stalledMs } : {}),
      log,
      onError: (err) => s.outage.failed('worker', err),
    },
  );

  let watcher: LedgerWatcher | undefined;
  if (o.watch && config.watcher.enabled) {
    const conn = s.connect({ maxRetriesPerRequest: 20 });
    const w = new LedgerWatcher({
      ledger: o.watch.ledger,
      parties: o.watch.parties,
      index: new HistoryIndex(conn, config.redisPrefix),
      lease: new Lease(conn, keys.watcherLease, { ttlMs: config.watcher.leaseMs }),
      pageSize: config.watcher.pageSize,
      idleTimeoutMs: config.watcher.idleTimeoutMs,
      log,
    });
    w.start();
    watcher = w;
    closers.push(async () => {
      await w.stop();
      conn.disconnect();
    });
  }

  // Once-per-deployment work (the recovery sweep, payload retention) runs on the worker holding the leader lease;
  // another worker takes it over LEADER_LEASE_MS after the holder dies. (Both steps are idempotent, so a moment
  // with two sweepers would cost work, never correctness.)
  const every = o.timing?.sweepEveryMs ?? config.queue.sweepIntervalMs;
  const leader = new Lease(s.redis, keys.leaderLease, { ttlMs: config.queue.leaderLeaseMs });
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    try {
      if (!leader.held && !(await leader.acquire().catch(() => false))) return;
      const n = await requeueStranded(store, s.queue, every);
      if (n > 0) log('info', `requeued ${n} stranded submissions`);
      await store.dropPayloads(Date.now() - config.payloadRetentionMs);
    } catch (err) {
      log('warn', `sweep: ${(err as Error).message}`);
    } finally {
      sweeping = false;
    }
  };
  const timer = setInterval(sweep, every);
  timer.unref();

  const relay = startRelay({
    redis: s.redis,
    reader: s.connect(),
    prefix: config.redisPrefix,
    events: s.events,
    log,
  });
  const delivery = startDelivery(s.deliveries, {
    connection: s.connect(),
    reader: s.connect(),
    onError: (err) => s.outage.failed('webhook worker', err),
    ...(o.timing?.webhookSweepEveryMs ? { sweepEveryMs: o.timing.webhookSweepEveryMs } : {}),
  });
  closers.push(async () => {
    await leader.release();
    await relay.stop();
    await delivery.stop();
  });
  closers.push(async () => {
    clearInterval(timer);
    await closeWorker(worker, config.shutdownTimeoutMs);
    workerConn.disconnect();
  });
  return {
    worker,
    ...(watcher ? { watcher } : {}),
    leader,
    async close() {
      for (const c of closers) await c().catch((err) => log('warn', `shutdown: ${(err as Error).message}`));
    },
  };
}
