// The intents commands against the real wallet API (issue 28's routes) on the sandbox over real HTTP and Redis:
// `quill transfer` commits a one-step transfer; a transfer to a receiver without pre-approval becomes an
// instruction that `quill instructions list` shows and `quill instructions accept` completes; a participant that
// prepares another amount (the sandbox's tamperPrepare fault) makes `quill transfer` exit 1 with INTENT_MISMATCH.
import { grantPreapproval, mintHolding, type Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { startConsoleWallet } from '../../support/console.ts';
import { until } from '../../support/events.ts';
import { runCli } from '../../support/run-cli.ts';
import { SECRET, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let env: Record<string, string>;
let alice: string;
let bob: string;
let carol: string;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl'), { WATCHER_IDLE_TIMEOUT_MS: '100' }));
  const onboard = async (hint: string) => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    return (
      await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: hint })
    ).json.partyId as string;
  };
  [alice, bob, carol] = [await onboard('alice'), await onboard('bob'), await onboard('carol')];
  grantPreapproval(sandbox.state, 'usdq', bob);
  for (let i = 0; i < 4; i++) mintHolding(sandbox.state, 'usdq', alice, '100');
  env = {
    QUILL_URL: w.url,
    QUILL_TOKEN: await issueToken({ secret: SECRET, role: 'submit', ttlSeconds: 600, subject: 'cli-e2e' }),
  };
  await until(
    async () =>
      (
        (await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(alice)}/holdings`)).json
          .items as unknown[]
      ).length >= 4,
    15_000,
    "alice's holdings indexed",
  );
}, 60_000);
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

const usdq = () => `${sandbox.registries.usdq.admin}:USDQ`;
const transfer = (to: string, amount: string, ...extra: string[]) =>
  runCli(
    ['transfer', '--party', alice, '--to', to, '--instrument', usdq(), '--amount', amount, ...extra],
    env,
  );

describe('quill transfer and quill instructions on the real API', () => {
  it('transfers to a pre-approved receiver: committed, exit 0', async () => {
    const r = await transfer(
      bob,
      '12.5',
      '--memo',
      'invoice 42',
      '--wait',
      '20',
      '--idempotency-key',
      'cli-1',
    );
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({
      status: 'committed',
      party: alice,
      intent: { kind: 'transfer', receiver: bob, amount: '12.5', memo: 'invoice 42', transferKind: 'direct' },
    });
  });

  it('a transfer to carol is an instruction she lists and accepts', async () => {
    const offer = await transfer(carol, '3', '--wait', '20');
    expect(offer.code, offer.stderr).toBe(0);
    expect(JSON.parse(offer.stdout)).toMatchObject({
      status: 'committed',
      intent: { transferKind: 'offer' },
    });
    let listed: { items: { contractId: string; direction: string; amount: string }[] } = { items: [] };
    await until(
      async () => {
        const r = await runCli(['instructions', 'list', '--party', carol, '--json'], env);
        listed = JSON.parse(r.stdout);
        return listed.items.length > 0;
      },
      15_000,
      "carol's instruction indexed",
    );
    expect(listed.items[0]).toMatchObject({ direction: 'incoming' });
    const table = await runCli(['instructions', 'list', '--party', carol, '--direction', 'incoming'], env);
    expect(table.stdout).toContain(listed.items[0]?.contractId);
    const cid = listed.items[0]?.contractId as string;
    const accepted = await runCli(['instructions', 'accept', cid, '--wait', '20'], env);
    expect(accepted.code, accepted.stderr).toBe(0);
    expect(JSON.parse(accepted.stdout)).toMatchObject({
      status: 'committed',
      party: carol,
      intent: { kind: 'instruction', action: 'accept', instructionCid: cid },
    });
  });

  it('a participant preparing another amount: exit 1 with INTENT_MISMATCH, nothing signed', async () => {
    sandbox.faults.configure({ rules: [{ kind: 'tamperPrepare', times: 1, tamper: { amount: '2' } }] });
    try {
      const r = await transfer(bob, '1', '--wait', '20');
      expect([r.code, r.stdout]).toEqual([1, '']);
      expect(r.stderr).toMatch(/^quill: INTENT_MISMATCH: /);
      expect(sandbox.faults.injected.tamperPrepare).toBe(1);
    } finally {
      sandbox.faults.configure({});
    }
    // Honest again: the same command commits.
    expect((await transfer(bob, '1', '--wait', '20')).code).toBe(0);
  });

  it('an instrument whose admin has no registry: exit 1 with UNKNOWN_REGISTRY', async () => {
    const unknown = await runCli(
      ['transfer', '--party', alice, '--to', bob, '--instrument', `${alice}:USDQ`, '--amount', '1'],
      env,
    );
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/^quill: UNKNOWN_REGISTRY: /);
  });
});
