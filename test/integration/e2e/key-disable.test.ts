// Disabling a key is the operator's emergency brake: submissions signed with it that have not reached the
// ledger yet must not be sent afterwards, even by a worker process that has no key store of its own.

import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { noteCommand, prepareOn, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let api: Awaited<ReturnType<typeof startFullWallet>>;
let config: ReturnType<typeof walletConfig>;
const closers: (() => Promise<void>)[] = [];

beforeAll(async () => {
  sandbox = await startLedger();
  config = walletConfig(inject('redisUrl'));
  api = await startFullWallet(sandbox, config, 'api'); // no worker yet: submissions stay queued
  closers.push(() => api.wallet.close());
  closers.push(() => sandbox.close());
});
afterAll(async () => {
  for (const c of closers.reverse()) await c();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('a key disabled while its submissions are queued', () => {
  it('stops them (rejected KEY_DISABLED, nothing on the ledger) and the backlog shows in /metrics', {
    timeout: 30_000,
  }, async () => {
    const key = await api.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    const fp = key.json.fingerprint as string;
    const onboarded = await api.call('POST', '/wallet/v1/parties', {
      keyFingerprint: fp,
      partyHint: 'brake',
    });
    const party = onboarded.json.partyId as string;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const sent = await api.call(
        'POST',
        '/wallet/v1/submissions',
        await prepareOn(api.client, party, noteCommand(party)),
      );
      expect(sent.json.status).toBe('queued');
      ids.push(sent.json.id as string);
    }
    const before = await (await fetch(`${api.wallet.url}/metrics`)).text();
    expect(before).toMatch(/quill_submissions\{status="queued"\} 3/);
    expect(before).toMatch(/quill_queue_jobs\{state="waiting"\} 3/);

    expect((await api.call('POST', `/wallet/v1/keys/${fp}/disable`)).status).toBe(200);
    const committedBefore = sandbox.state.commits.size; // onboarding's own
    const worker = await startFullWallet(sandbox, config, 'worker');
    closers.push(() => worker.wallet.close());

    for (const id of ids) {
      let rec = (await api.call('GET', `/wallet/v1/submissions/${id}`)).json;
      for (let i = 0; i < 200 && rec.status === 'queued'; i++) {
        await sleep(50);
        rec = (await api.call('GET', `/wallet/v1/submissions/${id}`)).json;
      }
      expect(rec).toMatchObject({ status: 'rejected', error: { code: 'KEY_DISABLED' }, attempts: [] });
    }
    expect(sandbox.state.commits.size).toBe(committedBefore);
    const after = await (await fetch(`${api.wallet.url}/metrics`)).text();
    expect(after).toMatch(/quill_submissions\{status="rejected"\} 3/);
    expect(after).toMatch(/quill_submissions\{status="queued"\} 0/);
  });
});
