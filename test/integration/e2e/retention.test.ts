// PAYLOAD_RETENTION_HOURS through the worker's sweep: after a submission commits, its prepared transaction and
// signatures leave Redis; the record stays readable by id and by update id.

import { mint, type Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { coinTemplate, prepareOn, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startFullWallet(
    sandbox,
    walletConfig(inject('redisUrl'), { PAYLOAD_RETENTION_HOURS: '0', SWEEP_INTERVAL_MS: '100' }),
  );
});
afterAll(async () => {
  await w.wallet.close();
  await sandbox.close();
});

it('a committed submission loses its payload at the next sweep, and keeps its record', async () => {
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const party = (
    await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: 'kept' })
  ).json.partyId as string;
  const bob = sandbox.state.allocateLocalParty('bob').partyId;
  const minted = mint(sandbox.state, party, '10.0000000000');
  const holding = minted.nodes.find((n) => n.kind === 'create' && n.contract.templateId.endsWith(':Holding'));
  const transfer = await prepareOn(w.client, party, {
    ExerciseCommand: {
      templateId: coinTemplate('Holding'),
      contractId: holding?.kind === 'create' ? holding.contract.contractId : '',
      choice: 'Holding_Transfer',
      choiceArgument: { receiver: bob, amount: '1.0000000000' },
    },
  });
  const sent = await w.call('POST', '/wallet/v1/submissions?wait=20', transfer);
  expect(sent.json.status).toBe('committed');
  const id = sent.json.id as string;
  const deadline = Date.now() + 10_000;
  while ((await w.wallet.store.get(id))?.payload !== undefined && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
  }
  const stored = await w.wallet.store.get(id);
  expect(stored?.payload).toBeUndefined();
  expect(stored?.payloadDroppedAt).toBeDefined();
  const again = await w.call('GET', `/wallet/v1/submissions/${id}`);
  expect(again.json).toMatchObject({ status: 'committed', updateId: sent.json.updateId });
  expect(
    (await w.call('GET', `/wallet/v1/updates/${encodeURIComponent(String(sent.json.updateId))}`)).status,
  ).toBe(200);
});
