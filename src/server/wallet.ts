// Assembles a running wallet: Redis store, queue, API server and/or worker, with graceful shutdown.
import type { AddressInfo } from 'node:net';
import { serve } from '@hono/node-server';
import type { Queue, Worker } from 'bullmq';
import { Hono } from 'hono';
import { Cluster, type Redis } from 'ioredis';
import { Counter, Gauge } from 'prom-client';
import {
  type AppDeps,
  acceptLimiter,
  createApp,
  type LedgerReads,
  type PartyAdmin,
  probeRoutes,
  type Verifier,
} from '../api/index.ts';
import type { Config } from '../config.ts';
import { mountConsole, SessionStore } from '../console/index.tsx';
import {
  Deliveries,
  EventLog,
  HistoryIndex,
  LedgerWatcher,
  startDelivery,
  startRelay,
  type WatcherLedger,
  WebhookRegistry,
} from '../events/index.ts';
import { Lease } from '../lease.ts';
import { type Log, noLog, outageReporter } from '../log.ts';
import type { PolicyDocument } from '../policy/index.ts';
import type { Keyring, Signer } from '../signing/index.ts';
import {
  type AcceptPorts,
  closeWorker,
  createMetrics,
  createQueue,
  enqueue,
  type JobData,
  type LedgerPort,
  OutcomeWaiter,
  type PipelineMetrics,
  PolicyStore,
  redisConnection,
  requeueStranded,
  StoreError,
  SubmissionRefused,
  SubmissionStore,
  startWorker,
  storeVelocity,
  watchBacklog,
} from '../submissions/index.ts';
import { acceptPorts, keyAdmin, type PartyLookup } from './adapters.ts';
import { InspectPool } from './inspect/pool.ts';

export type Role = 'api' | 'worker' | 'all';

export interface WalletOptions {
  config: Config;
  role: Role;
  ledger: LedgerPort;
  /** API role: how callers are authenticated ('none' = --insecure-no-auth). */
  auth?: Verifier | 'none';
  /** API role: the key store, the signer over it and the party registry. */
  keys?: Keyring;
  signer?: Signer;
  parties?: PartyLookup & Partial<PartyAdmin>;
  /** Overrides the accept ports (tests of policy in isolation). */
  ports?: AcceptPorts;
  worker?: {
    lockDurationMs?: number;
    stalledIntervalMs?: number;
    sweepEveryMs?: number;
    /** Webhook chains without a job are looked for this often (default 5 s). */
    webhookSweepEveryMs?: number;
  };
  /** Worker role: the ledger watcher's reads and the parties it follows (absent: no watcher). */
  watch?: { ledger: WatcherLedger; parties: () => Promise<string[]> };
  /** API role: ledger point reads as a party (GET /wallet/v1/ledger/…). */
  reads?: LedgerReads;
  log?: Log;
}

export interface RunningWallet {
  url?: string;
  port?: number;
  store: SubmissionStore;
  queue: Queue<JobData>;
  metrics: PipelineMetrics;
  worker?: Worker<JobData>;
  /** The party history index (read by the API, written by the worker's watcher). */
  history: HistoryIndex;
  watcher?: LedgerWatcher;
  /** Worker role: the leader lease of the recovery sweep (one holder across workers). */
  leader?: Lease;
  close(): Promise<void>;
}

type Fetch = (req: Request) => Response | Promise<Response>;

