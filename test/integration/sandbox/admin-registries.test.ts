// The sandbox's admin routes for clients in another process (a benchmark against `quill sandbox`): the registries
// as `sandbox.registries` names them, minting holdings (`mintHolding`) and pre-approving a receiver
// (`grantPreapproval`) over HTTP; the holdings are on the ledger for their owner.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  call,
  onboard,
  type Party,
  type Sandbox,
  sandboxWithAdmin,
} from '../../../packages/sandbox/test/helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  alice = await onboard(sb, admin);
});
afterAll(async () => {
  await sb?.close();
});

describe('admin registries', () => {
  test('lists the registries as the in-process handle does', async () => {
    const r = await call(sb.url, 'GET', '/admin/registries', undefined, admin);
    expect(r.status, r.text).toBe(200);
    expect(r.json).toEqual(JSON.parse(JSON.stringify(sb.registries)));
    expect((await call(sb.url, 'GET', '/admin/registries', undefined, alice.token)).status).toBe(403);
  });

  test('mints holdings and pre-approves a receiver; bad input refused', async () => {
    const minted = await call(
      sb.url,
      'POST',
      '/admin/registries/usdq/mint',
      { owner: alice.partyId, amount: '10.5', count: 3 },
      admin,
    );
    expect(minted.status, minted.text).toBe(200);
    expect(minted.json.contractIds).toHaveLength(3);
    for (const cid of minted.json.contractIds) {
      const c = sb.state.contracts.get(cid);
      expect(c?.stakeholders).toContain(alice.partyId);
    }
    const pre = await call(
      sb.url,
      'POST',
      '/admin/registries/amulet/preapprovals',
      { receiver: alice.partyId },
      admin,
    );
    expect([pre.status, typeof pre.json.contractId]).toEqual([200, 'string']);
    const bad = [
      ['/admin/registries/gold/mint', { owner: alice.partyId, amount: '1' }, 404],
      ['/admin/registries/usdq/mint', { owner: alice.partyId, amount: '-1' }, 400],
      ['/admin/registries/usdq/mint', { owner: alice.partyId, amount: '1', count: 0 }, 400],
      ['/admin/registries/usdq/mint', { owner: 'nobody::1220ab', amount: '1' }, 400],
      ['/admin/registries/usdq/preapprovals', { receiver: '' }, 400],
    ] as const;
    for (const [path, body, status] of bad) {
      const r = await call(sb.url, 'POST', path, body, admin);
      expect(r.status, `${path} ${JSON.stringify(body)}: ${r.text}`).toBe(status);
    }
  });
});
