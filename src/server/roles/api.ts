// The API role: the accept step's parts (inspection, inline or on the pool; signing; policy; durability), the
// outcome waiter, the HTTP app with the console mounted on it, and its listener.
import { setMaxListeners } from 'node:events';
import { Counter, Gauge } from 'prom-client';
import {
  type AppDeps,
  acceptLimiter,
  createApp,
  type LedgerReads,
  type OperationsView,
  type PartyAdmin,
} from '../../api/index.ts';
import type { Verifier } from '../../auth/index.ts';
import { mintLink, mountConsole, SessionStore } from '../../console/index.tsx';
import { StreamSlots } from '../../events/index.ts';
import { HoldingReservations, IntentService, RegistryClient } from '../../intents/index.ts';
import type { AssetRecognizers } from '../../policy/index.ts';
import { PolicyProposals, PolicyStore, seedPolicy, velocityLookup } from '../../policy/index.ts';
import { exclusive, leaseHolder, redisKeys, replication } from '../../redis/index.ts';
import type { Keyring, Signer } from '../../signing/index.ts';
import {
  type AcceptPorts,
  enqueue,
  Inspector,
  InspectPool,
  type LedgerPort,
  OutcomeWaiter,
  SubmissionRefused,
} from '../../submissions/index.ts';
import { acceptPorts, keyAdmin, type PartyLookup } from '../adapters.ts';
import { type Listening, listen } from '../http.ts';
import { executorConfig, indexedLedger, type Shared } from './shared.ts';

export interface ApiRoleOptions {
  ledger: LedgerPort;
  /** Whether the ledger accepts the wallet's credentials (/readyz). */
  ledgerAuth?: AppDeps['ledgerAuth'];
  /** How callers are authenticated ('none' = --insecure-no-auth). */
  auth: Verifier | 'none';
  keys?: Keyring;
  signer?: Signer;
  parties?: PartyLookup & Partial<PartyAdmin>;
  /** Overrides the accept ports (tests of policy in isolation). */
  ports?: AcceptPorts;
  /** Ledger point reads as a party (GET /wallet/v1/ledger/…). */
  reads?: LedgerReads;
  recognizers: AssetRecognizers;
}

/** The pool's gauges in the process's metrics. */
function poolMetrics(s: Shared, pool: InspectPool): void {
  new Gauge({
    name: 'quill_inspect_pending',
    help: 'Large inputs (transactions, previews, request bodies) waiting for or being read on an inspection thread',
    registers: [s.registry],
    collect() {
      this.set(pool.pending);
    },
  });
  new Counter({
    name: 'quill_inspect_offloaded_total',
    help: 'Prepared transactions inspected or previewed on an inspection thread instead of the request thread',
    registers: [s.registry],
    collect() {
      this.reset();
      this.inc(pool.answered);
    },
  });
}

/** The event streams' gauge and refusals (EVENTS_MAX_STREAMS_PER_TOKEN, EVENTS_MAX_STREAMS). */
function streamMetrics(s: Shared, streams: StreamSlots): void {
  new Gauge({
    name: 'quill_event_streams_open',
    help: 'Event streams (SSE) open in this process, each holding a Redis connection',
    registers: [s.registry],
    collect() {
      this.set(streams.open);
    },
  });
  new Counter({
    name: 'quill_event_streams_refused_total',
    help: 'Event streams refused with 429 TOO_MANY_STREAMS, by the cap that was full (token or process)',
    labelNames: ['cap'],
    registers: [s.registry],
    collect() {
      this.reset();
      this.inc({ cap: 'token' }, streams.refused.token);
      this.inc({ cap: 'process' }, streams.refused.process);
    },
  });
}

