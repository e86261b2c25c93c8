// Webhook delivery: a BullMQ job per chain delivers the head of the chain and only removes it once the receiver
// said 2xx (or the event is dead-lettered after retrying for `retryForMs`): order per webhook and party holds across
// retries, and a worker killed mid-delivery leaves the head in place (the stalled job runs again: at least once).
// `startDelivery` runs the worker side: the dispatcher, the sweep and the job worker.
import { randomInt } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { DelayedError, type Job, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import { type Running, startConsumer } from '../../redis/consumer.ts';
import type { QuillEvent } from '../log.ts';
import { GATHER_MS } from '../relay.ts';
import type { Connections } from './connections.ts';
import {
  type AttemptLog,
  type ChainHead,
  type ChainJob,
  type Deliveries,
  type DeliveryState,
  WEBHOOK_QUEUE,
} from './deliveries.ts';
import { dispatcher } from './dispatch.ts';
import { signatureHeader } from './sign.ts';
import { resolveTarget, type Target } from './targets.ts';

/** Exponential backoff with full jitter between base and the cap. */
export function backoff(d: Deliveries, attempt: number): number {
  const exp = Math.min(d.config.retryMaxDelayMs, d.config.retryBaseMs * 2 ** Math.min(30, attempt - 1));
  return Math.max(1, Math.floor(exp / 2 + randomInt(0, Math.max(1, Math.floor(exp / 2)) + 1)));
}

/**
 * POSTs to the checked addresses only: the socket's lookup answers them instead of resolving the name again (DNS
 * rebinding), while the Host header and TLS SNI carry the URL's name. No redirect is followed. Sockets are kept
 * alive in a pool of their own per set of checked addresses (connections.ts); a kept socket the receiver closed
 * just before it was reused fails before any answer, and the POST is sent once more on a new one.
 */
function post(
  pool: Connections,
  t: Target,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  again = true,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = (t.url.protocol === 'https:' ? httpsRequest : httpRequest)(
      {
        method: 'POST',
        hostname: t.host,
        port: t.url.port || undefined,
        path: `${t.url.pathname}${t.url.search}`,
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        ...(isIP(t.host) ? {} : { servername: t.host }),
        agent: pool.agent(t),
        signal,
      },
      (res) => {
        res.on('error', reject);
        res.on('end', () => resolve(res.statusCode ?? 0));
        // Cut off mid-body (the timeout, a reset): not an answer. After 'end' this is a no-op.
        res.on('close', () => reject(new Error('the answer ended early')));
        res.resume();
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      const stale = req.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE');
      if (stale && again && !signal.aborted)
        post(pool, t, headers, body, signal, false).then(resolve, reject);
      else reject(err);
    });
    req.end(body);
  });
}

/** Sends one event to one webhook: the HTTP status (null: no answer) and the error, if any. */
export async function send(
  d: Deliveries,
  url: string,
  secrets: string[],
  webhook: string,
  e: QuillEvent,
): Promise<{ statusCode: number | null; error: string | null; latencyMs: number }> {
  const started = performance.now();
  const target = await resolveTarget(url, d.config.allowPrivateTargets, d.config.resolve);
  if (typeof target === 'string') return { statusCode: null, error: target, latencyMs: 0 };
  const body = JSON.stringify({
    eventId: e.id,
    webhookId: webhook,
    type: e.type,
    party: e.party,
    at: e.at,
    body: e.body,
  });
  const t = Math.floor(Date.now() / 1000);
  const signal = AbortSignal.timeout(d.config.timeoutMs);
  try {
    const status = await post(
      d.connections,
      target,
      {
        'content-type': 'application/json',
        'user-agent': 'quill-webhooks/1',
        'quill-event-id': e.id,
        'quill-event-type': e.type,
        'quill-signature': signatureHeader(secrets, t, body),
      },
      body,
      signal,
    );
    const latencyMs = Math.round(performance.now() - started);
    return status >= 200 && status < 300
      ? { statusCode: status, error: null, latencyMs }
      : { statusCode: status, error: `HTTP ${status}`, latencyMs };
  } catch {
    const latencyMs = Math.round(performance.now() - started);
    return { statusCode: null, error: signal.aborted ? 'TIMEOUT' : 'CONNECTION_FAILED', latencyMs };
  }
}

