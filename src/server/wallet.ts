// A running wallet: the shared parts, then the API role and/or the worker role (a worker-only process still
// answers /healthz, /readyz and /metrics), stopped in the reverse order.
import type { Queue, Worker } from 'bullmq';
import { type LedgerReads, type PartyAdmin, probeRoutes } from '../api/index.ts';
import type { AuditCheckpointer, AuditLog } from '../audit/index.ts';
import { previousSecretNotice, type Verifier } from '../auth/index.ts';
import type { Config } from '../config/index.ts';
import type { HistoryIndex, LedgerWatcher } from '../history/index.ts';
import { type Log, noLog } from '../log.ts';
import type { Registry } from '../metrics.ts';
import { type AssetRecognizers, DEFAULT_RECOGNIZERS } from '../policy/index.ts';
import { type Lease, migrateLayout } from '../redis/index.ts';
import { type Keyring, keyStoreMetrics, type Signer } from '../signing/index.ts';
import type {
  AcceptPorts,
  JobData,
  LedgerPort,
  PipelineMetrics,
  SubmissionStore,
} from '../submissions/index.ts';
import { type PartyLookup, signaturePorts } from './adapters.ts';
import { listen } from './http.ts';
import { LedgerAuthHealth, watchLedgerAuth } from './ledger-auth.ts';
import { startApi } from './roles/api.ts';
import { type Shared, startShared } from './roles/shared.ts';
import { startWorkerRole, type WorkerRoleOptions } from './roles/worker.ts';

export type Role = 'api' | 'worker' | 'all';

export interface WalletOptions {
  config: Config;
  /** A refusal found after start (the layout check waited for Redis): default, the wallet stops. */
  fatal?: (err: Error) => void;
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
  /** Holding recognizers of further registries, tried before the built-in ones (Amulet), which always apply. */
  recognizers?: AssetRecognizers;
  worker?: WorkerRoleOptions['timing'];
  /** Worker role: the ledger watcher's reads and the parties it follows (absent: no watcher). */
  watch?: WorkerRoleOptions['watch'];
  /** Worker role: the key ring holding AUDIT_KEY, checked by `checkAuditKey` (absent: no audit checkpoints). */
  auditSigner?: WorkerRoleOptions['auditSigner'];
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
  registry: Registry;
  audit: AuditLog;
  worker?: Worker<JobData>;
  /** The party history index (read by the API, written by the worker's watcher). */
  history: HistoryIndex;
  watcher?: LedgerWatcher;
  /** Worker role: the leader lease of the recovery sweep (one holder across workers). */
  leader?: Lease;
  /** Worker role with AUDIT_KEY: the audit chain's checkpoints. */
  checkpointer?: AuditCheckpointer;
  close(): Promise<void>;
}

/** What a stop may take beyond SHUTDOWN_TIMEOUT_MS (the jobs' share) for everything else. */
const STOP_MARGIN_MS = 10_000;

/** How long start waits for Redis to answer the layout check before starting without it (probes say not ready). */
const LAYOUT_WAIT_MS = 2000;

/**
 * Before anything reads or writes: the stored layout brought to this release's, or a newer one refused (start
 * fails). A Redis that does not answer yet does not hold the start up (the probes say not ready meanwhile): the
 * check runs as soon as it answers, and a refusal then stops the wallet (`fatal`).
 */
async function checkLayout(
  shared: Pick<Shared, 'redis'>,
  config: Config,
  log: Log,
  closers: (() => Promise<void>)[],
  fatal: (err: Error) => void,
): Promise<void> {
  const closing = new AbortController();
  closers.unshift(async () => closing.abort());
  const done = (r: Awaited<ReturnType<typeof migrateLayout>>) => {
    if (r.applied.length > 0) log('info', 'layout migrated', { ...r });
  };
  const layout = migrateLayout(shared.redis, config.redisPrefix, {
    log: (msg, fields) => log('info', msg, fields),
    retry: { signal: closing.signal },
  });
  const first = await Promise.race([
    layout.then(
      (r) => ({ r }),
      (err: Error) => ({ err }),
    ),
    new Promise<undefined>((r) => setTimeout(() => r(undefined), LAYOUT_WAIT_MS).unref()),
  ]);
  if (first && 'err' in first) throw first.err;
  if (first) return done(first.r);
  log('warn', 'Redis does not answer yet: the stored layout is checked as soon as it does', {});
  layout.then(done, (err: Error) => {
    if (closing.signal.aborted) return;
    log('error', `stopping: ${err.message}`, {});
    fatal(err);
  });
}