export async function startApi(s: Shared, o: ApiRoleOptions): Promise<Listening> {
  const { config, store, log } = s;
  const { threads, maxQueued, threadMemoryMb, offloadBytes } = config.inspect;
  const pool =
    !o.ports && threads > 0
      ? new InspectPool({ threads, maxQueued, threadMemoryMb, holdings: o.recognizers.holdings, log })
      : undefined;
  if (pool) poolMetrics(s, pool);
  const inspector = new Inspector({
    holdings: o.recognizers.holdings,
    pool: pool ? { pool, offloadChars: offloadBytes } : undefined,
  });
  const ports =
    o.ports ??
    (o.keys && o.signer && o.parties
      ? acceptPorts({
          keys: o.keys,
          signer: o.signer,
          parties: o.parties,
          inspector,
        })
      : undefined);
  if (!ports) throw new Error('the api role needs the key store, a signer and the party registry');
  // A key found disabled (API, or `quill keys disable` seen at signing) also stops its queued submissions.
  const sign: AcceptPorts['sign'] = async (fp, hash) => {
    try {
      return await ports.sign(fp, hash);
    } catch (err) {
      if (err instanceof SubmissionRefused && err.code === 'KEY_DISABLED')
        await store.keyFlags.markDisabled(fp);
      throw err;
    }
  };
  const keys = o.keys ? keyAdmin(o.keys) : undefined;
  const policies = new PolicyStore(s.redis, config.redisPrefix);
  const proposals = new PolicyProposals(policies);
  if (config.policy) {
    const seeded = await seedPolicy(policies, proposals, config.policy, 'POLICY_FILE');
    if (seeded.proposal) {
      log?.('warn', 'POLICY_FILE differs from the governed policy in force: filed as a proposal', {
        proposal: seeded.proposal.id,
      });
    }
  }
  const waiter = new OutcomeWaiter(s.connect(), store);
  const closing = new AbortController();
  const streams = new StreamSlots(config.eventStreams);
  // Every open stream listens for shutdown: up to EVENTS_MAX_STREAMS listeners is expected, not a leak.
  setMaxListeners(config.eventStreams.max + 10, closing.signal);
  streamMetrics(s, streams);
  const deps: AppDeps = {
    store,
    waiter,
    metrics: s.metrics,
    registry: s.registry,
    redis: s.redis,
    log,
    auth: o.auth,
    ledgerReady: async () => {
      await o.ledger.ledgerEnd();
    },
    ...(o.ledgerAuth ? { ledgerAuth: o.ledgerAuth } : {}),
    accept: {
      store,
      ports: {
        ...ports,
        sign,
        ...(o.ledger.unknownPackageNames ? { unknownPackageNames: o.ledger.unknownPackageNames } : {}),
      },
      enqueue: (rec) => enqueue(s.queue, rec),
      allowedSynchronizers: config.allowedSynchronizers,
      defaultUserId: config.ledgerUserId ?? '',
      dedupMaxSeconds: config.dedup.maxSeconds,
      preparationToleranceMs: config.commitWindow.preparationToleranceMs,
      metrics: s.metrics,
      log,
      ...(config.redisReplicasAck.replicas > 0
        ? { durable: replication(s.redis, store.prefix, config.redisReplicasAck) }
        : {}),
      // The approval policy: the current version in Redis (PUT /wallet/v1/policy), seeded from POLICY_FILE.
      policy: {
        current: async () => {
          const cur = await policies.current();
          return cur ? { document: cur.document, version: cur.version } : undefined;
        },
        velocity: velocityLookup((party, cursor) =>
          store.list({ party, limit: 200, ...(cursor ? { cursor } : {}) }),
        ),
        // A decision and its record write take a few ms; 10 s outlasts any, and frees a dead holder's lock.
        serialize: (party, fn) =>
          exclusive(s.redis, redisKeys(config.redisPrefix).velocityLock(party), 10_000, fn),
      },
    },
    ...(keys
      ? {
          keys: {
            ...keys,
            disable: async (fp: string) => {
              const view = await keys.disable(fp);
              await store.keyFlags.markDisabled(view.fingerprint);
              return view;
            },
          },
        }
      : {}),
    ...(isPartyAdmin(o.parties) ? { parties: o.parties } : {}),
    policies,
    proposals,
    audit: s.audit,
    history: s.history,
    inspector,
    ...(o.reads ? { ledgerReads: o.reads } : {}),
    batchMax: config.batchMax,
    limits: config.limits,
    waitMaxSeconds: config.waitMaxSeconds,
    events: {
      log: s.events,
      hooks: s.hooks,
      deliveries: s.deliveries,
      connect: () => s.connect({ maxRetriesPerRequest: 1 }),
      streams,
      heartbeatMs: config.events.heartbeatMs,
      allowPrivateTargets: config.webhooks.allowPrivateTargets,
      secretGraceMs: config.webhooks.secretGraceMs,
      closing: closing.signal,
    },
    ...(config.acceptRateLimit.max > 0
      ? { limitAccepts: acceptLimiter(s.redis, config.redisPrefix, config.acceptRateLimit) }
      : {}),
  };
  // Intents prepare through the participant and the instruments' registries (TOKEN_REGISTRY_URLS).
  const prepare = o.ledger.prepare?.bind(o.ledger);
  if (prepare) {
    const list = o.parties?.list?.bind(o.parties);
    deps.intents = new IntentService({
      accept: deps.accept,
      ledger: { prepare },
      registries: new RegistryClient({ urls: config.intents.registries, timeoutMs: config.ledgerTimeoutMs }),
      history: s.history,
      audit: s.audit,
      // A prepare takes a registry call and a ledger call: a reservation outlives both.
      reservations: new HoldingReservations(s.redis, config.redisPrefix, 2 * config.ledgerTimeoutMs + 30_000),
      ...(list ? { walletParties: async () => (await list()).map((p) => p.partyId) } : {}),
      ttlSeconds: config.intents.ttlSeconds,
      select: {
        maxInputs: config.intents.maxInputs,
        ...(config.intents.mergeDustBelow ? { mergeDustBelow: config.intents.mergeDustBelow } : {}),
      },
    });
  }
  deps.operations = () => operations(s, o.ledger);
  deps.executor = {
    store,
    ledger: config.watcher.enabled ? indexedLedger(s, o.ledger) : o.ledger,
    metrics: s.metrics,
    config: executorConfig(config),
  };
  const secret = config.auth.jwtSecret;
  if (config.console.enabled && secret) deps.mintConsoleLink = (req) => mintLink(secret, req);
  const app = createApp(deps);
  if (config.console.enabled) {
    mountConsole(app, {
      sessions: new SessionStore(s.redis, config.redisPrefix, {
        idleMs: config.console.idleMs,
        absoluteMs: config.console.absoluteMs,
      }),
      redis: s.redis,
      prefix: config.redisPrefix,
      ...(config.auth.jwtSecret ? { linkSecret: config.auth.jwtSecret } : {}),
      ...(config.console.oidc ? { oidc: config.console.oidc } : {}),
      ...(config.console.publicUrl ? { publicUrl: config.console.publicUrl } : {}),
      statusCounts: (party) => store.countByStatus(party),
      jobCounts: () => s.queue.getJobCounts('waiting', 'active', 'delayed', 'prioritized', 'failed'),
      outcomesSince: (sinceMs, party) => s.events.outcomesSince(sinceMs, party),
      log,
    });
  }
  const server = await listen(app.fetch, config);
  return {
    ...server,
    async close() {
      closing.abort(); // open event streams end, so the server can close
      await server.close();
      await waiter.close();
      await pool?.close();
    },
  };
}

