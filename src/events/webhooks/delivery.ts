// Webhook delivery. A dispatcher follows the event log with its own cursor and, in one Lua step per batch,
// appends each event id to the chain of every matching webhook and party (`wh:chain:<webhook>:<party>`) and
// moves its cursor: no event is fanned out twice, none is skipped. A BullMQ job per chain delivers the head of
// the chain, and only removes it once the receiver said 2xx (or the event is dead-lettered after retrying for
// `retryForMs`): order per webhook and party holds across retries, a worker killed mid-delivery leaves the head
// in place (the stalled job runs again: at least once). A sweep re-adds a job for every non-empty chain, so a
// job lost with Redis or skipped as a duplicate id is made up.
import { createHash, randomInt } from 'node:crypto';
import { DelayedError, type Job, Queue, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Log } from '../../log.ts';
import { type LuaScript, runScript } from '../../submissions/index.ts';
import { type EventLog, matches, type QuillEvent } from '../log.ts';
import type { WebhookRegistry } from './registry.ts';
import { signatureHeader } from './sign.ts';
import { checkTarget } from './targets.ts';

function script(source: string): LuaScript {
  return { source, sha: createHash('sha1').update(source).digest('hex') };
}

/**
 * ARGV: 1 prefix, 2 expected cursor, 3 new cursor, 4 now, 5.. triples webhook, party, event id.
 * Returns 0 when the cursor moved meanwhile (another dispatcher did the batch), 1 when applied.
 */
const FAN_OUT = script(`
local p = ARGV[1]
local cur = redis.call('GET', p .. 'wh:cursor') or '0-0'
if cur ~= ARGV[2] then return 0 end
for i = 5, #ARGV, 3 do
  local w, party, ev = ARGV[i], ARGV[i + 1], ARGV[i + 2]
  redis.call('RPUSH', p .. 'wh:chain:' .. w .. ':' .. party, ev)
  redis.call('SADD', p .. 'wh:chains', w .. '|' .. party)
  redis.call('HSET', p .. 'wh:dlv:' .. w, ev, cjson.encode({ eventId = ev, party = party, state = 'pending',
    attempts = 0, queuedAt = ARGV[4] }))
end
redis.call('SET', p .. 'wh:cursor', ARGV[3])
return 1
`);

/** Removes the head of a chain if it is still `event` (a repeated job never removes the next one). */
const POP_IF = script(`
if redis.call('LINDEX', KEYS[1], 0) == ARGV[1] then redis.call('LPOP', KEYS[1]) return 1 end
return 0
`);

export interface DeliveryConfig {
  allowPrivateTargets: boolean;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  retryForMs: number;
  concurrency: number;
}

export interface DeliveryState {
  eventId: string;
  party: string;
  /** pending → delivered | dead (retried for retryForMs, or the event is gone). */
  state: 'pending' | 'delivered' | 'dead';
  attempts: number;
  queuedAt: string;
  firstAttemptAt?: string;
  lastAttemptAt?: string;
  nextAttemptAt?: string;
  lastStatusCode?: number | null;
  lastLatencyMs?: number;
  lastError?: string | null;
}

