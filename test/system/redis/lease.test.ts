// The leader lease (src/lease.ts) between real processes: two compete, the holder is SIGKILLed, the other takes
// over within the lease's lifetime, and at no moment do both believe they hold it (issue 13, item 3; the recovery
// sweep and the ledger watcher run under it).
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterAll, expect, inject, it } from 'vitest';
import { testRedis } from '../../support/records.ts';

const redis: Redis = testRedis();
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  redis.disconnect();
});

function competitor(key: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/system/redis/lease-child.ts'], {
    env: { ...process.env, REDIS_URL: inject('redisUrl'), LEASE_KEY: key, LEASE_TTL_MS: '600' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  return new Promise((resolve, reject) => {
    child.stdout?.once('data', () => resolve(child));
    child.once('exit', (code) => reject(new Error(`competitor exited (${code})`)));
  });
}

const log = async (key: string) =>
  (await redis.lrange(`${key}:log`, 0, -1)).map((l) => {
    const [pid, at] = l.split(' ');
    return { pid: Number(pid), at: Number(at) };
  });

it('two processes, the holder SIGKILLed three times: the other takes over in time, never two holders', async () => {
  const key = `lease-${randomBytes(4).toString('hex')}`;
  let alive: ChildProcess[] = await Promise.all([competitor(key), competitor(key)]);
  for (let round = 0; round < 3; round++) {
    await new Promise((r) => setTimeout(r, 400));
    const entries = await log(key);
    const holderPid = entries.at(-1)?.pid;
    const holder = alive.find((c) => c.pid === holderPid);
    expect(holder, 'someone holds the lease').toBeDefined();
    const killedAt = Date.now();
    holder?.kill('SIGKILL');
    await new Promise((r) => holder?.once('exit', r));
    alive = [...alive.filter((c) => c !== holder), await competitor(key)];
    // Taken over within the lease's lifetime (600 ms) plus a retry and some slack for a loaded machine.
    const deadline = killedAt + 3000;
    let takeover: { pid: number; at: number } | undefined;
    while (!takeover && Date.now() < deadline) {
      takeover = (await log(key)).find((e) => e.at > killedAt && e.pid !== holderPid);
      await new Promise((r) => setTimeout(r, 20));
    }
    expect(takeover, `round ${round}: another process took over`).toBeDefined();
  }
  // The log is a sequence of tenures: once a process's tenure ends, it never holds again while another does.
  const entries = await log(key);
  const tenures: number[] = [];
  for (const e of entries) if (tenures.at(-1) !== e.pid) tenures.push(e.pid);
  expect(new Set(tenures).size).toBe(tenures.length);
  expect(tenures.length).toBeGreaterThanOrEqual(4);
}, 30_000);
