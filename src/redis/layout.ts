// The layout of everything Quill keeps under REDIS_PREFIX carries a version (`<prefix>layout`). At start, before
// anything else reads or writes, a process brings the layout up to this release's version by running the
// migrations in order, under a lock so that processes starting together run each once; after each migration the
// version is stored, so a crash part-way resumes at the next one. Migrations are written to be run again safely.
// A layout newer than this release (Redis written by a later Quill) is refused: that release may store what this
// one would misread or lose. Records also carry their own schema version (submissions/store/stored.ts).
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { redisFailed, StoreError } from './errors.ts';
import { redisKeys } from './keys.ts';

/** The layout this release reads and writes. */
export const LAYOUT_VERSION = 1;

export interface Migration {
  /** The version the layout has once it ran. */
  to: number;
  name: string;
  /** Idempotent: it may have run (in part) before a crash. */
  run(redis: Redis, prefix: string): Promise<void>;
}

/** From the previous layout to this one, in order (version 1 is the first versioned layout: nothing to do). */
export const MIGRATIONS: readonly Migration[] = [];

export class LayoutError extends Error {
  override readonly name = 'LayoutError';
  constructor(
    readonly code: 'DOWNGRADE' | 'LOCKED' | 'UNREADABLE',
    message: string,
  ) {
    super(message);
  }
}

export interface MigrateOptions {
  /** This release's version and migrations (tests pass their own). */
  version?: number;
  migrations?: readonly Migration[];
  /** How long the lock lives without its holder (a crashed one), and how long another process waits for it. */
  lockMs?: number;
  waitMs?: number;
  log?: (msg: string, fields: Record<string, unknown>) => void;
  /** Keep trying while Redis does not answer (every `everyMs`), until `signal` aborts; else fail at once. */
  retry?: { signal: AbortSignal; everyMs?: number };
}

export interface MigrateResult {
  from: number;
  to: number;
  applied: string[];
}

const RELEASE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** Brings the layout under `prefix` to this release's version, or refuses a newer one. */
export async function migrateLayout(
  redis: Redis,
  prefix: string,
  o: MigrateOptions = {},
): Promise<MigrateResult> {
  for (;;) {
    try {
      return await migrateOnce(redis, prefix, o);
    } catch (err) {
      const unavailable = err instanceof StoreError && err.code === 'UNAVAILABLE';
      if (!unavailable || !o.retry || o.retry.signal.aborted) throw err;
      await new Promise((done) => setTimeout(done, o.retry?.everyMs ?? 1000));
      if (o.retry.signal.aborted) throw err;
    }
  }
}

async function migrateOnce(redis: Redis, prefix: string, o: MigrateOptions = {}): Promise<MigrateResult> {
  const version = o.version ?? LAYOUT_VERSION;
  const migrations = [...(o.migrations ?? MIGRATIONS)].sort((a, b) => a.to - b.to);
  const keys = redisKeys(prefix);
  const lockMs = o.lockMs ?? 60_000;
  const holder = randomUUID();
  const deadline = Date.now() + (o.waitMs ?? lockMs + 5_000);
  // Redis failing is UNAVAILABLE (a StoreError); a migration's own failure propagates as it is.
  const r = <T>(p: Promise<T>): Promise<T> =>
    p.catch((err: unknown) => {
      if (err instanceof LayoutError) throw err;
      return redisFailed(err);
    });
  for (;;) {
    const stored = await r(storedVersion(redis, prefix));
    if (stored !== undefined && stored > version) throw newer(keys.prefix, stored, version);
    if (stored === version) return { from: stored, to: version, applied: [] };
    if (await r(redis.set(keys.layoutLock, holder, 'PX', lockMs, 'NX'))) break;
    if (Date.now() > deadline)
      throw new LayoutError(
        'LOCKED',
        `another process has held the layout migration lock (${keys.layoutLock}) for too long; if none runs, delete that key`,
      );
    await new Promise((done) => setTimeout(done, 200));
  }
  try {
    // Read again under the lock: another process may have finished meanwhile.
    const from = (await r(storedVersion(redis, prefix))) ?? ((await r(hasData(redis, prefix))) ? 1 : version);
    if (from > version) throw newer(keys.prefix, from, version);
    const applied: string[] = [];
    for (const m of migrations) {
      if (m.to <= from || m.to > version) continue;
      o.log?.('layout migration', { name: m.name, to: m.to });
      await m.run(redis, prefix);
      await r(redis.set(keys.layout, String(m.to)));
      applied.push(m.name);
    }
    await r(redis.set(keys.layout, String(version)));
    return { from, to: version, applied };
  } finally {
    await redis.eval(RELEASE, 1, keys.layoutLock, holder).catch(() => {
      // Redis gone: the lock expires by itself after lockMs.
    });
  }
}

function newer(prefix: string, stored: number, version: number): LayoutError {
  return new LayoutError(
    'DOWNGRADE',
    `Redis under prefix ${prefix} has layout ${stored}, written by a newer Quill; this release reads layout ${version}: run that release (or newer), or restore a backup taken before it`,
  );
}

/** The stored layout version; undefined when none is stored (a new deployment, or one from before versions). */
export async function storedVersion(redis: Redis, prefix: string): Promise<number | undefined> {
  const raw = await redis.get(redisKeys(prefix).layout);
  if (raw === null) return undefined;
  if (!/^\d{1,9}$/.test(raw))
    throw new LayoutError(
      'UNREADABLE',
      `${redisKeys(prefix).layout} holds ${JSON.stringify(raw.slice(0, 40))}, not a layout version`,
    );
  return Number(raw);
}

/** Whether anything was stored before layouts had versions: a record sequence, an audit chain, a policy. */
async function hasData(redis: Redis, prefix: string): Promise<boolean> {
  const k = redisKeys(prefix);
  return (await redis.exists(k.sequence, k.audit, k.policySequence, k.outbox)) > 0;
}
