// Issue 28, end to end on the sandbox over real HTTP and Redis: transfer intents of both registries' instruments
// commit once and the receiver's holdings rise by the amount; an Idempotency-Key gives the same record; incoming
// two-step transfers accepted and rejected through the API; raw commands; an expired intent prepared again only
// through the audited re-prepare; the participant's prepare response posted as it is.
import { randomUUID } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { grantPreapproval, mint, mintHolding, type Sandbox, type SandboxRegistry } from '@quill/sandbox';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { issueToken } from '../../../src/auth/index.ts';
import { compareDecimal, subtractDecimals } from '../../../src/policy/index.ts';
import { startConsoleWallet } from '../../support/console.ts';
import { until } from '../../support/events.ts';
import { tempDir } from '../../support/tmp.ts';
import { coinTemplate, SECRET, startLedger, walletConfig } from '../../support/wallet.ts';

let sandbox: Sandbox;
let w: Awaited<ReturnType<typeof startConsoleWallet>>;
let admin: string;
let alice: string;
let bob: string;
let carol: string;
let dave: string;

beforeAll(async () => {
  sandbox = await startLedger();
  const policy = join(tempDir('quill-intents-'), 'policy.yaml');
  // Big transfers wait for one approval: what lets an intent expire before it is signed.
  writeFileSync(
    policy,
    [
      'default: allow',
      'rules:',
      '  - name: big',
      '    match: { amount: { gt: "5000" } }',
      '    action: approve',
      '    quorum: 1',
      '',
    ].join('\n'),
  );
  admin = await issueToken({ secret: SECRET, role: 'admin', ttlSeconds: 3600, subject: 'intents' });
  w = await startConsoleWallet(
    sandbox,
    walletConfig(inject('redisUrl'), {
      POLICY_FILE: policy,
      WATCHER_IDLE_TIMEOUT_MS: '100',
      INTENT_TTL_SECONDS: '6',
    }),
  );
  const onboard = async (hint: string) => {
    const key = await w.call('POST', '/wallet/v1/keys', { algorithm: 'ed25519' });
    return (
      await w.call('POST', '/wallet/v1/parties', { keyFingerprint: key.json.fingerprint, partyHint: hint })
    ).json.partyId as string;
  };
  alice = await onboard('alice');
  bob = await onboard('bob');
  carol = await onboard('carol');
  dave = await onboard('dave');
  // bob takes both instruments directly; carol must accept (two-step).
  grantPreapproval(sandbox.state, 'amulet', bob);
  grantPreapproval(sandbox.state, 'usdq', bob);
}, 60_000);
afterAll(async () => {
  await w?.wallet.close();
  await sandbox?.close();
});

type Reg = SandboxRegistry;
const key = (r: Reg) => (r === sandbox.registries.amulet ? 'amulet' : 'usdq') as 'amulet' | 'usdq';

/** The party's unlocked balance of the registry's instrument, as the wallet's index answers it. */
async function unlocked(party: string, reg: Reg): Promise<string> {
  const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/holdings`);
  const b = (r.json.instruments as { instrument: { admin: string; id: string }; unlocked: string }[]).find(
    (x) => x.instrument.admin === reg.admin && x.instrument.id === reg.instrumentId.id,
  );
  return b?.unlocked ?? '0';
}

async function fund(party: string, reg: Reg, amount: string) {
  const before = await unlocked(party, reg);
  mintHolding(sandbox.state, key(reg), party, amount);
  await until(async () => compareDecimal(await unlocked(party, reg), before) > 0, 15_000, 'the mint indexed');
}

const transfer = (body: Record<string, unknown>, headers: Record<string, string> = {}, wait = 20) =>
  fetch(`${w.url}/wallet/v1/transfers?wait=${wait}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  }).then(async (r) => ({
    status: r.status,
    json: (await r.json()) as Record<string, unknown> & {
      error?: { code: string; message: string };
      id?: string;
    },
  }));

