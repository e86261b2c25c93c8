// After record retention removed a submission, the API answers for its id exactly as for an unknown id (404), the
// listings no longer include it, and its Idempotency-Key is forgotten.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropRecords, newSubmissionId } from '../../../src/submissions/index.ts';
import { apiHarness, prepared } from '../../support/api-harness.ts';
import { expireIt, relayAll } from './support.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
beforeAll(async () => {
  h = await apiHarness();
});
afterAll(() => h?.close());

describe('a submission past RECORD_RETENTION_HOURS', () => {
  it('is 404 as an unknown id, gone from listings, and its Idempotency-Key forgotten', async () => {
    const alice = await h.party('alice');
    const submit = await h.token('submit');
    const read = await h.token('read');
    const headers = { 'idempotency-key': 'order-7' };
    const kept = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(alice.id).body,
      token: submit,
    });
    const gone = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(alice.id).body,
      token: submit,
      headers,
    });
    expect(gone.status).toBe(202);
    const id = gone.json.id as string;
    const store = h.wallet.store;
    await expireIt(store, id);
    await relayAll(store);
    expect(await dropRecords(store, Date.now() + 1)).toBe(1);

    const answer = await h.call('GET', `/wallet/v1/submissions/${id}`, { token: read });
    const unknown = await h.call('GET', `/wallet/v1/submissions/${newSubmissionId()}`, { token: read });
    expect(answer.status).toBe(404);
    expect(answer.json.error?.code).toBe(unknown.json.error?.code);
    for (const q of ['', `?party=${encodeURIComponent(alice.id)}`, '?status=expired']) {
      const listed = await h.call('GET', `/wallet/v1/submissions${q}`, { token: read });
      expect(listed.status).toBe(200);
      expect((listed.json.items as { id: string }[]).map((x) => x.id)).not.toContain(id);
    }
    const all = await h.call('GET', '/wallet/v1/submissions', { token: read });
    expect((all.json.items as { id: string }[]).map((x) => x.id)).toContain(kept.json.id);
    // The key is forgotten: another body under it is a new submission, not IDEMPOTENCY_KEY_REUSED.
    const again = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(alice.id).body,
      token: submit,
      headers,
    });
    expect(again.status).toBe(202);
    expect(again.json.id).not.toBe(id);
  });
});
