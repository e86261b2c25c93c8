// The worker role: the submissions worker, the ledger watcher (one across workers, by lease), the leader's
// once-per-deployment work (recovery sweep, retention of payloads, records, the outbox and history), the event
// relay and webhook delivery.
import type { Worker } from 'bullmq';
import { Counter, Gauge } from 'prom-client';
import { AuditCheckpointer } from '../../audit/index.ts';
import { startDelivery, startRelay } from '../../events/index.ts';
import {
  HistoryIndex,
  LedgerWatcher,
  pruneHistory,
  type WatcherLedger,
  watcherMetrics,
} from '../../history/index.ts';
import { Lease, redisKeys } from '../../redis/index.ts';
import type { RawSigner } from '../../signing/index.ts';
import {
  closeWorker,
  dropRecords,
  expireOverdueApprovals,
  expireOverdueRounds,
  type JobData,
  type LedgerPort,
  outboxStats,
  requeueStranded,
  type SignaturePorts,
  startWorker,
  trimOutbox,
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
    /** Retention (payloads, records, outbox, history) runs this often (default: see retentionEveryMs). */
    retentionEveryMs?: number;
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

/**
 * How often the leader enforces retention: at least as often as the recovery sweep, and often enough for the
 * shortest window (a quarter of it, but not more than once a second), so what passed a window waits at most a
 * quarter of it more.
 */
export function retentionEveryMs(sweepEveryMs: number, windowsMs: readonly number[]): number {
  const shortest = Math.min(...windowsMs.filter((w) => w > 0), Number.POSITIVE_INFINITY);
  return Math.min(sweepEveryMs, Math.max(1000, shortest / 4));
}

/** The outbox's size and age, and what retention removed, in the process's metrics. */
function retentionMetrics(s: Shared, removed: Record<string, number>): void {
  const read = () => outboxStats(s.store);
  new Gauge({
    name: 'quill_outbox_entries',
    help: 'Entries in the submission outbox: trimmed up to the slowest of the relay and retention cursors, so a stopped relay shows as growth',
    registers: [s.registry],
    async collect() {
      try {
        this.set((await read()).length);
      } catch {
        // Redis unreachable: quill_redis_up says so.
      }
    },
  });
  new Gauge({
    name: 'quill_outbox_oldest_entry_age_seconds',
    help: 'Age of the oldest submission outbox entry (0: empty); beyond the retention windows a consumer is behind',
    registers: [s.registry],
    async collect() {
      try {
        const { oldestMs } = await read();
        this.set(oldestMs === undefined ? 0 : Math.max(0, (Date.now() - oldestMs) / 1000));
      } catch {
        // As above.
      }
    },
  });
  new Counter({
    name: 'quill_retention_removed_total',
    help: "What this process's retention sweeps removed, by what (payloads, records, outbox, history)",
    labelNames: ['what'],
    registers: [s.registry],
    collect() {
      this.reset();
      for (const [what, n] of Object.entries(removed)) this.inc({ what }, n);
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
      // And submissions held past their approval deadline (APPROVAL_EXPIRED), so that a read of one shows it.
      const lapsed = await expireOverdueApprovals(store, Date.now());
      if (lapsed > 0) log('info', `expired ${lapsed} submissions past their approval deadline`);
    } catch (err) {
      log('warn', `sweep: ${(err as Error).message}`);
    } finally {
      sweeping = false;
    }
  };
  const timer = setInterval(sweep, every);
  timer.unref();

  // Retention, by the leader too: payloads, then records (each following the outbox with its own cursor), then the
  // outbox up to the slowest cursor, then the watcher's history. Every step is safe to run twice.
  const windows = config.retention;
  const removed = { payloads: 0, records: 0, outbox: 0, history: 0 };
  retentionMetrics(s, removed);
  const historyOn = Boolean(o.watch && config.watcher.enabled && windows.historyMs > 0);
  let retaining = false;
  const retain = async () => {
    if (retaining) return;
    retaining = true;
    try {
      if (!leader.held && !(await leader.acquire().catch(() => false))) return;
      const now = Date.now();
      removed.payloads += await store.dropPayloads(now - config.payloadRetentionMs);
      if (windows.recordsMs > 0) removed.records += await dropRecords(store, now - windows.recordsMs);
      removed.outbox += await trimOutbox(store, { records: windows.recordsMs > 0 });
      if (historyOn && o.watch) {
        const parties = await o.watch.parties();
        removed.history += await pruneHistory(s.redis, config.redisPrefix, parties, now - windows.historyMs);
      }
    } catch (err) {
      log('warn', `retention: ${(err as Error).message}`);
    } finally {
      retaining = false;
    }
  };
  const retentionTimer = setInterval(
    retain,
    o.timing?.retentionEveryMs ??
      retentionEveryMs(every, [
        config.payloadRetentionMs,
        windows.recordsMs,
        ...(historyOn ? [windows.historyMs] : []),
      ]),
  );
  retentionTimer.unref();

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
    // Event retention every 5 s, so that each trim is small (one that removed a minute of events at 200
    // submissions/s held Redis 5–18 ms, and every accept waiting behind it felt that).
    trimEveryMs: retentionEveryMs(5_000, [config.events.retentionMs]),
    log,
  });
  const delivery = startDelivery(s.deliveries, {
    connection: s.connect(),
    reader: s.connect(),
    retentionMs: windows.webhooksMs,
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
    clearInterval(retentionTimer);
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