describe('transfer intents', () => {
  it.each(['amulet', 'usdq'] as const)(
    'a %s transfer commits once and the receiver gets the amount',
    async (k) => {
      const reg = sandbox.registries[k];
      await fund(alice, reg, '100');
      const [a0, b0] = [await unlocked(alice, reg), await unlocked(bob, reg)];
      const r = await transfer(
        { party: alice, receiver: bob, instrument: reg.instrumentId, amount: '12.5', memo: 'invoice 42' },
        { 'idempotency-key': `t-${k}` },
      );
      expect(r.status, JSON.stringify(r.json)).toBe(200);
      expect(r.json).toMatchObject({
        status: 'committed',
        party: alice,
        intent: {
          kind: 'transfer',
          receiver: bob,
          amount: '12.5',
          memo: 'invoice 42',
          transferKind: 'direct',
        },
        outflows: [{ instrument: reg.instrumentId, amount: '12.5' }],
      });
      await until(async () => compareDecimal(await unlocked(bob, reg), b0) > 0, 15_000, 'bob credited');
      expect(subtractDecimals(await unlocked(bob, reg), b0)).toMatch(/^12\.50*$/);
      await until(async () => compareDecimal(await unlocked(alice, reg), a0) < 0, 15_000, 'alice debited');
      expect(subtractDecimals(a0, await unlocked(alice, reg))).toMatch(/^12\.50*$/);
      // Again with the same key: the same record, nothing new.
      const again = await transfer(
        { party: alice, receiver: bob, instrument: reg.instrumentId, amount: '12.5', memo: 'invoice 42' },
        { 'idempotency-key': `t-${k}` },
      );
      expect(again.json.id).toBe(r.json.id);
      const other = await transfer(
        { party: alice, receiver: bob, instrument: reg.instrumentId, amount: '13', memo: 'invoice 42' },
        { 'idempotency-key': `t-${k}` },
      );
      expect({ status: other.status, code: other.json.error?.code }).toEqual({
        status: 422,
        code: 'IDEMPOTENCY_KEY_REUSED',
      });
    },
    60_000,
  );
});

const post = (path: string, body?: unknown, headers: Record<string, string> = {}) =>
  fetch(`${w.url}${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${admin}`,
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...headers,
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  }).then(async (r) => ({
    status: r.status,
    json: (await r.json()) as Record<string, unknown> & {
      error?: { code: string; message: string };
      id?: string;
    },
  }));

/** The party's pending instructions as the index answers them. */
async function instructions(party: string) {
  const r = await w.call('GET', `/wallet/v1/parties/${encodeURIComponent(party)}/transfer-instructions`);
  return r.json.items as { contractId: string; direction: string; amount: string; sender: string }[];
}

describe('a participant that prepares something else', () => {
  it('is caught before signing: another amount, another receiver, a second outflow (422, nothing signed)', async () => {
    const reg = sandbox.registries.usdq;
    await fund(alice, reg, '50');
    const stranger = sandbox.state.allocateLocalParty('thief').partyId;
    const coin = mint(sandbox.state, alice, '5').nodes.find((n) => n.kind === 'create');
    const coinId = coin?.kind === 'create' ? coin.contract.contractId : '';
    const cases = [
      { tamper: { amount: '13' }, names: /the amount is 13(\.0*)?, not 12\.5/ },
      { tamper: { receiver: stranger }, names: /the receiver is thief::/ },
      {
        tamper: {
          appendCommands: [
            {
              ExerciseCommand: {
                templateId: coinTemplate('Holding'),
                contractId: coinId,
                choice: 'Holding_Transfer',
                choiceArgument: { receiver: stranger, amount: '5.0' },
              },
            },
          ],
        },
        names: /it has 2 root actions, not 1.*sends 5(\.0*)? QuillCoin, not 0/,
      },
    ];
    for (const { tamper, names } of cases) {
      const signed = (await w.wallet.audit.signatures()).length;
      const records = (
        await w.call('GET', `/wallet/v1/submissions?party=${encodeURIComponent(alice)}&limit=200`)
      ).json.items as unknown[];
      sandbox.faults.configure({
        rules: [{ kind: 'tamperPrepare', endpoint: '/v2/interactive-submission/prepare', times: 1, tamper }],
      });
      // To carol, an offer: a tampered receiver needs no pre-approval of its own to be prepared.
      const r = await transfer({
        party: alice,
        receiver: carol,
        instrument: reg.instrumentId,
        amount: '12.5',
      });
      expect(sandbox.faults.describe().injected.tamperPrepare).toBeGreaterThan(0);
      sandbox.faults.configure({});
      expect({ status: r.status, code: r.json.error?.code }, JSON.stringify(r.json)).toEqual({
        status: 422,
        code: 'INTENT_MISMATCH',
      });
      expect(r.json.error?.message).toMatch(names);
      expect((await w.wallet.audit.signatures()).length).toBe(signed);
      const after = (
        await w.call('GET', `/wallet/v1/submissions?party=${encodeURIComponent(alice)}&limit=200`)
      ).json.items as unknown[];
      expect(after.length).toBe(records.length);
    }
    // The participant honest again: the same transfer goes through.
    const ok = await transfer({
      party: alice,
      receiver: carol,
      instrument: reg.instrumentId,
      amount: '12.5',
    });
    expect(ok.json.status).toBe('committed');
  }, 60_000);
});

