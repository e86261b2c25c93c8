// A request the ledger client itself refuses (nothing is sent) is a definite rejection: the submission ends
// `rejected` after one attempt instead of being retried as an "unknown outcome" until its window closes.

import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { SubmissionPayload, SubmissionRecord } from '../../../src/submissions/index.ts';
import { noteCommand, prepareOn, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let api: Awaited<ReturnType<typeof startFullWallet>>;
let config: ReturnType<typeof walletConfig>;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  sandbox = await startLedger();
  config = walletConfig(inject('redisUrl'));
  api = await startFullWallet(sandbox, config, 'api'); // no worker yet: the submission stays queued
  closers.push(() => api.wallet.close());
  closers.push(() => sandbox.close());
});
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a submission whose execute request the ledger client refuses', () => {
  it('ends rejected after one attempt, nothing sent', { timeout: 30_000 }, async () => {
    const key = await api.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    const onboarded = await api.call('POST', '/wallet/v1/parties', {
      keyFingerprint: key.json.fingerprint,
      partyHint: 'refused',
    });
    const party = onboarded.json.partyId as string;
    const sent = await api.call(
      'POST',
      '/wallet/v1/submissions',
      await prepareOn(api.client, party, noteCommand(party)),
    );
    expect(sent.json.status).toBe('queued');
    const id = sent.json.id as string;
    const commandId = sent.json.commandId as string;

    // A stored pass-through field the ledger client's request schema refuses (`cumulative` must be a list).
    // Written into the record directly, as the API may refuse it at accept one day.
    const store = api.wallet.store;
    const raw = await store.redis.hget(store.keys.record(id), 'payload');
    const payload = JSON.parse(raw as string) as SubmissionPayload & Record<string, unknown>;
    payload.transactionFormat = {
      eventFormat: { filtersForAnyParty: { cumulative: 'x' } },
      transactionShape: 'TRANSACTION_SHAPE_ACS_DELTA',
    } as never;
    await store.redis.hset(store.keys.record(id), 'payload', JSON.stringify(payload));

    const worker = await startFullWallet(sandbox, config, 'worker');
    closers.push(() => worker.wallet.close());

    const started = Date.now();
    let rec = (await api.call('GET', `/wallet/v1/submissions/${id}`)).json as unknown as SubmissionRecord;
    while (rec.status !== 'rejected' && rec.status !== 'committed' && Date.now() - started < 10_000) {
      await sleep(50);
      rec = (await api.call('GET', `/wallet/v1/submissions/${id}`)).json as unknown as SubmissionRecord;
    }
    expect(rec.status).toBe('rejected');
    expect(rec.error?.code).toBe('INVALID_ARGUMENT');
    expect(rec.attempts).toHaveLength(1);
    expect(rec.attempts[0]?.outcome).toBe('rejected');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(sandbox.state.commits.get(commandId)).toBeUndefined();
  });
});