/**
 * How long a drained chain's job stays for new events before it ends. The dispatcher of this process wakes it
 * (`Deliveries.draining`); it also looks every LINGER_POLL_MS for events another worker process fanned out.
 */
const LINGER_MS = 250;
const LINGER_POLL_MS = 100;

/**
 * Delivers a chain's events in order until it is empty or its head must wait (then the job is delayed by the
 * backoff of that head's attempts). A head is read with its webhook, state and event in one step
 * (`Deliveries.peek`), and each delivery ends in one write (`Deliveries.settle`) that answers the next head the same
 * way: one round trip to Redis per event. An empty chain's job stays LINGER_MS for new events: under steady load a
 * chain is then drained by one job, not by a BullMQ job per event (three scripts each), and the dispatcher of this
 * process wakes a chain's job that is still looking instead of kicking a new one (`Deliveries.draining`), handing
 * over the event its append made the chain's head: an event that finds its chain empty costs the settle alone.
 */
export async function drain(d: Deliveries, job: Job<ChainJob>, token: string | undefined): Promise<void> {
  const { webhook, party } = job.data;
  const chain = d.keys.webhookChain(webhook, party);
  const peek = () => d.peek(webhook, party);
  d.draining.enter(chain);
  try {
    for (let next = await peek(); ; ) {
      if (next !== null && (await deliver(d, job, token, next)) === 'forgotten') return;
      next = null;
      for (let left = LINGER_MS; next === null && left > 0 && !d.closing; ) {
        const started = Date.now();
        const handed = await d.draining.wait(chain, Math.min(left, LINGER_POLL_MS));
        left -= Math.max(1, Date.now() - started);
        next = handed ?? (await peek());
      }
      if (next !== null) continue;
      // Leaving: once this process's dispatcher no longer counts on this job, look a last time. An event it
      // appended before it saw the job gone is seen here; one appended after, it kicks a new job for.
      d.draining.leave(chain);
      next = await peek();
      if (next === null) return;
      d.draining.enter(chain);
    }
  } finally {
    d.draining.leave(chain);
  }
}

/** Delivers the chain from `first` on until it is empty, or until the webhook is found deleted ('forgotten'). */
async function deliver(
  d: Deliveries,
  job: Job<ChainJob>,
  token: string | undefined,
  first: ChainHead,
): Promise<'empty' | 'forgotten'> {
  const { webhook, party } = job.data;
  const chain = d.keys.webhookChain(webhook, party);
  // Each step's write answers the next head with what its step reads (`settle`, like `peek`).
  let head: ChainHead | null = first;
  const removed = async (id: string, s: DeliveryState, o: Parameters<Deliveries['settle']>[3]) => {
    const next = await d.settle(webhook, party, s, o);
    d.draining.settled(chain, id);
    return next;
  };
  while (head !== null) {
    const { id, hook, event: e } = head;
    if (!hook) {
      await d.forget(webhook);
      return 'forgotten';
    }
    const now = new Date();
    const s: DeliveryState = head.state ?? {
      eventId: id,
      party,
      state: 'pending',
      attempts: 0,
      queuedAt: now.toISOString(),
    };
    if (!e) {
      head = await removed(id, { ...s, state: 'dead', lastError: 'EVENT_EXPIRED' }, { pop: true });
      d.outcomes.expired++;
      continue;
    }
    const r = await send(d, hook.webhook.url, hook.secrets, webhook, e);
    const attempt = s.attempts + 1;
    const entry: AttemptLog = { eventId: id, attempt, at: now.toISOString(), ...r };
    const next: DeliveryState = {
      ...s,
      attempts: attempt,
      firstAttemptAt: s.firstAttemptAt ?? now.toISOString(),
      lastAttemptAt: now.toISOString(),
      lastStatusCode: r.statusCode,
      lastLatencyMs: r.latencyMs,
      lastError: r.error,
    };
    delete next.nextAttemptAt;
    if (r.error === null) {
      head = await removed(id, { ...next, state: 'delivered' }, { attempt: entry, pop: true });
      d.outcomes.delivered++;
      continue;
    }
    if (Date.now() - Date.parse(next.firstAttemptAt as string) >= d.config.retryForMs) {
      const dead = { ...next, state: 'dead' as const };
      d.log?.('warn', 'webhook delivery dead-lettered', { webhook, eventId: id, error: r.error });
      head = await removed(id, dead, { attempt: entry, pop: true, dead: true });
      d.outcomes.dead++;
      continue;
    }
    const at = Date.now() + backoff(d, attempt);
    const waiting = { ...next, nextAttemptAt: new Date(at).toISOString() };
    await d.settle(webhook, party, waiting, { attempt: entry, pop: false });
    d.outcomes.failed++;
    await job.moveToDelayed(at, token);
    throw new DelayedError();
  }
  return 'empty';
}