describe('intents at the same time', () => {
  it('never spend one holding twice, and one Idempotency-Key sent at once gives one record', async () => {
    const reg = sandbox.registries.usdq;
    // Six holdings of 10; six transfers of 10 at once must each take a different one.
    for (let i = 0; i < 6; i++) mintHolding(sandbox.state, 'usdq', dave, '10');
    await until(async () => compareDecimal(await unlocked(dave, reg), '60') === 0, 15_000, 'dave funded');
    const body = (i: number) => ({
      party: dave,
      receiver: bob,
      instrument: reg.instrumentId,
      amount: '10',
      memo: `c${i}`,
    });
    const results = await Promise.all([0, 1, 2, 3, 4, 5].map((i) => transfer(body(i))));
    expect(results.map((r) => r.json.status)).toEqual(Array(6).fill('committed'));
    const inputs = results.flatMap((r) => (r.json.intent as { inputHoldingCids: string[] }).inputHoldingCids);
    expect(new Set(inputs).size).toBe(6);
    await until(async () => compareDecimal(await unlocked(dave, reg), '0') === 0, 15_000, 'dave spent');

    for (let i = 0; i < 2; i++) mintHolding(sandbox.state, 'usdq', dave, '10');
    await until(
      async () => compareDecimal(await unlocked(dave, reg), '20') === 0,
      15_000,
      'dave funded again',
    );
    const same = await Promise.all(
      [0, 1, 2, 3].map(() => transfer(body(9), { 'idempotency-key': 'at-once' })),
    );
    expect(new Set(same.map((r) => r.json.id)).size).toBe(1);
    expect(same.map((r) => r.status).every((s) => s === 200 || s === 202)).toBe(true);
    const one = await w.call('GET', `/wallet/v1/submissions?party=${encodeURIComponent(dave)}&limit=50`);
    expect(
      (one.json.items as { intent?: { memo: string } }[]).filter((r) => r.intent?.memo === 'c9'),
    ).toHaveLength(1);
  }, 60_000);
});

describe('two-step transfers through the API', () => {
  it('carol accepts one offer and rejects another; the sender withdraws a third', async () => {
    const reg = sandbox.registries.usdq;
    await fund(alice, reg, '300');
    const offer = async (amount: string) => {
      const r = await transfer({ party: alice, receiver: carol, instrument: reg.instrumentId, amount });
      expect(r.json, JSON.stringify(r.json)).toMatchObject({
        status: 'committed',
        intent: { transferKind: 'offer' },
      });
      let found: { contractId: string } | undefined;
      await until(
        async () => {
          found = (await instructions(carol)).find((i) => i.amount.startsWith(amount));
          return found !== undefined;
        },
        15_000,
        'the offer indexed',
      );
      return found?.contractId as string;
    };
    const c0 = await unlocked(carol, reg);
    const first = await offer('7');
    const accepted = await post(
      `/wallet/v1/transfer-instructions/${encodeURIComponent(first)}/accept?wait=20`,
      {},
    );
    expect(accepted.json, JSON.stringify(accepted.json)).toMatchObject({
      status: 'committed',
      party: carol,
      intent: {
        kind: 'instruction',
        action: 'accept',
        instructionCid: first,
        sender: alice,
        receiver: carol,
      },
    });
    await until(async () => compareDecimal(await unlocked(carol, reg), c0) > 0, 15_000, 'carol credited');
    expect(subtractDecimals(await unlocked(carol, reg), c0)).toMatch(/^7(\.0*)?$/);

    const a0 = await unlocked(alice, reg);
    const second = await offer('8');
    const a1 = await unlocked(alice, reg);
    expect(subtractDecimals(a0, a1)).toMatch(/^8(\.0*)?$/); // locked for carol
    // An empty body is fine; the party is found from the index.
    const rejected = await post(
      `/wallet/v1/transfer-instructions/${encodeURIComponent(second)}/reject?wait=20`,
    );
    expect(rejected.json, JSON.stringify(rejected.json)).toMatchObject({ status: 'committed', party: carol });
    await until(async () => compareDecimal(await unlocked(alice, reg), a1) > 0, 15_000, 'alice refunded');
    expect(await unlocked(alice, reg)).toBe(a0);

    const third = await offer('9');
    // Only the receiver accepts; the sender withdraws.
    const wrong = await post(`/wallet/v1/transfer-instructions/${encodeURIComponent(third)}/accept`, {
      party: alice,
    });
    expect({ status: wrong.status, code: wrong.json.error?.code }).toEqual({
      status: 422,
      code: 'PARTY_MISMATCH',
    });
    const withdrawn = await post(
      `/wallet/v1/transfer-instructions/${encodeURIComponent(third)}/withdraw?wait=20`,
      {
        party: alice,
      },
    );
    expect(withdrawn.json).toMatchObject({
      status: 'committed',
      party: alice,
      intent: { action: 'withdraw' },
    });
    await until(
      async () => !(await instructions(carol)).some((i) => i.contractId === third),
      15_000,
      'the withdrawn instruction gone from the index',
    );
    const gone = await post(`/wallet/v1/transfer-instructions/${encodeURIComponent(third)}/accept`, {});
    expect({ status: gone.status, code: gone.json.error?.code }).toEqual({ status: 404, code: 'NOT_FOUND' });
  }, 90_000);
});

