import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { AuditLog } from '../../../src/audit/index.ts';
import { newSubmissionId } from '../../../src/submissions/index.ts';
import { freshStore as fresh, payload, record } from '../../support/records.ts';

/** The audit chain of a store's deployment. */
const auditOf = (s: { redis: import('ioredis').Redis; prefix: string }) => new AuditLog(s.redis, s.prefix);

const redis = new Redis(inject('redisUrl'));
afterAll(() => redis.quit());

const freshStore = () => fresh(redis);

describe('SubmissionStore', () => {
  it('creates once per command id and returns the existing record for the same hash', async () => {
    const store = freshStore();
    const a = record();
    expect((await store.create(a, payload)).created).toBe(true);
    const again = await store.create({ ...a, id: newSubmissionId() }, payload);
    expect(again.created).toBe(false);
    expect(again.record.id).toBe(a.id);
    expect((await store.byCommandId(a.commandId))?.id).toBe(a.id);
  });

  it('hands a command id to a new record only after the old one ended rejected or expired', async () => {
    const store = freshStore();
    const a = record();
    await store.create(a, payload);
    const b = record({ commandId: a.commandId });
    expect((await store.create(b, payload)).created).toBe(false);
    await store.update(a.id, (r) => ({ ...r, status: 'expired', error: { code: 'X', message: 'x' } }));
    expect((await store.create(b, payload)).created).toBe(true);
    expect((await store.byCommandId(a.commandId))?.id).toBe(b.id);
  });

  it('writes from a version the caller holds, and re-reads when that version went stale', async () => {
    const store = freshStore();
    const a = record();
    const created = await store.create(a, payload);
    expect(created.version).toBe(1);
    const queued = await store.transition(a.id, (r) => ({ ...r, status: 'queued' }), created);
    expect(queued).toMatchObject({ version: 2, record: { status: 'queued' } });
    // Someone else writes: the version the caller holds (2) is now stale.
    const attempt = {
      submissionId: 's1',
      startedAt: new Date().toISOString(),
      finishedAt: null,
      outcome: 'pending' as const,
      deduplicationSeconds: 60,
      error: null,
    };
    await store.update(a.id, (r) => ({ ...r, status: 'executing', attempts: [attempt] }));
    const seen: number[] = [];
    const after = await store.transition(
      a.id,
      (r) => {
        seen.push(r.attempts.length);
        return { ...r, error: { code: 'X', message: 'x' } };
      },
      queued,
    );
    // The stale try lost; the change was applied again to the fresh record, keeping the other write.
    expect(seen).toEqual([0, 1]);
    expect(after.version).toBe(4);
    expect(after.record.attempts).toHaveLength(1);
    expect((await store.getRecord(a.id))?.error?.code).toBe('X');
    const again = await store.create({ ...a, id: newSubmissionId() }, payload);
    expect(again).toMatchObject({ created: false, version: 4, record: { id: a.id } });
  });

  it('never moves a record backwards and never changes a terminal record', async () => {
    const store = freshStore();
    const a = record();
    await store.create(a, payload);
    await store.update(a.id, (r) => ({ ...r, status: 'executing' }));
    const back = await store.update(a.id, (r) => ({ ...r, status: 'queued' }));
    expect(back.status).toBe('executing');
    const done = await store.update(a.id, (r) => ({
      ...r,
      status: 'committed',
      updateId: 'upd-1',
      completionOffset: 7,
    }));
    expect(done.status).toBe('committed');
    const after = await store.update(a.id, (r) => ({ ...r, status: 'expired', updateId: null }));
    expect(after.status).toBe('committed');
    expect(after.updateId).toBe('upd-1');
    expect((await store.byUpdateId('upd-1'))?.id).toBe(a.id);
    const counts = await store.countByStatus();
    expect(counts.committed).toBe(1);
    expect(counts.executing).toBe(0);
  });

  it('keeps every concurrent attempt (compare-and-set retries on conflict)', async () => {
    const store = freshStore();
    const a = record();
    await store.create(a, payload);
    await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        store.update(a.id, (r) => ({
          ...r,
          status: 'executing',
          attempts: [
            ...r.attempts,
            {
              submissionId: `s${i}`,
              startedAt: new Date().toISOString(),
              finishedAt: null,
              outcome: 'pending',
              deduplicationSeconds: 60,
              error: null,
            },
          ],
        })),
      ),
    );
    const rec = await store.getRecord(a.id);
    expect(rec?.attempts.map((x) => x.submissionId).sort()).toEqual(
      Array.from({ length: 20 }, (_, i) => `s${i}`).sort(),
    );
  });

  it('pages newest first with an opaque cursor, by party and status', async () => {
    const store = freshStore();
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) {
      const r = record({ party: i % 2 ? 'bob::1' : 'alice::1' });
      ids.push(r.id);
      await store.create(r, payload);
    }
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await store.list({ limit: 3, ...(cursor ? { cursor } : {}) });
      seen.push(...page.items.map((x) => x.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual([...ids].reverse());
    const bob = await store.list({ party: 'bob::1', limit: 10 });
    expect(bob.items.every((x) => x.party === 'bob::1')).toBe(true);
    expect(bob.items).toHaveLength(3);
    await store.update(ids[1] as string, (r) => ({ ...r, status: 'queued' }));
    const queuedBob = await store.list({ party: 'bob::1', status: 'queued', limit: 10 });
    expect(queuedBob.items.map((x) => x.id)).toEqual([ids[1]]);
    await expect(store.list({ limit: 3, cursor: 'garbage!' })).rejects.toThrow(/cursor/);
  });

  it('keeps idempotency keys and an append-only audit log', async () => {
    const store = freshStore();
    const a = record();
    await store.create(a, payload, { scope: 'me', key: 'k1', fingerprint: 'f1' });
    expect(await store.idempotency('me', 'k1')).toEqual({ fingerprint: 'f1', id: a.id });
    expect(await store.idempotency('other', 'k1')).toBeUndefined();
    await auditOf(store).append({
      at: 'now',
      actor: 'me',
      party: a.party,
      keyFingerprint: a.keyFingerprint,
      hash: a.preparedTransactionHash,
      commandId: a.commandId,
      submission: a.id,
    });
    const log = await auditOf(store).signatures();
    expect(log).toHaveLength(1);
    expect(log[0]?.hash).toBe(a.preparedTransactionHash);
  });
});

describe('the stored record schema', () => {
  it('writes its version beside each record; reads a record from before versions; refuses others', async () => {
    const store = freshStore();
    const a = record();
    await store.create(a, payload);
    const key = store.keys.record(a.id);
    expect(await redis.hget(key, 'schemaVersion')).toBe('1');
    await store.update(a.id, (r) => ({ ...r, status: 'queued' }));
    expect(await redis.hget(key, 'schemaVersion')).toBe('1');
    // Written before the field existed: read as version 1.
    await redis.hdel(key, 'schemaVersion');
    expect((await store.getRecord(a.id))?.status).toBe('queued');
    // A newer Quill's record, or a damaged one, is never served or acted on.
    await redis.hset(key, 'schemaVersion', '2');
    await expect(store.get(a.id)).rejects.toMatchObject({ name: 'StoreError', code: 'CORRUPT' });
    await redis.hset(key, 'schemaVersion', '1', 'record', JSON.stringify({ ...a, status: 'lost' }));
    await expect(store.getRecord(a.id)).rejects.toMatchObject({ code: 'CORRUPT', message: /status/ });
    await redis.hset(key, 'record', '{not json');
    await expect(store.list({ limit: 10 })).rejects.toMatchObject({ code: 'CORRUPT' });
  });
});
