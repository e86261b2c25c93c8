// What every role of a wallet process shares: its Redis connections, the stores over them, the submissions queue,
// the event log and webhooks, and the process's metrics; closed last.
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { AuditLog } from '../../audit/index.ts';
import type { Config } from '../../config/index.ts';
import { Deliveries, EventLog, eventMetrics, WebhookRegistry } from '../../events/index.ts';
import { HistoryIndex } from '../../history/index.ts';
import { type Log, outageReporter } from '../../log.ts';
import { metricsRegistry, type Registry } from '../../metrics.ts';
import { redisConnection, redisMetrics } from '../../redis/index.ts';
import {
  createMetrics,
  createQueue,
  type ExecutorConfig,
  type JobData,
  type LedgerPort,
  type PipelineMetrics,
  SubmissionStore,
  watchBacklog,
} from '../../submissions/index.ts';

export interface Shared {
  config: Config;
  log: Log;
  /** The stores' connection (commands, scripts). */
  redis: Redis;
  /** BullMQ's connection. */
  bull: Redis;
  /** A new connection of the deployment's topology (each blocking reader needs its own). */
  connect(options?: { maxRetriesPerRequest?: number }): Redis;
  /** Redis going down and coming back, said once per REDIS_DOWN_WARN_SECONDS for all connections together. */
  outage: ReturnType<typeof outageReporter>;
  store: SubmissionStore;
  history: HistoryIndex;
  audit: AuditLog;
  queue: Queue<JobData>;
  registry: Registry;
  metrics: PipelineMetrics;
  events: EventLog;
  hooks: WebhookRegistry;
  deliveries: Deliveries;
  close(): Promise<void>;
  /** Cuts the shared connections at once (what `close` ends with; a stop past its time calls it alone). */
  disconnect(): void;
}

/** host:port of a Redis URL, never its password. */
function redisHost(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || '6379'}`;
  } catch {
    return 'REDIS_URL';
  }
}

export function startShared(config: Config, log: Log): Shared {
  const connect = (options: { maxRetriesPerRequest?: number; enableAutoPipelining?: boolean } = {}) =>
    redisConnection(config.redisTarget, options);
  // The store's connection sends the commands of one event-loop turn in one write: under load, many requests'
  // reads and scripts share a system call instead of one each. (Not BullMQ's: its worker blocks on a copy of it.)
  const redis = connect({ maxRetriesPerRequest: 20, enableAutoPipelining: true });
  const outage = outageReporter(log, `Redis at ${redisHost(config.redisUrl)}`, config.redisDownWarnMs);
  redis.on('error', (err) => outage.failed('store', err));
  redis.on('ready', () => outage.recovered());
  const bull = connect();
  const store = new SubmissionStore(redis, config.redisPrefix);
  const queue = createQueue(bull, config.queue.name, config.redisPrefix);
  const registry = metricsRegistry();
  watchBacklog(registry, {
    statuses: () => store.countByStatus(),
    jobs: () => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children'),
    oldest: (status, limit) => store.oldestInStatus(status, limit),
    oldestJob: async () => {
      // The wait list's oldest end; a retried job was ready again when its delay ended or it last ran.
      const [job] = await queue.getJobs(['waiting'], 0, 0, true);
      return job ? Math.max(job.timestamp + (job.delay ?? 0), job.processedOn ?? 0) : undefined;
    },
  });
  redisMetrics(registry, redis);
  const events = new EventLog(redis, config.redisPrefix, {
    maxAgeMs: config.events.retentionMs,
    maxCount: config.events.retentionMax,
  });
  const hooks = new WebhookRegistry(redis, config.redisPrefix);
  const deliveries = new Deliveries(redis, bull, config.redisPrefix, events, hooks, config.webhooks, log);
  eventMetrics(registry, { redis, prefix: config.redisPrefix, deliveries, hooks });
  return {
    config,
    log,
    redis,
    bull,
    connect,
    outage,
    store,
    history: new HistoryIndex(redis, config.redisPrefix),
    audit: new AuditLog(redis, config.redisPrefix),
    queue,
    registry,
    metrics: createMetrics(registry),
    events,
    hooks,
    deliveries,
    async close() {
      await queue.close().catch(() => {});
      await this.deliveries.close();
      this.disconnect();
    },
    disconnect() {
      redis.disconnect();
      bull.disconnect();
    },
  };
}

/** The executor's settings from the configuration: the worker's steps and an admin's search and expiry share them. */
export function executorConfig(config: Config): ExecutorConfig {
  return {
    maxAttempts: config.queue.maxAttempts,
    baseDelayMs: config.queue.baseDelayMs,
    maxDelayMs: config.queue.maxDelayMs,
    dedup: config.dedup,
    ledgerTimeoutMs: config.ledgerTimeoutMs,
    ...config.commitWindow,
  };
}

/** The ledger port that looks in the watcher's index (Redis) before searching the ledger for a transaction. */
export function indexedLedger(s: Shared, ledger: LedgerPort): LedgerPort {
  return { ...ledger, indexed: async (hash) => (await s.history.byHash(hash))?.transaction };
}