describe('raw commands', () => {
  it('prepares, checks and submits a create; refuses bad bodies with 400', async () => {
    const r = await post('/wallet/v1/commands?wait=20', {
      party: alice,
      commands: [
        {
          CreateCommand: {
            templateId: '#quill-demo:Demo:Greeting',
            createArguments: { owner: alice, message: 'hi' },
          },
        },
      ],
    });
    expect(r.json, JSON.stringify(r.json)).toMatchObject({
      status: 'committed',
      intent: { kind: 'commands', commandCount: 1 },
    });
    for (const bad of [
      { party: alice, commands: [] },
      { party: alice },
      { party: alice, commands: [{}], extra: 1 },
    ]) {
      const x = await post('/wallet/v1/commands', bad);
      expect({ status: x.status, code: x.json.error?.code }).toEqual({
        status: 400,
        code: 'INVALID_REQUEST',
      });
    }
  });
});

describe('an intent that expires before it is signed', () => {
  it('ends expired and is prepared again only through the audited re-prepare', async () => {
    const reg = sandbox.registries.amulet;
    await fund(alice, reg, '6000');
    const held = await transfer(
      { party: alice, receiver: bob, instrument: reg.instrumentId, amount: '5500' },
      {},
      0,
    );
    expect(held.json, JSON.stringify(held.json)).toMatchObject({ status: 'awaiting_approval' });
    const id = held.json.id as string;
    // Before it expired: nothing to prepare again.
    const early = await post(`/wallet/v1/submissions/${id}/reprepare`);
    expect({ status: early.status, code: early.json.error?.code }).toEqual({
      status: 409,
      code: 'NOT_REPREPARABLE',
    });
    // Its approval deadline is its max record time (INTENT_TTL_SECONDS=6).
    const deadline = Date.parse((held.json.approval as { deadline: string }).deadline);
    expect(deadline - Date.now()).toBeLessThanOrEqual(6_000);
    await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()) + 100));
    const again = await post(`/wallet/v1/submissions/${id}/reprepare`);
    expect(again.status).toBe(202);
    expect(again.json).toMatchObject({
      status: 'awaiting_approval',
      reprepareOf: id,
      intent: { amount: '5500' },
    });
    expect(again.json.id).not.toBe(id);
    // The expired record's holding is free again (its reservation was stale): the same one is spent.
    expect((again.json.intent as { inputHoldingCids: string[] }).inputHoldingCids).toEqual(
      (held.json.intent as { inputHoldingCids: string[] }).inputHoldingCids,
    );
    const twice = await post(`/wallet/v1/submissions/${id}/reprepare`);
    expect(twice.json.id).toBe(again.json.id);
    expect((await w.call('GET', `/wallet/v1/submissions/${id}`)).json).toMatchObject({
      status: 'expired',
      error: { code: 'APPROVAL_EXPIRED' },
    });
    const audit = await w.call('GET', '/wallet/v1/audit?limit=1000');
    const entries = (audit.json.items as { fields: [string, string][] }[]).map((e) =>
      Object.fromEntries(e.fields),
    );
    expect(entries.filter((e) => e.kind === 'intent.reprepared' && e.submission === id)).toEqual([
      expect.objectContaining({ actor: 'intents', party: alice, newSubmission: again.json.id }),
    ]);
  }, 60_000);
});

