// A record the API stored `queued` whose job was never added (the API died between the two, or the add failed)
// is put into the queue by the recovery sweep, once, and only after it has been left alone long enough.
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { createQueue, jobIdFor, requeueStranded } from '../../../src/submissions/index.ts';
import { freshStore, payload, record } from '../../support/records.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.quit());

describe('requeueStranded', () => {
  it('adds the missing job of a queued record once it is older than the window, and only once', async () => {
    const store = freshStore(redis);
    const queue = createQueue(redis, 'submissions', store.prefix);
    try {
      const fresh = record({ status: 'queued' });
      const old = record({ status: 'queued', updatedAt: new Date(Date.now() - 60_000).toISOString() });
      await store.create(fresh, payload);
      await store.create(old, payload);
      expect(await requeueStranded(store, queue, 30_000)).toBe(1);
      expect(await queue.getJob(jobIdFor(old))).toBeTruthy();
      expect(await queue.getJob(jobIdFor(fresh))).toBeUndefined();
      // Its job now waits: a second sweep adds nothing.
      expect(await requeueStranded(store, queue, 30_000)).toBe(0);
      expect(await queue.getJobCounts('waiting')).toMatchObject({ waiting: 1 });
    } finally {
      await queue.close();
    }
  });
});