export async function startWallet(o: WalletOptions): Promise<RunningWallet> {
  const { config } = o;
  const log = o.log ?? noLog;
  const shared = startShared(config, log);
  // Every ledger answer of this process tells whether its credentials are accepted (/readyz, /metrics).
  const health = new LedgerAuthHealth(shared.registry, log);
  const ledger = watchLedgerAuth(o.ledger, health);
  const ledgerAuth = () => health.state();
  // A key that can no longer sign does not make the process unready (/readyz): /metrics says so for alerts.
  if (o.keys) keyStoreMetrics(shared.registry, o.keys);
  const closers: (() => Promise<void>)[] = [];
  // Every step of a stop is bounded: jobs in flight get SHUTDOWN_TIMEOUT_MS, the rest a margin. A step that waits on
  // a Redis gone mid-failover past that is left behind, and the connections are cut (a stop that never ends would
  // hold the process, and the test's teardown, forever).
  const stop = async () => {
    const deadline = Date.now() + config.shutdownTimeoutMs + STOP_MARGIN_MS;
    const bounded = async (step: () => Promise<void>, what: string) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((r) => {
        timer = setTimeout(() => r('late'), Math.max(0, deadline - Date.now()));
      });
      const result = await Promise.race([
        step().catch((err) => log('warn', `shutdown: ${(err as Error).message}`)),
        late,
      ]);
      clearTimeout(timer);
      if (result === 'late') log('warn', `shutdown: ${what} did not finish in time: going on`, {});
    };
    for (const c of closers) await bounded(c, 'a step');
    await bounded(() => shared.close(), 'closing the queue');
    shared.disconnect();
  };
  try {
    await checkLayout(shared, config, log, closers, o.fatal ?? (() => void stop()));
    let http: { url: string; port: number } | undefined;
    if (o.role !== 'worker') {
      // A rotation's previous API token secret: until when it is accepted (never the secret itself).
      const notice = previousSecretNotice(config.auth);
      if (notice) log(notice.level, notice.msg, notice.fields);
      const api = await startApi(shared, {
        ledger,
        ledgerAuth,
        auth: o.auth ?? 'none',
        recognizers: {
          holdings: [...(o.recognizers?.holdings ?? []), ...DEFAULT_RECOGNIZERS.holdings],
        },
        ...(o.keys ? { keys: o.keys } : {}),
        ...(o.signer ? { signer: o.signer } : {}),
        ...(o.parties ? { parties: o.parties } : {}),
        ...(o.ports ? { ports: o.ports } : {}),
        ...(o.reads ? { reads: o.reads } : {}),
      });
      closers.push(() => api.close());
      http = api;
    } else {
      const probes = probeRoutes({
        redis: shared.redis,
        registry: shared.registry,
        ledgerReady: async () => {
          await ledger.ledgerEnd();
        },
        ledgerAuth,
      });
      const server = await listen(probes.fetch, config);
      closers.push(() => server.close());
      http = server;
    }
    const signatures =
      o.signer && o.parties ? signaturePorts({ signer: o.signer, parties: o.parties }) : undefined;
    const worker =
      o.role !== 'api'
        ? startWorkerRole(shared, {
            ledger,
            ...(o.watch ? { watch: o.watch } : {}),
            ...(o.worker ? { timing: o.worker } : {}),
            ...(o.auditSigner ? { auditSigner: o.auditSigner } : {}),
            ...(signatures ? { signatures } : {}),
          })
        : undefined;
    if (worker) closers.push(() => worker.close());
    return {
      ...http,
      store: shared.store,
      queue: shared.queue,
      metrics: shared.metrics,
      registry: shared.registry,
      audit: shared.audit,
      history: shared.history,
      ...(worker ? { worker: worker.worker, leader: worker.leader } : {}),
      ...(worker?.watcher ? { watcher: worker.watcher } : {}),
      ...(worker?.checkpointer ? { checkpointer: worker.checkpointer } : {}),
      close: stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
