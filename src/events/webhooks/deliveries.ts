// Webhook deliveries in Redis: per webhook and party a chain (`wh:chain:<webhook>:<party>`, the event ids still to
// deliver, in order) and a delivery state per event, the attempts log, dead letters, and the BullMQ queue with one
// job per chain (dispatch.ts fills the chains, drain.ts empties them). A sweep re-adds a job for every non-empty
// chain, so a job lost with Redis or skipped as a duplicate id is made up.
import { createHash } from 'node:crypto';
import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Log } from '../../log.ts';
import { type RedisKeys, redisKeys } from '../../redis/keys.ts';
import { loadScript, runScript } from '../../redis/scripts.ts';
import { decodeEntry, type EventLog, type QuillEvent } from '../log.ts';
import { type Connections, connections } from './connections.ts';
import { type Signing, signingFrom, type WebhookRegistry } from './registry.ts';
import type { PrivateTargets, Resolve } from './targets.ts';

export interface DeliveryConfig {
  allowPrivateTargets: PrivateTargets;
  timeoutMs: number;
  retryBaseMs: number;
  retryMaxDelayMs: number;
  retryForMs: number;
  concurrency: number;
  /** How a target's name is resolved (absent: the system resolver); tests inject a rebinding one. */
  resolve?: Resolve;
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

/** A chain's head with what its delivery step reads. */
export interface ChainHead {
  id: string;
  /** Undefined: the webhook was deleted. */
  hook: Signing | undefined;
  /** Undefined: not attempted yet. */
  state: DeliveryState | undefined;
  /** Undefined: the event left the event log (retention). */
  event: QuillEvent | undefined;
}

/** The job that delivers one chain. */
export interface ChainJob {
  webhook: string;
  party: string;
}

/** The queue of chain jobs (its workers: drain.ts). */
export const WEBHOOK_QUEUE = 'webhooks';
export const ATTEMPT_LOG_MAX = 1000;

const PRUNE = loadScript('webhook-prune');
const SETTLE = loadScript('webhook-settle');
const HEAD = loadScript('webhook-head');

type RawHead = [string, string | null, string | null, [string, string[]] | null] | null;

/** A chain head as the scripts answer it (the "chain-head" include). */
function chainHead(raw: RawHead): ChainHead | null {
  if (!raw) return null;
  const [id, hook, state, entry] = raw;
  return {
    id,
    hook: hook ? signingFrom(hook, Date.now()) : undefined,
    state: state ? (JSON.parse(state) as DeliveryState) : undefined,
    event: entry ? decodeEntry(entry[0], entry[1]) : undefined,
  };
}

/** What became of the delivery attempts of this process (src/events/metrics.ts counts them on /metrics). */
export interface DeliveryOutcomes {
  /** Answered 2xx. */
  delivered: number;
  /** Failed and to be retried. */
  failed: number;
  /** Dead-lettered after retrying for retryForMs. */
  dead: number;
  /** Dropped because the event left the event log (retention) before it was delivered. */
  expired: number;
}

/**
 * The chains whose job in this process is delivering or looking for new events, each with a wake-up: the
 * dispatcher of this process wakes a looking job when it appends to its chain, instead of the job asking Redis
 * every few milliseconds (it asked 13 times per transaction at 60 submissions/s). A wake-up that comes while the
 * job is delivering is kept for its next wait. When the dispatcher's append made an event the chain's head, it
 * hands that head over with the wake-up: the job delivers it without reading the chain again (two round trips
 * per transaction at 100 submissions/s).
 */
export class Draining {
  private readonly chains = new Map<
    string,
    { woken: boolean; wake: (() => void) | undefined; handed: ChainHead | undefined; settled?: string }
  >();

  enter(chain: string): void {
    if (!this.chains.has(chain)) this.chains.set(chain, { woken: false, wake: undefined, handed: undefined });
  }

  leave(chain: string): void {
    this.chains.get(chain)?.wake?.();
    this.chains.delete(chain);
  }

  /**
   * Wakes the chain's job; false when no job of this process is on it (then it needs a kick). `head`: the event
   * the caller's append made the chain's head, with what its delivery step reads.
   */
  wake(chain: string, head?: ChainHead): boolean {
    const c = this.chains.get(chain);
    if (!c) return false;
    c.woken = true;
    if (head && head.id !== c.settled) c.handed = head;
    c.wake?.();
    return true;
  }

  wakeAll(): void {
    for (const chain of this.chains.keys()) this.wake(chain);
  }

  /**
   * The job removed this event from the chain: a head handed over for it is spent, whether the wake-up that
   * handed it came before or after (the job may have read the event from the chain itself).
   */
  settled(chain: string, eventId: string): void {
    const c = this.chains.get(chain);
    if (!c) return;
    c.settled = eventId;
    if (c.handed?.id === eventId) c.handed = undefined;
  }