async function listen(
  fetch: Fetch,
  config: Config,
): Promise<{ port: number; url: string; close(): Promise<void> }> {
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch, port: config.port, hostname: config.host }, () => resolve(s));
    s.once('error', reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: `http://${config.host === '0.0.0.0' ? '127.0.0.1' : config.host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        (server as unknown as { closeIdleConnections?: () => void }).closeIdleConnections?.();
        setTimeout(
          () => (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.(),
          2000,
        );
      }),
  };
}

/** How often each connection became ready: a new generation is a new server session (reconnect, failover). */
const generations = new WeakMap<Redis, { n: number }>();
function generation(conn: Redis): { n: number } {
  let g = generations.get(conn);
  if (!g) {
    const fresh = { n: 0 };
    conn.on('ready', () => {
      fresh.n++;
    });
    generations.set(conn, fresh);
    g = fresh;
  }
  return g;
}

/**
 * WAIT on the store's own connection (WAIT counts that connection's writes on that server): the submission just
 * stored is on `replicas` replicas, or the caller gets 503 and retries with the same Idempotency-Key. WAIT after a
 * reconnect would ask the new master about writes it never saw (and answer at once, wrongly): a connection that
 * changed, or was re-established, between the mark and the WAIT's answer is a 503 too.
 */
export function replication(redis: Redis, prefix: string, ack: { replicas: number; timeoutMs: number }) {
  const unconfirmed = (why: string, cause?: unknown) =>
    new StoreError('UNAVAILABLE', why, cause === undefined ? undefined : { cause });
  return {
    async mark(): Promise<unknown> {
      const conn = await writer(redis, prefix);
      return { conn, n: generation(conn).n };
    },
    async confirm(mark: unknown): Promise<void> {
      const m = mark as { conn: Redis; n: number };
      const same = () => generation(m.conn).n === m.n;
      let acked: number;
      try {
        const conn = await writer(redis, prefix);
        if (conn !== m.conn || !same())
          throw unconfirmed('Redis failed over while the submission was stored');
        acked = Number(await conn.wait(ack.replicas, ack.timeoutMs));
      } catch (err) {
        if (err instanceof StoreError) throw err;
        throw unconfirmed('Redis did not confirm the write', err);
      }
      if (!same()) throw unconfirmed('Redis failed over while the submission was stored');
      if (acked < ack.replicas)
        throw unconfirmed(
          `the submission reached ${acked} of the ${ack.replicas} Redis replicas required (REDIS_MIN_REPLICAS_ACK) within ${ack.timeoutMs} ms`,
        );
    },
  };
}

/**
 * The connection that made the store's writes: the client itself, or on a Cluster the pool's connection to the
 * master of the deployment's one slot (WAIT has no key, so the Cluster client would send it to any node).
 */
async function writer(redis: Redis, prefix: string): Promise<Redis> {
  const cluster: unknown = redis;
  if (!(cluster instanceof Cluster)) return redis;
  const slot = Number(await cluster.cluster('KEYSLOT', prefix));
  const owner = cluster.slots[slot]?.[0];
  const node = cluster.nodes('master').find((n) => `${n.options.host}:${n.options.port}` === owner);
  if (!node) throw new Error(`no master known for slot ${slot}`);
  return node;
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

const OUTCOME_TYPES = ['submission.committed', 'submission.rejected', 'submission.expired'] as const;

/** Final outcomes since a time, read from the event log (its ids are times), at most 20,000. */
async function recentOutcomes(log: EventLog, sinceMs: number, party?: string) {
  const out: { type: string; at: string }[] = [];
  let after = `${sinceMs}-0`;
  for (let i = 0; i < 20; i++) {
    const page = await log.read(after, { types: OUTCOME_TYPES, ...(party ? { party } : {}) }, 1000);
    for (const e of page.events) out.push({ type: e.type, at: e.at });
    if (page.next === after) break;
    after = page.next;
  }
  return out;
}

export async function startWallet(o: WalletOptions): Promise<RunningWallet> {
  const { config } = o;
  const log = o.log ?? noLog;
  const redis: Redis = redisConnection(config.redisTarget, { maxRetriesPerRequest: 20 });
  // Redis down: one warning per REDIS_DOWN_WARN_SECONDS from every connection together, and one line when it is back.
  const outage = outageReporter(log, `Redis at ${redisHost(config.redisUrl)}`, config.redisDownWarnMs);
  redis.on('error', (err) => outage.failed('store', err));
  redis.on('ready', () => outage.recovered());
  const bull: Redis = redisConnection(config.redisTarget);
  const store = new SubmissionStore(redis, config.redisPrefix);
  const history = new HistoryIndex(redis, store.prefix);
  const queue = createQueue(bull, config.queue.name, config.redisPrefix);
  const metrics = createMetrics();
  watchBacklog(metrics.registry, {
    statuses: () => store.countByStatus(),
    jobs: () => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'waiting-children'),
  });
  const closers: (() => Promise<void>)[] = [];
  // events, stream and webhooks (issue 14 part B)
  const eventLog = new EventLog(redis, config.redisPrefix, {
    maxAgeMs: config.events.retentionMs,
    maxCount: config.events.retentionMax,
  });
  const hooks = new WebhookRegistry(redis, config.redisPrefix);
  const deliveries = new Deliveries(redis, bull, config.redisPrefix, eventLog, hooks, config.webhooks, log);
  const closing = new AbortController();
  let url: string | undefined;
  let port: number | undefined;
  let worker: Worker<JobData> | undefined;
  let watcherRef: LedgerWatcher | undefined;
  let leaderRef: Lease | undefined;

  // Closed last, after the HTTP server has stopped taking requests.
  const { threads, maxQueued, threadMemoryMb } = config.inspect;
  const inspectPool =
    o.role !== 'worker' && !o.ports && threads > 0
      ? new InspectPool({ threads, maxQueued, threadMemoryMb, log })
      : undefined;

  if (inspectPool) {
    const pool = inspectPool;
    new Gauge({
      name: 'quill_inspect_pending',
      help: 'Large prepared transactions waiting for or being decoded on an inspection thread',
      registers: [metrics.registry],
      collect() {
        this.set(pool.pending);
      },
    });
    new Counter({
      name: 'quill_inspect_offloaded_total',
      help: 'Prepared transactions decoded and hashed on an inspection thread instead of the request thread',
      registers: [metrics.registry],
      collect() {
        this.reset();
        this.inc(pool.answered);
      },
    });
  }

  if (o.role !== 'worker') {
    const ports =
      o.ports ??
      (o.keys && o.signer && o.parties
        ? acceptPorts({
            keys: o.keys,
            signer: o.signer,
            parties: o.parties,
            ...(inspectPool
              ? { inspectPool: { pool: inspectPool, offloadChars: config.inspect.offloadBytes } }
              : {}),
          })
        : undefined);
    if (!ports) throw new Error('the api role needs the key store, a signer and the party registry');
    // A key found disabled (API, or `quill keys disable` seen at signing) also stops its queued submissions.
    const signAndNoteDisabled: typeof ports.sign = async (fp, hash) => {
      try {
        return await ports.sign(fp, hash);
      } catch (err) {
        if (err instanceof SubmissionRefused && err.code === 'KEY_DISABLED') await store.markKeyDisabled(fp);
        throw err;
      }
    };
    const keys = o.keys ? keyAdmin(o.keys) : undefined;
    const policies = new PolicyStore(redis, config.redisPrefix);
    if (config.policy) await policies.seed(config.policy as PolicyDocument, 'POLICY_FILE');
    const waiter = new OutcomeWaiter(redisConnection(config.redisTarget), store);
    const deps: AppDeps = {
      store,
      waiter,
      metrics,
      redis,
      log,
      auth: o.auth ?? 'none',
      ledgerReady: async () => {
        await o.ledger.ledgerEnd();
      },
      accept: {
        store,
        ports: { ...ports, sign: signAndNoteDisabled },
        enqueue: (rec) => enqueue(queue, rec),
        allowedSynchronizers: config.allowedSynchronizers,
        defaultUserId: config.ledgerUserId ?? '',
        dedupMaxSeconds: config.dedup.maxSeconds,
        preparationToleranceMs: config.commitWindow.preparationToleranceMs,
        metrics,
        log,
        ...(config.redisReplicasAck.replicas > 0
          ? { durable: replication(redis, store.prefix, config.redisReplicasAck) }
          : {}),
        // Approval policy (issue 15): the current version in Redis (PUT /wallet/v1/policy), seeded from POLICY_FILE.
        policy: {
          current: async () => {
            const cur = await policies.current();
            return cur ? { document: cur.document, version: cur.version } : undefined;
          },
          velocity: storeVelocity(store),
        },
      },
      ...(keys
        ? {
            keys: {
              ...keys,
              disable: async (fp: string) => {
                const view = await keys.disable(fp);
                await store.markKeyDisabled(view.fingerprint);
                return view;
              },
            },
          }
        : {}),
      ...(o.parties?.onboard && o.parties.list
        ? { parties: { onboard: o.parties.onboard.bind(o.parties), list: o.parties.list.bind(o.parties) } }
        : {}),
      policies,
      history,
      ...(o.reads ? { ledgerReads: o.reads } : {}),
      batchMax: config.batchMax,
      limits: config.limits,
      waitMaxSeconds: config.waitMaxSeconds,
      events: {
        log: eventLog,
        hooks,
        deliveries,
        connect: () => redisConnection(config.redisTarget, { maxRetriesPerRequest: 1 }),
        heartbeatMs: config.events.heartbeatMs,
        allowPrivateTargets: config.webhooks.allowPrivateTargets,
        secretGraceMs: config.webhooks.secretGraceMs,
        closing: closing.signal,
      },
      ...(config.acceptRateLimit.max > 0
        ? { limitAccepts: acceptLimiter(redis, config.redisPrefix, config.acceptRateLimit) }
        : {}),
    };
    const app = createApp(deps);
    if (config.console.enabled) {
      mountConsole(app, {
        sessions: new SessionStore(redis, store.prefix, {
          idleMs: config.console.idleMs,
          absoluteMs: config.console.absoluteMs,
        }),
        redis,
        prefix: store.prefix,
        ...(config.auth.jwtSecret ? { linkSecret: config.auth.jwtSecret } : {}),
        ...(config.console.oidc ? { oidc: config.console.oidc } : {}),
        ...(config.console.publicUrl ? { publicUrl: config.console.publicUrl } : {}),
        statusCounts: (party) => store.countByStatus(party),
        jobCounts: () => queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed'),
        outcomesSince: (sinceMs, party) => recentOutcomes(eventLog, sinceMs, party),
        log,
      });
    }
    const server = await listen(app.fetch, config);
    port = server.port;
    url = server.url;
    closers.push(async () => {
      closing.abort(); // open event streams end, so the server can close
      await server.close();
      await waiter.close();
    });
  }

  if (o.role === 'worker') {
    // A worker-only process still answers /healthz, /readyz and /metrics (its attempts are counted here).
    const probes = new Hono();
    probeRoutes(probes, {
      redis,
      metrics,
      ledgerReady: async () => {
        await o.ledger.ledgerEnd();
      },
    });
    const server = await listen(probes.fetch, config);
    port = server.port;
    url = server.url;
    closers.push(() => server.close());
  }

  if (o.role !== 'api') {
    const workerConn = redisConnection(config.redisTarget);
    const lockMs = o.worker?.lockDurationMs ?? config.queue.lockDurationMs;
    const stalledMs = o.worker?.stalledIntervalMs ?? config.queue.stalledIntervalMs;
    // Reconciliation looks in the watcher's index first (no ledger scan when the watcher has seen it).
    const indexed = o.watch && config.watcher.enabled;
    const w = startWorker(
      {
        store,
        ledger: indexed
          ? { ...o.ledger, indexed: async (hash) => (await history.byHash(hash))?.transaction }
          : o.ledger,
        metrics,
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
        onError: (err) => outage.failed('worker', err),
      },
    );
    worker = w;
    // watcher and history (part A): one watcher across workers, through a Redis lease.
    if (o.watch && config.watcher.enabled) {
      const watcherConn = redisConnection(config.redisTarget, { maxRetriesPerRequest: 20 });
      const watcher = new LedgerWatcher({
        ledger: o.watch.ledger,
        parties: o.watch.parties,
        index: new HistoryIndex(watcherConn, store.prefix),
        lease: new Lease(watcherConn, `${store.prefix}watch:lease`, { ttlMs: config.watcher.leaseMs }),
        pageSize: config.watcher.pageSize,
        idleTimeoutMs: config.watcher.idleTimeoutMs,
        log,
      });
      watcher.start();
      watcherRef = watcher;
      closers.push(async () => {
        await watcher.stop();
        watcherConn.disconnect();
      });
    }
    const every = o.worker?.sweepEveryMs ?? config.queue.sweepIntervalMs;
    let sweeping = false;
    // Once-per-deployment work (the recovery sweep, payload retention) runs on the worker holding the leader
    // lease; another worker takes it over LEADER_LEASE_MS after the holder dies. (Both steps are idempotent, so
    // a moment with two sweepers would cost work, never correctness.)
    const leader = new Lease(redis, `${store.prefix}leader`, { ttlMs: config.queue.leaderLeaseMs });
    leaderRef = leader;
    const sweep = async () => {
      if (sweeping) return;
      sweeping = true;
      try {
        if (!leader.held && !(await leader.acquire().catch(() => false))) return;
        const n = await requeueStranded(store, queue, every);
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
      redis,
      reader: redisConnection(config.redisTarget),
      prefix: config.redisPrefix,
      events: eventLog,
      log,
    });
    const delivery = startDelivery(deliveries, {
      connection: redisConnection(config.redisTarget),
      reader: redisConnection(config.redisTarget),
      onError: (err) => outage.failed('webhook worker', err),
      ...(o.worker?.webhookSweepEveryMs ? { sweepEveryMs: o.worker.webhookSweepEveryMs } : {}),
    });
    closers.push(async () => {
      await leader.release();
      await relay.stop();
      await delivery.stop();
    });
    closers.push(async () => {
      clearInterval(timer);
      await closeWorker(w, config.shutdownTimeoutMs);
      workerConn.disconnect();
    });
  }

  return {
    ...(url ? { url } : {}),
    ...(port ? { port } : {}),
    store,
    queue,
    metrics,
    ...(worker ? { worker } : {}),
    history,
    ...(watcherRef ? { watcher: watcherRef } : {}),
    ...(leaderRef ? { leader: leaderRef } : {}),
    async close() {
      for (const c of closers) await c().catch((err) => log('warn', `shutdown: ${(err as Error).message}`));
      await queue.close().catch(() => {});
      await deliveries.close();
      await inspectPool?.close();
      redis.disconnect();
      bull.disconnect();
    },
  };
}