describe("the participant's prepare response, as it is", () => {
  const prepareGreeting = () =>
    w.client.prepare({
      userId: 'participant_admin',
      commandId: randomUUID(),
      actAs: [alice],
      readAs: [],
      disclosedContracts: [],
      synchronizerId: '',
      packageIdSelectionPreference: [],
      verboseHashing: true,
      commands: [
        {
          CreateCommand: {
            templateId: '#quill-demo:Demo:Greeting',
            createArguments: { owner: alice, message: 'as is' },
          },
        },
      ],
    } as never);

  it('is accepted unchanged (hashingDetails, costEstimation and a future field included)', async () => {
    const p = await prepareGreeting();
    expect(p.hashingDetails).toBeTruthy();
    expect(p.costEstimation).toBeTruthy();
    const r = await post('/wallet/v1/submissions?wait=20', {
      ...p,
      party: alice,
      aFieldFromTheFuture: { x: 1 },
    });
    expect(r.json, JSON.stringify(r.json)).toMatchObject({
      status: 'committed',
      costEstimation: p.costEstimation,
    });
  });

  it('still refuses an unknown field inside the prepared transaction', async () => {
    const p = await prepareGreeting();
    // Field 999, varint 1, appended to the top-level message: well-formed protobuf the schema does not have.
    const bytes = Buffer.concat([
      Buffer.from(p.preparedTransaction, 'base64'),
      Buffer.from([0xb8, 0x3e, 0x01]),
    ]);
    const r = await post('/wallet/v1/submissions', { ...p, preparedTransaction: bytes.toString('base64') });
    expect({ status: r.status, code: r.json.error?.code }).toEqual({
      status: 400,
      code: 'INVALID_PREPARED_TRANSACTION',
    });
  });
});

describe('who may ask', () => {
  it('refuses a token scoped to another party, and a party the wallet does not hold', async () => {
    const bobs = await issueToken({
      secret: SECRET,
      role: 'submit',
      ttlSeconds: 600,
      subject: 'bob',
      party: bob,
    });
    const body = {
      party: alice,
      receiver: bob,
      instrument: sandbox.registries.usdq.instrumentId,
      amount: '1',
    };
    const r = await post('/wallet/v1/transfers', body, { authorization: `Bearer ${bobs}` });
    expect({ status: r.status, code: r.json.error?.code }).toEqual({
      status: 403,
      code: 'PARTY_NOT_ALLOWED',
    });
    const reader = await issueToken({ secret: SECRET, role: 'read', ttlSeconds: 600, subject: 'reader' });
    const ro = await post('/wallet/v1/transfers', body, { authorization: `Bearer ${reader}` });
    expect(ro.status).toBe(403);
    const stranger = sandbox.state.allocateLocalParty('stranger').partyId;
    const x = await post('/wallet/v1/transfers', { ...body, party: stranger });
    expect({ status: x.status, code: x.json.error?.code }).toEqual({ status: 422, code: 'UNKNOWN_PARTY' });
    const unknownAdmin = await post('/wallet/v1/transfers', {
      ...body,
      instrument: { admin: 'nobody::1220', id: 'X' },
    });
    expect({ status: unknownAdmin.status, code: unknownAdmin.json.error?.code }).toEqual({
      status: 422,
      code: 'UNKNOWN_REGISTRY',
    });
    const tooMuch = await post('/wallet/v1/transfers', { ...body, amount: '1000000000' });
    expect({ status: tooMuch.status, code: tooMuch.json.error?.code }).toEqual({
      status: 422,
      code: 'INSUFFICIENT_HOLDINGS',
    });
    for (const amount of ['0', '-1', '1.12345678901', 'ten', '']) {
      const bad = await post('/wallet/v1/transfers', { ...body, amount });
      expect({ amount, status: bad.status }).toEqual({ amount, status: 400 });
    }
  });
});
