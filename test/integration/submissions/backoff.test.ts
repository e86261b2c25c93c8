// A step that throws (Redis away, a write not replicated in time) runs again after a backoff capped at 5 s: BullMQ's
// own exponential backoff is uncapped, and a failover that failed a step eight times parked its job for 64 s (CI,
// test/system/e2e/topologies.test.ts). Real BullMQ on a real Redis.
import { randomUUID } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import type { ExecutorDeps } from '../../../src/submissions/executor.ts';
import { createQueue, startWorker, stepBackoffMs } from '../../../src/submissions/queue.ts';
import { testRedis } from '../../support/records.ts';

const redis = testRedis();
afterAll(() => redis.quit());

describe('the backoff of a step that threw', () => {
  it('doubles from 500 ms with jitter and never exceeds 5 s', () => {
    expect(stepBackoffMs(1, () => 1)).toBe(500);
    expect(stepBackoffMs(2, () => 1)).toBe(1000);
    expect(stepBackoffMs(4, () => 1)).toBe(4000);
    expect(stepBackoffMs(5, () => 1)).toBe(5000);
    expect(stepBackoffMs(8, () => 1)).toBe(5000);
    expect(stepBackoffMs(1000, () => 1)).toBe(5000);
    expect(stepBackoffMs(3, () => 0)).toBe(1000);
    for (let n = 0; n < 60; n++) {
      const d = stepBackoffMs(n);
      expect(d).toBeGreaterThan(0);
      expect(d).toBeLessThanOrEqual(5000);
    }
  });

  it('is what the queue and the worker use: a job that threw is delayed by it, not by BullMQ exponential', async () => {
    const prefix = `backoff-${randomUUID().slice(0, 8)}:`;
    const name = 'submissions';
    const queue = createQueue(redis, name, prefix);
    // The job's record does not exist, and the ledger end read throws: the step throws before any side effect.
    const deps = {
      config: { ledgerTimeoutMs: 1000 },
      ledger: { ledgerEnd: () => Promise.reject(new Error('ledger away')) },
      store: {
        getRecord: () => Promise.reject(new Error('redis away')),
        get: () => Promise.reject(new Error('redis away')),
      },
    } as unknown as ExecutorDeps;
    const worker = startWorker(deps, {
      connection: redis.duplicate({ maxRetriesPerRequest: null }),
      queueName: name,
      prefix,
      concurrency: 1,
      rateLimit: { max: 100, durationMs: 1000 },
    });
    try {
      const failures: number[] = [];
      worker.on('failed', (job) => failures.push(job?.attemptsMade ?? -1));
      await queue.add('submit', { id: 'sub_missing' }, { jobId: 'j1' });
      const deadline = Date.now() + 15_000;
      while (failures.length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      expect(failures.length).toBeGreaterThanOrEqual(3);
      const job = await queue.getJob('j1');
      expect(job?.opts.backoff).toMatchObject({ type: 'capped-exponential' });
      // 3 failures: the next run is at most 2 s away (BullMQ's exponential with 500 ms would say the same; the cap
      // is the unit above), and the job waits in `delayed`, not `failed`.
      expect(['delayed', 'active', 'waiting']).toContain(await job?.getState());
    } finally {
      await worker.close(true);
      await queue.obliterate({ force: true });
      await queue.close();
    }
  }, 30_000);
});