export interface AttemptLog {
  eventId: string;
  attempt: number;
  at: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

interface ChainJob {
  webhook: string;
  party: string;
}

const ATTEMPT_LOG_MAX = 1000;

export class Deliveries {
  readonly p: string;
  readonly queue: Queue<ChainJob>;
  constructor(
    readonly redis: Redis,
    bull: Redis,
    prefix: string,
    readonly events: EventLog,
    readonly hooks: WebhookRegistry,
    readonly config: DeliveryConfig,
    readonly log?: Log,
  ) {
    this.p = prefix.endsWith(':') ? prefix : `${prefix}:`;
    this.queue = new Queue<ChainJob>('webhooks', {
      connection: bull,
      prefix: `${this.p}bull`,
      defaultJobOptions: {
        attempts: 1_000_000,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
    this.queue.on('error', () => {});
  }

  chainKey(webhook: string, party: string): string {
    return `${this.p}wh:chain:${webhook}:${party}`;
  }

  private jobId(c: ChainJob): string {
    return `ch-${createHash('sha1').update(`${c.webhook}|${c.party}`).digest('hex')}`;
  }

  async kick(c: ChainJob): Promise<void> {
    await this.queue.add('deliver', c, { jobId: this.jobId(c) });
  }

  /** One dispatcher step: fans out up to `count` events after the cursor. Returns how many it passed. */
  async dispatch(count = 200, block?: { ms: number; via: Redis }): Promise<number> {
    const cursor = (await this.redis.get(`${this.p}wh:cursor`)) ?? (await this.startCursor());
    const { events, next } = await this.events.read(
      cursor,
      {},
      count,
      block ? { blockMs: block.ms, via: block.via } : undefined,
    );
    if (next === cursor) return 0;
    const hooks = await this.hooks.list();
    const args: string[] = [];
    const chains = new Map<string, ChainJob>();
    for (const e of events) {
      for (const h of hooks) {
        if (!matches(e, { types: h.types, ...(h.party !== null ? { party: h.party } : {}) })) continue;
        args.push(h.id, e.party, e.id);
        chains.set(`${h.id}|${e.party}`, { webhook: h.id, party: e.party });
      }
    }
    const ok = Number(
      await runScript(this.redis, FAN_OUT, [], [this.p, cursor, next, new Date().toISOString(), ...args]),
    );
    if (ok === 1) for (const c of chains.values()) await this.kick(c);
    return events.length || 1;
  }

  /** A dispatcher that never ran starts at the end of the log: webhooks get events from now on. */
  private async startCursor(): Promise<string> {
    const end = await this.events.end();
    await this.redis.set(`${this.p}wh:cursor`, end, 'NX');
    return (await this.redis.get(`${this.p}wh:cursor`)) ?? end;
  }

  /** Adds a job for every chain that has events waiting (and forgets empty chains). */
  async sweep(): Promise<number> {
    const members = await this.redis.smembers(`${this.p}wh:chains`);
    let n = 0;
    for (const m of members) {
      const i = m.indexOf('|');
      const c = { webhook: m.slice(0, i), party: m.slice(i + 1) };
      if ((await this.redis.llen(this.chainKey(c.webhook, c.party))) > 0) {
        await this.kick(c);
        n++;
      }
    }
    return n;
  }

  async state(webhook: string, eventId: string): Promise<DeliveryState | undefined> {
    const raw = await this.redis.hget(`${this.p}wh:dlv:${webhook}`, eventId);
    return raw ? (JSON.parse(raw) as DeliveryState) : undefined;
  }

  private async setState(webhook: string, s: DeliveryState): Promise<void> {
    await this.redis.hset(`${this.p}wh:dlv:${webhook}`, s.eventId, JSON.stringify(s));
  }

  /** Newest first (by event id), at most `limit`, each with its attempts (newest first). */
  async list(webhook: string, limit: number): Promise<(DeliveryState & { attemptLog: AttemptLog[] })[]> {
    const all = Object.values(await this.redis.hgetall(`${this.p}wh:dlv:${webhook}`)).map(
      (r) => JSON.parse(r) as DeliveryState,
    );
    all.sort((a, b) => (a.eventId < b.eventId ? 1 : -1));
    const chosen = all.slice(0, limit);
    const log = (await this.redis.lrange(`${this.p}wh:attempts:${webhook}`, 0, -1)).map(
      (r) => JSON.parse(r) as AttemptLog,
    );
    return chosen.map((s) => ({ ...s, attemptLog: log.filter((a) => a.eventId === s.eventId) }));
  }

  /** Queues an event again for a webhook (at the end of its chain). Undefined when the event is gone. */
  async redeliver(webhook: string, eventId: string): Promise<DeliveryState | undefined> {
    const e = await this.events.get(eventId);
    if (!e) return undefined;
    const s: DeliveryState = {
      eventId,
      party: e.party,
      state: 'pending',
      attempts: 0,
      queuedAt: new Date().toISOString(),
    };
    await this.setState(webhook, s);
    await this.redis.rpush(this.chainKey(webhook, e.party), eventId);
    await this.redis.sadd(`${this.p}wh:chains`, `${webhook}|${e.party}`);
    await this.kick({ webhook, party: e.party });
    return s;
  }

  /** Forgets a deleted webhook's chains and log. */
  async forget(webhook: string): Promise<void> {
    const members = (await this.redis.smembers(`${this.p}wh:chains`)).filter((m) =>
      m.startsWith(`${webhook}|`),
    );
    for (const m of members) {
      await this.redis.del(this.chainKey(webhook, m.slice(webhook.length + 1)));
      await this.redis.srem(`${this.p}wh:chains`, m);
    }
    await this.redis.del(`${this.p}wh:dlv:${webhook}`, `${this.p}wh:attempts:${webhook}`);
  }

  /** Exponential backoff with full jitter between base and the cap. */
  backoff(attempt: number): number {
    const exp = Math.min(
      this.config.retryMaxDelayMs,
      this.config.retryBaseMs * 2 ** Math.min(30, attempt - 1),
    );
    return Math.max(1, Math.floor(exp / 2 + randomInt(0, Math.max(1, Math.floor(exp / 2)) + 1)));
  }

  /** Sends one event to one webhook: the HTTP status (null: no answer) and the error, if any. */
  async send(
    url: string,
    secrets: string[],
    webhook: string,
    e: QuillEvent,
  ): Promise<{ statusCode: number | null; error: string | null; latencyMs: number }> {
    const started = performance.now();
    const problem = await checkTarget(url, this.config.allowPrivateTargets);
    if (problem) return { statusCode: null, error: problem, latencyMs: 0 };
    const body = JSON.stringify({
      eventId: e.id,
      webhookId: webhook,
      type: e.type,
      party: e.party,
      at: e.at,
      body: e.body,
    });
    const t = Math.floor(Date.now() / 1000);
    try {
      const res = await fetch(url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.config.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'quill-webhooks/1',
          'quill-event-id': e.id,
          'quill-event-type': e.type,
          'quill-signature': signatureHeader(secrets, t, body),
        },
        body,
      });
      await res.arrayBuffer().catch(() => undefined);
      const latencyMs = Math.round(performance.now() - started);
      return res.status >= 200 && res.status < 300
        ? { statusCode: res.status, error: null, latencyMs }
        : { statusCode: res.status, error: `HTTP ${res.status}`, latencyMs };
    } catch (err) {
      const latencyMs = Math.round(performance.now() - started);
      const name = (err as Error).name;
      return {
        statusCode: null,
        error: name === 'TimeoutError' ? 'TIMEOUT' : 'CONNECTION_FAILED',
        latencyMs,
      };
    }
  }

  /**
   * Delivers a chain's events in order until it is empty or its head must wait (then the job is delayed by the
   * backoff of that head's attempts).
   */
  async drain(job: Job<ChainJob>, token: string | undefined): Promise<void> {
    const { webhook, party } = job.data;
    const key = this.chainKey(webhook, party);
    for (;;) {
      const head = await this.redis.lindex(key, 0);
      if (head === null) return;
      const hook = await this.hooks.signing(webhook);
      if (!hook) {
        await this.forget(webhook);
        return;
      }
      const now = new Date();
      const s: DeliveryState = (await this.state(webhook, head)) ?? {
        eventId: head,
        party,
        state: 'pending',
        attempts: 0,
        queuedAt: now.toISOString(),
      };
      const e = await this.events.get(head);
      if (!e) {
        await this.setState(webhook, { ...s, state: 'dead', lastError: 'EVENT_EXPIRED' });
        await runScript(this.redis, POP_IF, [key], [head]);
        continue;
      }
      const r = await this.send(hook.webhook.url, hook.secrets, webhook, e);
      const attempt = s.attempts + 1;
      const entry: AttemptLog = { eventId: head, attempt, at: now.toISOString(), ...r };
      await this.redis
        .multi()
        .lpush(`${this.p}wh:attempts:${webhook}`, JSON.stringify(entry))
        .ltrim(`${this.p}wh:attempts:${webhook}`, 0, ATTEMPT_LOG_MAX - 1)
        .exec();
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
        await this.setState(webhook, { ...next, state: 'delivered' });
        await runScript(this.redis, POP_IF, [key], [head]);
        continue;
      }
      if (Date.now() - Date.parse(next.firstAttemptAt as string) >= this.config.retryForMs) {
        await this.setState(webhook, { ...next, state: 'dead' });
        await this.redis.rpush(`${this.p}wh:dead:${webhook}`, head);
        await runScript(this.redis, POP_IF, [key], [head]);
        this.log?.('warn', 'webhook delivery dead-lettered', { webhook, eventId: head, error: r.error });
        continue;
      }
      const at = Date.now() + this.backoff(attempt);
      await this.setState(webhook, { ...next, nextAttemptAt: new Date(at).toISOString() });
      await job.moveToDelayed(at, token);
      throw new DelayedError();
    }
  }