/** Within `ms`, or undefined (a ledger that does not answer must not hold the operator's page). */
async function within<T>(ms: number, p: Promise<T>): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([p.catch(() => undefined), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** GET /wallet/v1/operations: the watcher against the ledger, the leases, the queue's oldest jobs, dead letters. */
async function operations(s: Shared, ledger: LedgerPort): Promise<OperationsView> {
  const keys = redisKeys(s.config.redisPrefix);
  const oldest = async (state: 'waiting' | 'delayed') => {
    const jobs = await s.queue.getJobs([state], 0, 49, true);
    const at = Math.min(...jobs.map((j) => j.timestamp).filter((t) => Number.isFinite(t)));
    return Number.isFinite(at) ? new Date(at).toISOString() : null;
  };
  const [checkpoint, end, watcherLease, leader, counts, oldestWaitingAt, oldestDelayedAt, hooks] =
    await Promise.all([
      s.history.checkpoint(),
      within(2000, ledger.ledgerEnd()),
      leaseHolder(s.redis, keys.watcherLease),
      leaseHolder(s.redis, keys.leaderLease),
      s.queue.getJobCounts('waiting', 'delayed'),
      oldest('waiting'),
      oldest('delayed'),
      s.hooks.list(),
    ]);
  const webhooks = await Promise.all(
    hooks.map(async (h) => ({ id: h.id, url: h.url, dead: await s.deliveries.deadCount(h.id) })),
  );
  return {
    watcher: { checkpoint: checkpoint ?? null, ledgerEnd: end ?? null, lease: watcherLease },
    leader,
    queue: {
      waiting: counts.waiting ?? 0,
      delayed: counts.delayed ?? 0,
      oldestWaitingAt,
      oldestDelayedAt,
    },
    webhooks,
  };
}

/** Whether the parties given do administration too (a harness may give the accept path's lookup only). */
function isPartyAdmin(p: Partial<PartyAdmin> | undefined): p is PartyAdmin {
  return !!(p?.onboard && p.prepare && p.list && p.get && p.changeKeys);
}
