// Issue #12, finding 1: a final record's prepared transaction and signatures are dropped after
// PAYLOAD_RETENTION_HOURS; the record, its hash, its audit entry and every index stay. Records that are not
// final keep theirs whatever their age.

import { afterAll, describe, expect, it } from 'vitest';
import { AuditLog } from '../../../src/audit/index.ts';
import { expire } from '../../../src/submissions/transitions.ts';
import { freshStore, payload, record, testRedis } from '../../support/records.ts';

/** The audit chain of a store's deployment. */
const auditOf = (s: { redis: import('ioredis').Redis; prefix: string }) => new AuditLog(s.redis, s.prefix);

const redis = testRedis();
afterAll(() => redis.quit());

const audit = (id: string) => ({
  at: new Date().toISOString(),
  actor: 'tok-1',
  party: 'alice::1220aa',
  keyFingerprint: `1220${'ab'.repeat(32)}`,
  hash: 'cd'.repeat(32),
  commandId: `cmd-${id}`,
  submission: id,
});

describe('payload retention', () => {
  it('drops the payload of records final before the cutoff, keeps the record, hash, audit and indexes', async () => {
    const store = freshStore(redis);
    const old = record({ status: 'executing' });
    const live = record({ status: 'executing' });
    const late = record({ status: 'executing' });
    for (const r of [old, live, late]) await store.create(r, payload, undefined, audit(r.id));
    await store.update(old.id, (r) => ({
      ...r,
      status: 'committed',
      updateId: 'upd-old',
      completionOffset: 3,
    }));
    const cutoff = Date.now() + 1;
    await new Promise((r) => setTimeout(r, 5));
    await store.update(late.id, expire({ code: 'EXPIRED', message: 'too late' }));

    expect(await store.dropPayloads(cutoff)).toBe(1);
    const dropped = await store.get(old.id);
    expect(dropped?.payload).toBeUndefined();
    expect(dropped?.payloadDroppedAt).toMatch(/^\d{4}-/);
    expect(dropped?.record).toMatchObject({
      status: 'committed',
      preparedTransactionHash: old.preparedTransactionHash,
    });
    expect((await store.byUpdateId('upd-old'))?.id).toBe(old.id);
    expect((await store.byCommandId(old.commandId))?.id).toBe(old.id);
    expect((await auditOf(store).signatures()).map((e) => e.submission).sort()).toEqual(
      [old.id, live.id, late.id].sort(),
    );
    // Not final (whatever its age) or final after the cutoff: untouched.
    expect((await store.get(live.id))?.payload).toEqual(payload);
    expect((await store.get(late.id))?.payload).toEqual(payload);

    // Running again drops nothing twice; a later cutoff reaches the newer final record.
    expect(await store.dropPayloads(cutoff)).toBe(0);
    expect(await store.dropPayloads(Date.now() + 1)).toBe(1);
    expect((await store.get(late.id))?.payload).toBeUndefined();
    expect((await store.get(live.id))?.payload).toEqual(payload);
  });

  it('passes any number of final records in pages, and two sweeps racing drop each payload once', async () => {
    const store = freshStore(redis);
    const recs = Array.from({ length: 1200 }, () => record({ status: 'executing' }));
    for (const r of recs) await store.create(r, payload);
    for (const r of recs) await store.update(r.id, expire({ code: 'EXPIRED', message: 'x' }));
    const [a, b] = await Promise.all([
      store.dropPayloads(Date.now() + 1),
      store.dropPayloads(Date.now() + 1),
    ]);
    expect(a + b).toBe(1200);
    const left = await Promise.all(recs.map((r) => store.get(r.id)));
    expect(left.filter((s) => s?.payload !== undefined)).toHaveLength(0);
    expect(left.filter((s) => s?.record.status === 'expired')).toHaveLength(1200);
  });
});
