// End to end on the sandbox: a submission through Quill produces submission.accepted and submission.committed
// events, live on SSE (scoped to the party's token) and on a signed webhook, in that order.

import { mint, type Sandbox } from '@quill/sandbox';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { verifySignature } from '../../../src/events/index.ts';
import { receiver, until } from '../../support/events.ts';
import {
  coinTemplate,
  prepareOn,
  SECRET,
  startFullWallet,
  startLedger,
  walletConfig,
} from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startFullWallet>>;

beforeAll(async () => {
  sandbox = await startLedger();
  w = await startFullWallet(
    sandbox,
    walletConfig(inject('redisUrl'), {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      EVENTS_HEARTBEAT_SECONDS: '1',
    }),
  );
});
afterAll(async () => {
  await w.wallet.close();
  await sandbox.close();
});

it('a committed submission is announced as accepted then committed on SSE and on the webhook', async () => {
  const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
  const party = (
    await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: 'evented' })
  ).json.partyId as string;
  const rx = await receiver();
  try {
    const hook = await w.call('POST', '/wallet/v1/webhooks', { url: rx.url, party });
    expect(hook.status).toBe(201);
    const secret = hook.json.secret as string;
    // Let the dispatcher place its cursor before anything happens (a new webhook gets events from then on).
    await new Promise((r) => setTimeout(r, 1500));
    const token = await issueToken({
      secret: SECRET,
      role: 'read',
      party,
      ttlSeconds: 600,
      subject: 'e2e-reader',
    });
    const ac = new AbortController();
    const res = await fetch(`${w.wallet.url}/wallet/v1/events`, {
      headers: { authorization: `Bearer ${token}` },
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    const frames: { event: string; data: string }[] = [];
    const reading = (async () => {
      const reader = res.body?.getReader();
      const dec = new TextDecoder();
      let buf = '';
      try {
        while (reader) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += dec.decode(value, { stream: true });
          for (let i = buf.indexOf('\n\n'); i >= 0; i = buf.indexOf('\n\n')) {
            const block = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const event = /^event: (.*)$/m.exec(block)?.[1];
            const data = /^data: (.*)$/m.exec(block)?.[1];
            if (event && data) frames.push({ event, data });
          }
        }
      } catch {
        // aborted
      }
    })();
    const bob = sandbox.state.allocateLocalParty('bob').partyId;
    const minted = mint(sandbox.state, party, '10.0000000000');
    const holding = minted.nodes.find(
      (n) => n.kind === 'create' && n.contract.templateId.endsWith(':Holding'),
    );
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
    await until(
      () => frames.filter((f) => JSON.parse(f.data).body?.id === id).length >= 2,
      15_000,
      'SSE events',
    );
    const mine = frames.filter((f) => JSON.parse(f.data).body?.id === id);
    expect(mine.map((f) => f.event)).toEqual(['submission.accepted', 'submission.committed']);
    const committed = JSON.parse(mine[1]?.data ?? '');
    expect(committed).toMatchObject({
      party,
      body: { id, status: 'committed', updateId: sent.json.updateId },
    });
    expect(JSON.stringify(committed)).not.toContain('preparedTransaction"');
    await until(() => rx.accepted.length >= 2, 15_000, 'webhook deliveries');
    const got = rx.accepted.map((r) => JSON.parse(r.body) as { type: string; body: { id: string } });
    expect(got.map((g) => [g.type, g.body.id])).toEqual([
      ['submission.accepted', id],
      ['submission.committed', id],
    ]);
    for (const r of rx.accepted)
      expect(verifySignature(String(r.headers['quill-signature']), r.body, secret)).toBe(true);
    ac.abort();
    await reading;
  } finally {
    await rx.close();
  }
});
