// A Redis lease: at most one holder of a named key at a time, kept alive by renewal and taken over by another
// process once the holder stops renewing (it died or lost Redis): the watcher's "exactly one active", and the
// leader of once-per-deployment work.
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';

import { loadScript, runScript } from './scripts.ts';

const RENEW = loadScript('lease-renew');
const RELEASE = loadScript('lease-release');

export interface LeaseOptions {
  /** How long the lease lives without renewal (ms). Renewed every third of it. */
  ttlMs: number;
  /** A label stored with the token (process id, host); for operators reading Redis. */
  owner?: string;
}

export class Lease {
  readonly token: string;
  #held = false;
  #timer: NodeJS.Timeout | undefined;
  #lost: (() => void)[] = [];

  constructor(
    private readonly redis: Redis,
    readonly key: string,
    private readonly opts: LeaseOptions,
  ) {
    if (!Number.isSafeInteger(opts.ttlMs) || opts.ttlMs < 100)
      throw new RangeError('lease ttlMs must be >= 100');
    this.token = `${opts.owner ?? process.pid}:${randomBytes(9).toString('base64url')}`;
  }

  get held(): boolean {
    return this.#held;
  }

  /** Takes the lease when nobody holds it; true when this process now holds it (and keeps renewing it). */
  async acquire(): Promise<boolean> {
    if (this.#held) return true;
    const ok = await this.redis.set(this.key, this.token, 'PX', this.opts.ttlMs, 'NX');
    if (ok !== 'OK') return false;
    this.#held = true;
    this.#timer = setInterval(() => void this.renew(), Math.max(30, Math.floor(this.opts.ttlMs / 3)));
    this.#timer.unref();
    return true;
  }

  /** Extends the lease; false (and the `onLost` callbacks run) when another process holds it now. */
  async renew(): Promise<boolean> {
    if (!this.#held) return false;
    let ok = false;
    try {
      ok = (await runScript(this.redis, RENEW, [this.key], [this.token, String(this.opts.ttlMs)])) === 1;
    } catch {
      // Redis unreachable: the lease may expire under us; stop acting as holder to never have two.
      ok = false;
    }
    if (!ok) this.#drop();
    return ok;
  }

  /** Gives the lease up (only if still ours), so another process can take it at once. */
  async release(): Promise<void> {
    const was = this.#held;
    this.#stop();
    this.#held = false;
    if (was) await runScript(this.redis, RELEASE, [this.key], [this.token]).catch(() => {});
  }

  /** Called once each time the lease is lost (renewal failed or another holder took it). */
  onLost(fn: () => void): void {
    this.#lost.push(fn);
  }

  #stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #drop(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#stop();
    for (const fn of this.#lost) fn();
  }
}

/** Who holds the lease at `key` (its holder's label, without the token's secret part) and its time left. */
export async function leaseHolder(
  redis: Redis,
  key: string,
): Promise<{ holder: string; ttlMs: number } | null> {
  const [value, ttl] = await Promise.all([redis.get(key), redis.pttl(key)]);
  if (value === null) return null;
  const at = value.lastIndexOf(':');
  return { holder: at > 0 ? value.slice(0, at) : value, ttlMs: Math.max(0, ttl) };
}
