// The last attempt's answer is lost and the transaction commits only afterwards: Quill must not call the
// submission expired (the caller would prepare again and pay twice); it keeps looking and finds the commit.

import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { noteCommand, prepareOn, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

const EXEC = '/v2/interactive-submission/executeAndWaitForTransaction';
let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;

beforeAll(async () => {
  sandbox = await startLedger();
  // One attempt only, and a ledger call gives up after 400 ms: a slow commit is an unknown outcome.
  w = await startFullWallet(
    sandbox,
    walletConfig(inject('redisUrl'), { SUBMIT_MAX_ATTEMPTS: '1', LEDGER_TIMEOUT_MS: '400' }),
  );
});
afterAll(async () => {
  await w.wallet.close();
  await sandbox.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('an attempt whose answer is lost and that commits late', () => {
  it('stays open as OUTCOME_UNKNOWN, then ends committed exactly once', { timeout: 30_000 }, async () => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    const onboarded = await w.call('POST', '/wallet/v1/parties', {
      keyFingerprint: key.json.fingerprint,
      partyHint: 'late-commit',
    });
    const party = onboarded.json.partyId as string;
    const body = await prepareOn(w.client, party, noteCommand(party));

    // The participant takes 2.5 s to commit; Quill stops waiting after 0.4 s and has no attempts left.
    sandbox.faults.configure({ rules: [{ kind: 'latency', endpoint: EXEC, latencyMs: 2_500, times: 1 }] });
    const sent = await w.call('POST', '/wallet/v1/submissions', body);
    expect(sent.status).toBe(202);
    const id = sent.json.id as string;

    const seen: string[] = [];
    let rec: Record<string, unknown> & { error?: { code: string } | null } = sent.json;
    for (let i = 0; i < 200 && rec.status !== 'committed' && rec.status !== 'expired'; i++) {
      await sleep(50);
      rec = (await w.call('GET', `/wallet/v1/submissions/${id}`)).json;
      seen.push(`${rec.status}/${rec.error?.code ?? ''}`);
    }
    expect(seen).toContain('executing/OUTCOME_UNKNOWN');
    expect(rec).toMatchObject({ status: 'committed', error: null });
    expect((rec.attempts as unknown[]).length).toBe(1);
    expect(sandbox.state.commits.get(rec.commandId as string)).toBe(1);
    expect((rec.transaction as { externalTransactionHash: string }).externalTransactionHash).toBe(
      rec.preparedTransactionHash,
    );
  });
});
