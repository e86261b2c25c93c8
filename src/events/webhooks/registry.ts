// Webhook subscriptions in Redis (one hash `<prefix>webhooks`, id → JSON), with their signing secrets. The
// secret leaves only in the answer to create and rotate; a rotation keeps the previous secret valid (and signed
// with) until its grace period ends.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisKeys } from '../../redis/keys.ts';
import { WebhookError } from '../errors.ts';
import type { EventType } from '../log.ts';

export interface Webhook {
  id: string;
  url: string;
  /** Empty: every type. */
  types: EventType[];
  /** Only this party's events (null: every party). */
  party: string | null;
  description: string | null;
  createdAt: string;
  secretRotatedAt: string | null;
  /** Until when the previous secret still signs (null: no rotation in grace). */
  previousSecretValidUntil: string | null;
}

interface Stored extends Webhook {
  secret: string;
  previousSecret: string | null;
}

const unavailable = (err: unknown): never => {
  throw new WebhookError('UNAVAILABLE', 'Redis is unavailable', { cause: err });
};

export const WEBHOOK_ID = /^wh_[A-Za-z0-9_-]{16,40}$/;

function view(s: Stored): Webhook {
  const { secret: _s, previousSecret: _p, ...rest } = s;
  return rest;
}

export class WebhookRegistry {
  readonly key: string;
  constructor(
    readonly redis: Redis,
    prefix: string,
  ) {
    this.key = redisKeys(prefix).webhooks;
  }

  private async stored(id: string): Promise<Stored | undefined> {
    if (!WEBHOOK_ID.test(id)) return undefined;
    const raw = await this.redis.hget(this.key, id).catch(unavailable);
    return raw ? (JSON.parse(raw) as Stored) : undefined;
  }

  async create(input: {
    url: string;
    types: EventType[];
    party: string | null;
    description: string | null;
  }): Promise<{ webhook: Webhook; secret: string }> {
    const s: Stored = {
      id: `wh_${randomBytes(16).toString('base64url')}`,
      ...input,
      createdAt: new Date().toISOString(),
      secretRotatedAt: null,
      previousSecretValidUntil: null,
      secret: newSecret(),
      previousSecret: null,
    };
    await this.redis.hset(this.key, s.id, JSON.stringify(s)).catch(unavailable);
    return { webhook: view(s), secret: s.secret };
  }

  async get(id: string): Promise<Webhook | undefined> {
    const s = await this.stored(id);
    return s && view(s);
  }

  async list(): Promise<Webhook[]> {
    const all = await this.redis.hvals(this.key).catch(unavailable);
    return all
      .map((r) => view(JSON.parse(r) as Stored))
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Every webhook with the secrets that sign at `now`, in no order (the dispatcher, dispatch.ts). */
  async listSigning(now = Date.now()): Promise<Signing[]> {
    const all = await this.redis.hvals(this.key).catch(unavailable);
    return all.map((r) => signingFrom(r, now));
  }

  async delete(id: string): Promise<boolean> {
    if (!WEBHOOK_ID.test(id)) return false;
    return (await this.redis.hdel(this.key, id).catch(unavailable)) === 1;
  }

  /** A new secret; the current one keeps signing for `graceMs` (0: it stops at once). */
  async rotate(id: string, graceMs: number, now = Date.now()): Promise<{ webhook: Webhook; secret: string }> {
    const s = await this.stored(id);
    if (!s) throw new WebhookError('NOT_FOUND', 'no such webhook');
    const next: Stored = {
      ...s,
      secret: newSecret(),
      previousSecret: graceMs > 0 ? s.secret : null,
      previousSecretValidUntil: graceMs > 0 ? new Date(now + graceMs).toISOString() : null,
      secretRotatedAt: new Date(now).toISOString(),
    };
    await this.redis.hset(this.key, id, JSON.stringify(next)).catch(unavailable);
    return { webhook: view(next), secret: next.secret };
  }
}

/** A webhook with the secrets that sign its deliveries. */
export interface Signing {
  webhook: Webhook;
  secrets: string[];
}

/**
 * The webhook and the secrets that sign at `now` (current first, then the previous one while in grace), from its
 * stored JSON as the delivery scripts read it with a chain's head (deliveries.ts).
 */
export function signingFrom(raw: string, now: number): Signing {
  const s = JSON.parse(raw) as Stored;
  const secrets = [s.secret];
  if (s.previousSecret && s.previousSecretValidUntil && Date.parse(s.previousSecretValidUntil) > now)
    secrets.push(s.previousSecret);
  return { webhook: view(s), secrets };
}

function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