  async close(): Promise<void> {
    await this.queue.close().catch(() => {});
  }
}

export interface DeliveryRunner {
  stop(): Promise<void>;
}

/** The worker side: the dispatcher loop, the sweep and the BullMQ worker that drains chains. */
export function startDelivery(
  d: Deliveries,
  o: {
    connection: Redis;
    reader: Redis;
    sweepEveryMs?: number;
    pollMs?: number;
    lockDurationMs?: number;
    /** Where the worker's own errors (its Redis connection failing) go instead of one warning each. */
    onError?: (err: Error) => void;
  },
): DeliveryRunner {
  let stopped = false;
  const pollMs = o.pollMs ?? 1000;
  const worker = new Worker<ChainJob>('webhooks', (job, token) => d.drain(job, token), {
    connection: o.connection,
    prefix: `${d.p}bull`,
    concurrency: d.config.concurrency,
    lockDuration: o.lockDurationMs ?? Math.max(30_000, d.config.timeoutMs * 3),
    stalledInterval: Math.min(30_000, o.lockDurationMs ?? 30_000),
    maxStalledCount: 1_000_000,
    removeOnComplete: { count: 0 },
    removeOnFail: { count: 0 },
  });
  worker.on('error', o.onError ?? ((err) => d.log?.('warn', `webhook worker: ${err.message}`)));
  const dispatching = (async () => {
    while (!stopped) {
      try {
        await d.dispatch(200, { ms: pollMs, via: o.reader });
      } catch (err) {
        if (stopped) break;
        d.log?.('warn', `webhook dispatcher: ${(err as Error).message}`);
        await new Promise((r) => setTimeout(r, pollMs));
      }
    }
  })();
  const timer = setInterval(() => {
    d.sweep().catch(() => {});
  }, o.sweepEveryMs ?? 5000);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      o.reader.disconnect();
      await dispatching;
      await worker.close();
      o.connection.disconnect();
    },
  };
}
