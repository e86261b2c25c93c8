// The worker's leader runs every retention with windows in decimal hours (as a soak run sets them): a committed
// submission's record, index entries and outbox entries leave Redis, GET answers 404 for it, its ledger history
// goes (holdings, live state, stay: history.test.ts); /metrics shows the outbox.
import { mint, type Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { coinTemplate, prepareOn, startFullWallet, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startFullWallet(
    sandbox,
    walletConfig(inject('redisUrl'), {
      PAYLOAD_RETENTION_HOURS: '0',
      RECORD_RETENTION_HOURS: '0.0005', // 1.8 s
      HISTORY_RETENTION_HOURS: '0.0005',
      SWEEP_INTERVAL_MS: '200',
    }),
  );
});
afterAll(async () => {
  await w.wallet.close();
  await sandbox.close();
});

const until = async (check: () => Promise<boolean>, what: string, ms = 20_000) => {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
};

it('removes a committed submission, its outbox entries and its history after their windows', async () => {
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const party = (
    await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: 'brief' })
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
  const update = `/wallet/v1/updates/${encodeURIComponent(String(sent.json.updateId))}`;
  const store = w.wallet.store;

  await until(
    async () => (await w.call('GET', `/wallet/v1/submissions/${id}`)).status === 404,
    'record removed',
  );
  expect(await store.byCommandId(sent.json.commandId as string)).toBeUndefined();
  const listed = await w.call('GET', '/wallet/v1/submissions');
  expect((listed.json.items as { id: string }[]).map((x) => x.id)).not.toContain(id);
  await until(async () => (await store.redis.xlen(store.keys.outbox)) === 0, 'outbox trimmed');
  await until(
    async () => (await store.redis.hexists(store.keys.historyByUpdate, String(sent.json.updateId))) === 0,
    'history removed',
  );
  expect((await w.call('GET', update)).status).toBe(404);
  const metrics = await (
    await fetch(`${w.wallet.url}/metrics`, { headers: { authorization: `Bearer ${w.admin}` } })
  ).text();
  expect(metrics).toMatch(/quill_outbox_entries 0/);
  expect(metrics).toMatch(/quill_retention_removed_total\{what="records"\} [1-9]/);
});
