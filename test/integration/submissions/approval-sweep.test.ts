// The worker leader's sweep ends held submissions past their approval deadline (APPROVAL_EXPIRED), so that a read of
// one record shows it without anyone listing or deciding approvals; those inside their deadline, or without one,
// keep waiting, and a second sweep changes nothing.
import { afterAll, describe, expect, it } from 'vitest';
import { expireOverdueApprovals } from '../../../src/submissions/index.ts';
import { freshStore, payload, record, testRedis } from '../../support/records.ts';

const redis = testRedis();
afterAll(() => redis.quit());

const approval = (deadline: string | null) => ({
  rule: 'big',
  policyVersion: 1,
  quorum: 2,
  group: null,
  approvers: null,
  deadline,
});

describe('the approval deadline sweep', () => {
  it('expires the held submissions past their deadline, and only those, once', async () => {
    const store = freshStore(redis);
    const now = Date.now();
    const at = (ms: number) => new Date(now + ms).toISOString();
    const past = record({ status: 'awaiting_approval', approval: approval(at(-60_000)) });
    const justPast = record({ status: 'awaiting_approval', approval: approval(at(0)) });
    const ahead = record({ status: 'awaiting_approval', approval: approval(at(60_000)) });
    const open = record({ status: 'awaiting_approval', approval: approval(null) });
    for (const r of [past, justPast, ahead, open]) await store.create(r, payload);

    expect(await expireOverdueApprovals(store, now)).toBe(2);
    for (const r of [past, justPast]) {
      const after = await store.getRecord(r.id);
      expect(after?.status).toBe('expired');
      expect(after?.error?.code).toBe('APPROVAL_EXPIRED');
    }
    for (const r of [ahead, open]) expect((await store.getRecord(r.id))?.status).toBe('awaiting_approval');
    expect(await expireOverdueApprovals(store, now)).toBe(0);
    // Its turn comes when its deadline does.
    expect(await expireOverdueApprovals(store, now + 60_000)).toBe(1);
    expect((await store.getRecord(ahead.id))?.status).toBe('expired');
    expect((await store.getRecord(open.id))?.status).toBe('awaiting_approval');
  });
});
