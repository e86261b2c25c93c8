// What the store throws: StoreError with a code, and every Redis failure as UNAVAILABLE with its cause.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { StoreError } from '../../../src/redis/index.ts';
import { SubmissionStore } from '../../../src/submissions/index.ts';

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.quit());

const prefix = () => `t-${randomBytes(4).toString('hex')}`;

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('StoreError', () => {
  it('wraps a Redis that cannot be reached as UNAVAILABLE, with the client error as cause', async () => {
    const down = new Redis({
      host: '127.0.0.1',
      port: await closedPort(),
      lazyConnect: true,
      enableOfflineQueue: false,
      retryStrategy: () => null,
    });
    try {
      const store = new SubmissionStore(down, prefix());
      const err = await store.getRecord('sub_x').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(StoreError);
      expect(err).toMatchObject({ code: 'UNAVAILABLE', message: 'Redis is unavailable' });
      expect((err as StoreError).cause).toBeInstanceOf(Error);
      expect((err as StoreError).cause).not.toBeInstanceOf(StoreError);
    } finally {
      down.disconnect();
    }
  });

  it('wraps an error reply as UNAVAILABLE', async () => {
    const store = new SubmissionStore(redis, prefix());
    await redis.set(`${store.prefix}keys:disabled`, 'not a set');
    const err = await store.keyFlags.isDisabled('1220ab').catch((e: unknown) => e);
    expect(err).toMatchObject({ name: 'StoreError', code: 'UNAVAILABLE' });
    expect(String((err as StoreError).cause)).toMatch(/WRONGTYPE/);
  });

  it('has codes for a missing record and a cursor it did not hand out', async () => {
    const store = new SubmissionStore(redis, prefix());
    await expect(store.update('sub_missing', (r) => r)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(store.list({ limit: 5, cursor: 'bm9wZQ' })).rejects.toMatchObject({
      name: 'StoreError',
      code: 'INVALID_CURSOR',
    });
  });
});
