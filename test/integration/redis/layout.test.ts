// The stored layout's version (src/redis/layout.ts) on a real Redis: a new deployment starts at this release's
// version; data from before versions is layout 1 and is migrated in order; a crash part-way resumes at the next
// migration; processes starting together run each migration once; a newer layout (a downgrade) is refused, and
// `quill serve` says so in one line and exits 1 before touching anything.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import {
  LAYOUT_VERSION,
  LayoutError,
  type Migration,
  migrateLayout,
  redisKeys,
  storedVersion,
} from '../../../src/redis/index.ts';
import { conn } from '../../support/events.ts';

const redis = conn();
afterAll(() => redis.disconnect());
const fresh = () => `layout-${randomBytes(4).toString('hex')}`;

/** Migrations to versions 2 and 3 that count their runs (in Redis, as a real one would change it). */
function counted(prefix: string, failFirst3 = false): Migration[] {
  let failed = false;
  return [2, 3].map((to) => ({
    to,
    name: `to-${to}`,
    async run(r) {
      await r.incr(`${prefix}:ran:${to}`);
      if (to === 3 && failFirst3 && !failed) {
        failed = true;
        throw new Error('crash in migration 3');
      }
    },
  }));
}

describe('layout versions', () => {
  it('a new deployment starts at the current version with nothing to migrate', async () => {
    const prefix = fresh();
    expect(await migrateLayout(redis, prefix)).toEqual({
      from: LAYOUT_VERSION,
      to: LAYOUT_VERSION,
      applied: [],
    });
    expect(await storedVersion(redis, prefix)).toBe(LAYOUT_VERSION);
  });

  it('data from before versions is layout 1: migrated in order, once, and resumed after a crash', async () => {
    const prefix = fresh();
    await redis.set(redisKeys(prefix).sequence, '41');
    const migrations = counted(prefix, true);
    await expect(migrateLayout(redis, prefix, { version: 3, migrations })).rejects.toThrow(
      'crash in migration 3',
    );
    expect(await storedVersion(redis, prefix)).toBe(2);
    expect(await migrateLayout(redis, prefix, { version: 3, migrations })).toEqual({
      from: 2,
      to: 3,
      applied: ['to-3'],
    });
    expect(await migrateLayout(redis, prefix, { version: 3, migrations })).toEqual({
      from: 3,
      to: 3,
      applied: [],
    });
    expect([await redis.get(`${prefix}:ran:2`), await redis.get(`${prefix}:ran:3`)]).toEqual(['1', '2']);
    // The lock is released after each run.
    expect(await redis.exists(redisKeys(prefix).layoutLock)).toBe(0);
  });

  it('processes starting together run each migration once', async () => {
    const prefix = fresh();
    await redis.set(redisKeys(prefix).sequence, '1');
    const migrations: Migration[] = [
      {
        to: 2,
        name: 'slow',
        async run(r) {
          await r.incr(`${prefix}:ran`);
          await new Promise((done) => setTimeout(done, 300));
        },
      },
    ];
    const results = await Promise.all(
      Array.from({ length: 5 }, () => migrateLayout(redis, prefix, { version: 2, migrations })),
    );
    expect(await redis.get(`${prefix}:ran`)).toBe('1');
    expect(results.flatMap((r) => r.applied)).toEqual(['slow']);
    expect(await storedVersion(redis, prefix)).toBe(2);
  });

  it('refuses a layout newer than this release, and one it cannot read', async () => {
    const prefix = fresh();
    await redis.set(redisKeys(prefix).layout, String(LAYOUT_VERSION + 1));
    const refused = await migrateLayout(redis, prefix).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(LayoutError);
    expect(refused).toMatchObject({
      code: 'DOWNGRADE',
      message: expect.stringMatching(/written by a newer Quill/),
    });
    expect(await redis.get(redisKeys(prefix).layout)).toBe(String(LAYOUT_VERSION + 1));
    const garbled = fresh();
    await redis.set(redisKeys(garbled).layout, 'two');
    await expect(migrateLayout(redis, garbled)).rejects.toMatchObject({ code: 'UNREADABLE' });
  });

  it('quill serve on a newer layout exits 1 with one line, before writing anything', async () => {
    const prefix = fresh();
    await redis.set(redisKeys(prefix).layout, '99');
    const res = await new Promise<{ code: number | null; stderr: string }>((done) => {
      execFile(
        process.execPath,
        [resolve('bin/quill.js'), 'serve', '--role', 'worker'],
        {
          env: {
            ...process.env,
            REDIS_URL: inject('redisUrl'),
            REDIS_PREFIX: prefix,
            LEDGER_URL: 'http://127.0.0.1:9',
            PORT: '0',
          },
          timeout: 30_000,
        },
        (err, _out, stderr) => done({ code: err ? ((err as { code?: number }).code ?? null) : 0, stderr }),
      );
    });
    expect(res.code, res.stderr).toBe(1);
    expect(res.stderr).toMatch(/layout 99, written by a newer Quill/);
    expect(res.stderr).not.toMatch(/\n\s+at /);
    // Nothing of Quill's own was written (a queue's connection may have registered itself meanwhile).
    expect(await redis.get(`${prefix}:layout`)).toBe('99');
    expect((await redis.keys(`${prefix}:*`)).filter((k) => !k.startsWith(`${prefix}:bull:`))).toEqual([
      `${prefix}:layout`,
    ]);
  }, 60_000);
});