  /**
   * Resolves once the chain is woken (or was since the last wait), or after `ms`: with the head handed over
   * since the last wait, if any (then the job need not read the chain).
   */
  wait(chain: string, ms: number): Promise<ChainHead | undefined> {
    const c = this.chains.get(chain);
    // Not entered (another job of the chain left it): a plain pause, never a loop that does not wait.
    if (!c) return new Promise((resolve) => setTimeout(() => resolve(undefined), ms));
    const take = () => {
      const head = c.handed;
      c.handed = undefined;
      c.woken = false;
      return head;
    };
    if (c.woken) return Promise.resolve(take());
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        c.wake = undefined;
        resolve(take());
      };
      const timer = setTimeout(done, ms);
      c.wake = done;
    });
  }
}

export class Deliveries {
  readonly keys: RedisKeys;
  readonly queue: Queue<ChainJob>;
  readonly outcomes: DeliveryOutcomes = { delivered: 0, failed: 0, dead: 0, expired: 0 };
  /** Chains whose job in this process is delivering or looking for new events (drain.ts): woken, not kicked. */
  readonly draining = new Draining();
  /** Set when delivery stops: a job looking for new events ends at once. */
  closing = false;
  /** Kept-alive sockets to the targets, pooled by checked addresses (connections.ts). */
  readonly connections: Connections = connections();
  constructor(
    readonly redis: Redis,
    bull: Redis,
    prefix: string,
    readonly events: EventLog,
    readonly hooks: WebhookRegistry,
    readonly config: DeliveryConfig,
    readonly log?: Log,
  ) {
    this.keys = redisKeys(prefix);
    this.queue = new Queue<ChainJob>(WEBHOOK_QUEUE, {
      connection: bull,
      prefix: this.keys.bull,
      defaultJobOptions: {
        attempts: 1_000_000,
        backoff: { type: 'fixed', delay: 1000 },
        removeOnComplete: true,
        removeOnFail: true,
      },
    });
    this.queue.on('error', () => {});
  }

  private jobId(c: ChainJob): string {
    return `ch-${createHash('sha1').update(`${c.webhook}|${c.party}`).digest('hex')}`;
  }

  /** Makes sure a job will drain the chain (one job per chain: a second add is a no-op). */
  async kick(c: ChainJob): Promise<void> {
    await this.queue.add('deliver', c, { jobId: this.jobId(c) });
  }

  /** Adds a job for every chain that has events waiting. */
  async sweep(): Promise<number> {
    const members = await this.redis.smembers(this.keys.webhookChains);
    let n = 0;
    for (const m of members) {
      const i = m.indexOf('|');
      const c = { webhook: m.slice(0, i), party: m.slice(i + 1) };
      if ((await this.redis.llen(this.keys.webhookChain(c.webhook, c.party))) > 0) {
        await this.kick(c);
        n++;
      }
    }
    return n;
  }

  /** How many of the webhook's deliveries were dead-lettered (and not redelivered since). */
  async deadCount(webhook: string): Promise<number> {
    return this.redis.llen(this.keys.webhookDead(webhook));
  }

  async state(webhook: string, eventId: string): Promise<DeliveryState | undefined> {
    const raw = await this.redis.hget(this.keys.webhookDeliveries(webhook), eventId);
    return raw ? (JSON.parse(raw) as DeliveryState) : undefined;
  }

  async setState(webhook: string, s: DeliveryState): Promise<void> {
    await this.redis.hset(this.keys.webhookDeliveries(webhook), s.eventId, JSON.stringify(s));
  }

  /**
   * Writes a chain head's new state with, in the same step, its attempt (the newest ATTEMPT_LOG_MAX are kept), a
   * dead letter, and the head's removal when `pop` (only while it is still this event). Returns the chain's head
   * afterwards, read in the same step with its webhook, state and event (null: empty).
   */
  async settle(
    webhook: string,
    party: string,
    s: DeliveryState,
    o: { attempt?: AttemptLog; pop: boolean; dead?: boolean },
  ): Promise<ChainHead | null> {
    const k = this.keys;
    const next = (await runScript(
      this.redis,
      SETTLE,
      [
        k.webhookChain(webhook, party),
        k.webhookDeliveries(webhook),
        k.webhookAttempts(webhook),
        k.webhookDead(webhook),
        this.hooks.key,
        this.events.key,
      ],
      [
        s.eventId,
        JSON.stringify(s),
        o.attempt ? JSON.stringify(o.attempt) : '',
        ATTEMPT_LOG_MAX,
        o.pop ? '1' : '0',
        o.dead ? '1' : '0',
        webhook,
      ],
    )) as RawHead;
    return chainHead(next);
  }

