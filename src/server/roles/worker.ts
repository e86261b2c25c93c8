// The worker role: the submissions worker, the ledger watcher (one across workers, by lease), the leader's
// once-per-deployment work (recovery sweep, payload retention), the event relay and webhook delivery.
import type { Worker } from 'bullmq';
import { Counter, Gauge } from 'prom-client';
import { AuditCheckpointer } from '../../audit/index.ts';
import { startDelivery, startRelay } from '../../events/index.ts';
import { HistoryIndex, LedgerWatcher, type WatcherLedger, watcherMetrics } from '../../history/index.ts';
import { Lease, redisKeys } from '../../redis/index.ts';
import type { RawSigner } from '../../signing/index.ts';
import {
  closeWorker,
  expireOverdueRounds,
  type JobData,
  type LedgerPort,
  requeueStranded,
  type SignaturePorts,
  startWorker,
} from '../../submissions/index.ts';
import { executorConfig, indexedLedger, type Shared } from './shared.ts';

export interface WorkerRoleOptions {
  ledger: LedgerPort;
  /** The ledger watcher's reads and the parties it follows (absent: no watcher). */
  watch?: { ledger: WatcherLedger; parties: () => Promise<string[]> };
  /** Signing sets and Quill's keys: the worker re-signs after a key rotation (absent: stored signatures only). */
  signatures?: SignaturePorts;
  /** The key ring holding AUDIT_KEY (absent: no audit checkpoints). */
  auditSigner?: RawSigner;
  /** Test overrides of the queue's and the sweeps' timing. */
  timing?: {
    lockDurationMs?: number;
    stalledIntervalMs?: number;
    sweepEveryMs?: number;
    /** Webhook chains without a job are looked for this often (default 5 s). */
    webhookSweepEveryMs?: number;
    /** Audit checkpoints are considered this often (default AUDIT_CHECKPOINT_SECONDS). */
    checkpointEveryMs?: number;
  };
}

export interface WorkerRole {
  worker: Worker<JobData>;
  watcher?: LedgerWatcher;
  /** The leader lease of the recovery sweep (one holder across workers). */
  leader: Lease;
  /** Takes the audit chain's signed checkpoints while this worker leads (AUDIT_KEY). */
  checkpointer?: AuditCheckpointer;
  close(): Promise<void>;
}

/** The checkpointer's last checkpoint and failures in the process's metrics. */
function checkpointMetrics(s: Shared, c: AuditCheckpointer): void {
  new Gauge({
    name: 'quill_audit_checkpoint_timestamp_seconds',
    help: 'When the newest audit checkpoint written by (or found at start in the file of) this process was taken',
    registers: [s.registry],
    collect() {
      if (c.last) this.set(Date.parse(c.last.at) / 1000);
    },
  });
  new Gauge({
    name: 'quill_audit_checkpoint_count',
    help: 'Entries of the audit chain the newest audit checkpoint covers',
    registers: [s.registry],
    collect() {
      if (c.last) this.set(c.last.count);
    },
  });
  new Counter({
    name: 'quill_audit_checkpoint_failures_total',
    help: 'Audit checkpoint failures by where (sign, file, webhook; chain: the chain had fewer entries than the last checkpoint)',
    labelNames: ['where'],
    registers: [s.registry],
    collect() {
      this.reset();
      for (const [where, n] of Object.entries(c.failures)) this.inc({ where }, n);
    },
  });
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
      ledger: indexed ? indexedLedger(s, o.ledger) : o.ledger,
      metrics: s.metrics,
      config: executorConfig(config),
      ...(o.signatures ? { signatures: o.signatures } : {}),
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
    watcherMetrics(s.registry, w);
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
      // Signature rounds past their deadline end here too when nobody reads them (SIGNATURES_MISSING).
      const ended = await expireOverdueRounds(store, Date.now());
      if (ended > 0) log('info', `expired ${ended} signature rounds past their deadline`);
      await store.dropPayloads(Date.now() - config.payloadRetentionMs);
    } catch (err) {
      log('warn', `sweep: ${(err as Error).message}`);
    } finally {
      sweeping = false;
    }
  };
  const timer = setInterval(sweep, every);
  timer.unref();

  // Audit checkpoints (AUDIT_KEY): signed by the leader only, and only when the chain moved since the last one.
  const audit = config.auditCheckpoints;
  const checkpointer =
    audit.key && audit.file && o.auditSigner
      ? new AuditCheckpointer({
          audit: s.audit,
          signer: o.auditSigner,
          key: audit.key,
          file: audit.file,
          ...(audit.webhookUrl
            ? { webhookUrl: audit.webhookUrl, webhook: { timeoutMs: config.webhooks.timeoutMs } }
            : {}),
          log,
        })
      : undefined;
  let checkpointTimer: NodeJS.Timeout | undefined;
  if (checkpointer) {
    checkpointMetrics(s, checkpointer);
    const take = async () => {
      try {
        if (!leader.held && !(await leader.acquire().catch(() => false))) return;
        const c = await checkpointer.checkpoint();
        if (c) log('debug', `audit checkpoint: ${c.count} entries, head ${c.head}`);
      } catch (err) {
        log('error', `audit checkpoint failed: ${(err as Error).message}`);
      }
    };
    checkpointTimer = setInterval(take, o.timing?.checkpointEveryMs ?? audit.everyMs);
    checkpointTimer.unref();
  }

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
    clearInterval(checkpointTimer);
    // The last checkpoint of a clean stop, while this worker still leads (API requests have ended by now).
    await checkpointer?.close({ final: leader.held });
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
    ...(checkpointer ? { checkpointer } : {}),
    async close() {
      for (const c of closers) await c().catch((err) => log('warn', `shutdown: ${(err as Error).message}`));
    },
  };
}
