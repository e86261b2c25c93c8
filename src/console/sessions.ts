// Console sessions, server-side in Redis: the cookie holds a random id, Redis holds its SHA-256 (a dump of Redis
// holds no usable cookie). Idle timeout by key expiry, absolute timeout by the creation time; a CSRF token each.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Principal } from '../auth/index.ts';
import { type RedisKeys, redisKeys } from '../redis/index.ts';

export interface Session {
  principal: Principal;
  csrf: string;
  createdAt: number;
  /** How the operator signed in: `link` or `oidc`. */
  via: 'link' | 'oidc';
}

export interface SessionLimits {
  idleMs: number;
  absoluteMs: number;
}

const digest = (id: string) => createHash('sha256').update(id).digest('hex');

export class SessionStore {
  readonly #keys: RedisKeys;
  constructor(
    private readonly redis: Redis,
    prefix: string,
    readonly limits: SessionLimits,
  ) {
    this.#keys = redisKeys(prefix);
  }

  private key(id: string): string {
    return this.#keys.consoleSession(digest(id));
  }

  /** A new session; returns the id the cookie carries. */
  async create(principal: Principal, via: Session['via']): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    const session: Session = {
      principal,
      csrf: randomBytes(24).toString('base64url'),
      createdAt: Date.now(),
      via,
    };
    await this.redis.set(this.key(id), JSON.stringify(session), 'PX', this.limits.idleMs);
    return id;
  }

  /** The live session for a cookie value, its idle timer restarted; undefined when unknown or past a timeout. */
  async get(id: string | undefined): Promise<Session | undefined> {
    if (!id || id.length > 100) return undefined;
    const key = this.key(id);
    const raw = await this.redis.get(key);
    if (!raw) return undefined;
    const session = JSON.parse(raw) as Session;
    const left = session.createdAt + this.limits.absoluteMs - Date.now();
    if (left <= 0) {
      await this.redis.del(key);
      return undefined;
    }
    await this.redis.pexpire(key, Math.min(this.limits.idleMs, left));
    return session;
  }

  async destroy(id: string | undefined): Promise<void> {
    if (id && id.length <= 100) await this.redis.del(this.key(id));
  }
}

/** Constant-time comparison of a submitted CSRF token with the session's. */
export function csrfMatches(session: Session, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(session.csrf);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