  /** The chain's head with its webhook, state and event, in one round trip (null: the chain is empty). */
  async peek(webhook: string, party: string): Promise<ChainHead | null> {
    const k = this.keys;
    const raw = await runScript(
      this.redis,
      HEAD,
      [k.webhookChain(webhook, party), k.webhookDeliveries(webhook), this.hooks.key, this.events.key],
      [webhook],
    );
    return chainHead(raw as RawHead);
  }

  /** Notes one attempt in the webhook's attempts log (the newest ATTEMPT_LOG_MAX are kept). */
  async noteAttempt(webhook: string, entry: AttemptLog): Promise<void> {
    const key = this.keys.webhookAttempts(webhook);
    await this.redis
      .multi()
      .lpush(key, JSON.stringify(entry))
      .ltrim(key, 0, ATTEMPT_LOG_MAX - 1)
      .exec();
  }

  /** Newest first (by event id), at most `limit`, each with its attempts (newest first). */
  async list(webhook: string, limit: number): Promise<(DeliveryState & { attemptLog: AttemptLog[] })[]> {
    const all = Object.values(await this.redis.hgetall(this.keys.webhookDeliveries(webhook))).map(
      (r) => JSON.parse(r) as DeliveryState,
    );
    all.sort((a, b) => (a.eventId < b.eventId ? 1 : -1));
    const chosen = all.slice(0, limit);
    const log = (await this.redis.lrange(this.keys.webhookAttempts(webhook), 0, -1)).map(
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
    // No longer a dead letter: the count operators see (deadCount) drops.
    await this.redis.lrem(this.keys.webhookDead(webhook), 0, eventId);
    await this.redis.rpush(this.keys.webhookChain(webhook, e.party), eventId);
    await this.redis.sadd(this.keys.webhookChains, `${webhook}|${e.party}`);
    await this.kick({ webhook, party: e.party });
    return s;
  }

  /**
   * Removes the delivery states that ended (delivered or dead) before `cutoffMs`, with their dead letters and
   * attempts (WEBHOOK_RETENTION_HOURS), for every webhook; pending ones stay whatever their age. Returns how many
   * states went. Safe to run twice or side by side: the script checks each state again when it removes it.
   */
  async prune(cutoffMs: number): Promise<number> {
    const cutoff = new Date(cutoffMs).toISOString();
    let n = 0;
    for (const hook of await this.hooks.list()) {
      const states = this.keys.webhookDeliveries(hook.id);
      let cursor = '0';
      do {
        // A page of about 100: the scan and the script for it each hold Redis about a millisecond (500 held
        // it 2–12 ms at 200 submissions/s, and every accept waiting behind it felt that).
        const [next, flat] = await this.redis.hscan(states, cursor, 'COUNT', 100);
        cursor = next;
        const past: string[] = [];
        for (let i = 0; i + 1 < flat.length; i += 2) {
          const id = flat[i] as string;
          // An event id starts with the time it was written, before any attempt: a newer one cannot be past.
          if (Number(id.slice(0, id.indexOf('-'))) >= cutoffMs) continue;
          const s = JSON.parse(flat[i + 1] as string) as DeliveryState;
          if (s.state !== 'pending' && (s.lastAttemptAt ?? s.queuedAt) < cutoff) past.push(id);
        }
        // The attempts log is swept once a pass, at its last page (whether or not a state went).
        const last = cursor === '0';
        if (past.length > 0 || last) {
          const keys = [states, this.keys.webhookAttempts(hook.id), this.keys.webhookDead(hook.id)];
          n += Number(await runScript(this.redis, PRUNE, keys, [cutoff, last ? '1' : '0', ...past]));
        }
      } while (cursor !== '0');
    }
    return n;
  }

  /** Forgets a deleted webhook's chains and log. */
  async forget(webhook: string): Promise<void> {
    const members = (await this.redis.smembers(this.keys.webhookChains)).filter((m) =>
      m.startsWith(`${webhook}|`),
    );
    for (const m of members) {
      await this.redis.del(this.keys.webhookChain(webhook, m.slice(webhook.length + 1)));
      await this.redis.srem(this.keys.webhookChains, m);
    }
    await this.redis.del(
      this.keys.webhookDeliveries(webhook),
      this.keys.webhookAttempts(webhook),
      this.keys.webhookDead(webhook),
    );
  }

  async close(): Promise<void> {
    this.closing = true;
    this.draining.wakeAll();
    this.connections.close();
    await this.queue.close().catch(() => {});
  }
}
