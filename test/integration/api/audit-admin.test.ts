// Issue 29 item 5, in part: what an admin changes through the API outside submissions is in the audit chain, with
// who did it: a party's onboarding (its key signed the party's topology) and a change to the wallet's ledger user.
import type { Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { verifyAuditChain } from '../../../src/audit/index.ts';
import { startConsoleWallet } from '../../support/console.ts';
import { startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startConsoleWallet(sandbox, walletConfig(inject('redisUrl')));
});
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

const entries = async () =>
  ((await w.call('GET', '/wallet/v1/audit?limit=1000')).json.items as { fields: [string, string][] }[]).map(
    (e) => Object.fromEntries(e.fields),
  );

it('records onboarding and ledger-user changes with their actor, and the chain still verifies', async () => {
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const party = await w.call('POST', '/wallet/v1/parties', {
    keyFingerprint: key.json.fingerprint,
    partyHint: 'audited',
  });
  expect(party.status).toBe(201);
  const patched = await w.call('PATCH', '/wallet/v1/ledger/user', {
    user: { primaryParty: party.json.partyId },
    updateMask: { paths: ['primary_party'] },
  });
  expect(patched.status).toBe(200);
  const all = await entries();
  expect(all.filter((e) => e.kind === 'party.onboard')).toEqual([
    expect.objectContaining({
      actor: 'console-test',
      party: party.json.partyId,
      keyFingerprint: key.json.fingerprint,
    }),
  ]);
  expect(all.filter((e) => e.kind === 'ledger.user.update')).toEqual([
    expect.objectContaining({ actor: 'console-test', paths: 'primary_party' }),
  ]);
  const audit = w.wallet.audit;
  expect(verifyAuditChain(await audit.entries('0-0', 10_000), await audit.head()).ok).toBe(true);
});