/** The worker side: the dispatcher, the sweep and the BullMQ worker that drains chains. */
export function startDelivery(
  d: Deliveries,
  o: {
    connection: Redis;
    reader: Redis;
    sweepEveryMs?: number;
    /** WEBHOOK_RETENTION_HOURS: ended deliveries older than this are pruned by the sweep (0/absent = kept). */
    retentionMs?: number;
    pollMs?: number;
    lockDurationMs?: number;
    /** Where the worker's own errors (its Redis connection failing) go instead of one warning each. */
    onError?: (err: Error) => void;
  },
): Running {
  d.closing = false;
  const worker = new Worker<ChainJob>(WEBHOOK_QUEUE, (job, token) => drain(d, job, token), {
    connection: o.connection,
    prefix: d.keys.bull,
    concurrency: d.config.concurrency,
    lockDuration: o.lockDurationMs ?? Math.max(30_000, d.config.timeoutMs * 3),
    stalledInterval: Math.min(30_000, o.lockDurationMs ?? 30_000),
    maxStalledCount: 1_000_000,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 0 },
  });
  worker.on('error', o.onError ?? ((err) => d.log?.('warn', `webhook worker: ${err.message}`)));
  const dispatching = startConsumer({
    ...dispatcher(d, o.reader),
    // Events gather as the relay's outbox entries do: several fanned out per step.
    gatherMs: GATHER_MS,
    ...(o.pollMs ? { pollMs: o.pollMs } : {}),
  });
  // A prune reads every state of every webhook: a quarter of the window between passes bounds what waits past it
  // to a quarter of the window, at the cost of one pass per quarter (at least a second, at most an hour apart).
  const retention = o.retentionMs ?? 0;
  const pruneEveryMs = Math.min(3_600_000, Math.max(1000, retention / 4));
  let pruned = 0;
  let pruning = false;
  const timer = setInterval(
    () => {
      d.sweep().catch(() => {});
      if (retention > 0 && !pruning && Date.now() - pruned >= pruneEveryMs) {
        pruning = true;
        pruned = Date.now();
        d.prune(Date.now() - retention)
          .catch((err: Error) => d.log?.('warn', `webhook retention: ${err.message}`))
          .finally(() => {
            pruning = false;
          });
      }
    },
    Math.min(o.sweepEveryMs ?? 5000, retention > 0 ? pruneEveryMs : Number.POSITIVE_INFINITY),
  );
  timer.unref();
  return {
    async stop() {
      d.closing = true;
      d.draining.wakeAll();
      clearInterval(timer);
      await dispatching.stop();
      await worker.close();
      o.connection.disconnect();
    },
  };
}
