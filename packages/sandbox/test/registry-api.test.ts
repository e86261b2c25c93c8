// The registries' off-ledger API (token standard V1 OpenAPI: token-metadata-v1, transfer-instruction-v1; shapes as
// in reference token-standard.md §4): answers for both registries, the URL scheme (Scan's `/registry` for the DSO,
// `/api/token-standard/v0/registrars/<admin>/registry` for any admin), no authentication, and bad input of every
// route as a 4xx `{error}` JSON, never a 500. Also fees: paidTrafficCost and costEstimation. Registry source: splice
// `apps/scan/.../scan/admin/http/HttpTokenStandard{Metadata,TransferInstruction}Handler.scala` and
// `scan/util/ChoiceContextBuilder.scala`; the specs `token-standard/splice-api-token-*-v1/openapi/*.yaml`.

import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { grantPreapproval, mintHolding, SANDBOX_RECOGNIZERS, startSandbox } from '../src/index.ts';
import { call, onboard, type Party, run, type Sandbox, sandboxWithAdmin, tapCommand } from './helpers.ts';

let sb: Sandbox;
let admin: string;
let alice: Party;
let bob: Party;

beforeAll(async () => {
  ({ sb, admin } = await sandboxWithAdmin());
  [alice, bob] = await Promise.all([onboard(sb, admin), onboard(sb, admin)]);
});
afterAll(async () => {
  await sb?.close();
});

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any;

const DECIMAL = /^\d+\.\d{10}$/;

function expectInstrument(i: Json, id: string) {
  expect(i).toMatchObject({ id, decimals: 10 });
  expect(typeof i.name).toBe('string');
  expect(typeof i.symbol).toBe('string');
  expect(i.totalSupply).toMatch(DECIMAL);
  expect(Number.isNaN(Date.parse(i.totalSupplyAsOf))).toBe(false);
  expect(i.supportedApis).toMatchObject({
    'splice-api-token-holding-v1': 1,
    'splice-api-token-transfer-instruction-v1': 1,
    'splice-api-token-metadata-v1': 1,
  });
}

function args(reg: Sandbox['registries']['amulet'], sender: string, receiver: string) {
  return {
    expectedAdmin: reg.admin,
    transfer: {
      sender,
      receiver,
      amount: '1.0000000000',
      instrumentId: reg.instrumentId,
      requestedAt: new Date(Date.now() - 60_000).toISOString(),
      executeBefore: new Date(Date.now() + 3_600_000).toISOString(),
      inputHoldingCids: [],
      meta: { values: {} },
    },
    extraArgs: { context: { values: {} }, meta: { values: {} } },
  };
}

describe('routing and metadata', () => {
  test('the DSO at /registry and /api/scan/registry; each admin under /api/token-standard/v0/registrars/<admin>', async () => {
    const dso = sb.registries.amulet.admin;
    const registrar = sb.registries.usdq.admin;
    expect(dso.startsWith('DSO::')).toBe(true);
    expect(registrar.startsWith('registrar::')).toBe(true);
    for (const [base, adminId] of [
      [sb.url, dso],
      [`${sb.url}/api/scan`, dso],
      [`${sb.url}/api/token-standard/v0/registrars/${encodeURIComponent(dso)}`, dso],
      [`${sb.url}/api/token-standard/v0/registrars/${registrar}`, registrar],
      [sb.registries.usdq.registryUrl, registrar],
    ]) {
      const info = await call(base!, 'GET', '/registry/metadata/v1/info');
      expect(info.status, `${base}: ${info.text}`).toBe(200);
      expect(info.json).toEqual({ adminId, supportedApis: { 'splice-api-token-metadata-v1': 1 } });
    }
    const unknown = await call(
      sb.url,
      'GET',
      `/api/token-standard/v0/registrars/${encodeURIComponent(alice.partyId)}/registry/metadata/v1/info`,
    );
    expect([unknown.status, typeof unknown.json.error]).toEqual([404, 'string']);
  });

  test('instruments: list, paging, by id; the supply counts locked and unlocked holdings', async () => {
    for (const [key, id] of [
      ['amulet', 'Amulet'],
      ['usdq', 'USDQ'],
    ] as const) {
      const reg = sb.registries[key];
      const before = await call(reg.registryUrl, 'GET', '/registry/metadata/v1/instruments');
      expect(before.status).toBe(200);
      expect(before.json.instruments).toHaveLength(1);
      expectInstrument(before.json.instruments[0], id);
      expect(before.json.nextPageToken).toBeUndefined();
      mintHolding(sb.state, key, alice.partyId, '12.5000000000');
      const one = await call(reg.registryUrl, 'GET', `/registry/metadata/v1/instruments/${id}`);
      expectInstrument(one.json, id);
      const supply = (s: string) => BigInt(s.replace('.', ''));
      expect(supply(one.json.totalSupply) - supply(before.json.instruments[0].totalSupply)).toBe(
        125_000_000_000n,
      );
      const paged = await call(reg.registryUrl, 'GET', '/registry/metadata/v1/instruments?pageSize=1');
      expect(paged.json.instruments.map((i: Json) => i.id)).toEqual([id]);
      const after = await call(reg.registryUrl, 'GET', `/registry/metadata/v1/instruments?pageToken=${id}`);
      expect(after.json.instruments).toEqual([]);
      const missing = await call(reg.registryUrl, 'GET', '/registry/metadata/v1/instruments/Nope');
      expect([missing.status, typeof missing.json.error]).toEqual([404, 'string']);
    }
  });

  test('no authentication is needed, while the ledger requires it', async () => {
    expect((await call(sb.url, 'GET', '/v2/state/ledger-end')).status).toBe(401);
    expect((await call(sb.url, 'GET', '/registry/metadata/v1/instruments')).status).toBe(200);
  });
});

describe('transfer factory and choice contexts', () => {
  test('transferKind self / direct / offer, with the context and the disclosed contracts it names', async () => {
    const carol = await onboard(sb, admin);
    grantPreapproval(sb.state, 'usdq', carol.partyId);
    for (const key of ['amulet', 'usdq'] as const) {
      const reg = sb.registries[key];
      const kind = async (receiver: string) => {
        const a = await call(reg.registryUrl, 'POST', '/registry/transfer-instruction/v1/transfer-factory', {
          choiceArguments: args(reg, alice.partyId, receiver),
        });
        expect(a.status, a.text).toBe(200);
        const ctx = a.json.choiceContext;
        // Every contract id of the context is disclosed, and the factory too.
        const disclosedIds = ctx.disclosedContracts.map((d: Json) => d.contractId);
        expect(disclosedIds).toContain(a.json.factoryId);
        for (const v of Object.values(ctx.choiceContextData.values) as Json[])
          if (v.tag === 'AV_ContractId') expect(disclosedIds).toContain(v.value);
        for (const d of ctx.disclosedContracts) {
          expect(d.templateId).toMatch(/^[0-9a-f]{64}:[A-Za-z.]+:[A-Za-z]+$/);
          expect(typeof d.createdEventBlob).toBe('string');
          expect(d.synchronizerId).toBe(sb.state.defaultSynchronizer);
          expect(d).toHaveProperty('debugPayload');
        }
        return a.json.transferKind;
      };
      expect(await kind(alice.partyId)).toBe('self');
      expect(await kind(bob.partyId)).toBe('offer');
      expect(await kind(carol.partyId)).toBe(key === 'usdq' ? 'direct' : 'offer');
      const slim = await call(reg.registryUrl, 'POST', '/registry/transfer-instruction/v1/transfer-factory', {
        choiceArguments: args(reg, alice.partyId, bob.partyId),
        excludeDebugFields: true,
      });
      for (const d of slim.json.choiceContext.disclosedContracts)
        expect(Object.keys(d).sort()).toEqual([
          'contractId',
          'createdEventBlob',
          'synchronizerId',
          'templateId',
        ]);
    }
  });

  test('bad input to every route is a 4xx {error}, never a 500', async () => {
    const reg = sb.registries.usdq;
    const base = reg.registryUrl;
    const cases: [string, string, unknown, number][] = [
      ['POST', '/registry/transfer-instruction/v1/transfer-factory', 'not json', 400],
      ['POST', '/registry/transfer-instruction/v1/transfer-factory', [], 400],
      ['POST', '/registry/transfer-instruction/v1/transfer-factory', {}, 400],
      ['POST', '/registry/transfer-instruction/v1/transfer-factory', { choiceArguments: 5 }, 400],
      [
        'POST',
        '/registry/transfer-instruction/v1/transfer-factory',
        { choiceArguments: { ...args(reg, alice.partyId, bob.partyId), transfer: { amount: 'x' } } },
        400,
      ],
      [
        'POST',
        '/registry/transfer-instruction/v1/transfer-factory',
        { choiceArguments: args(reg, alice.partyId, bob.partyId), excludeDebugFields: 'yes' },
        400,
      ],
      [
        'POST',
        '/registry/transfer-instruction/v1/transfer-factory',
        { choiceArguments: args(sb.registries.amulet, alice.partyId, bob.partyId) },
        400,
      ],
      ['POST', `/registry/transfer-instruction/v1/00${'ab'.repeat(33)}/choice-contexts/accept`, {}, 404],
      ['POST', '/registry/transfer-instruction/v1/nonsense/choice-contexts/reject', {}, 404],
      ['POST', `/registry/transfer-instruction/v1/00${'ab'.repeat(33)}/choice-contexts/explode`, {}, 404],
      ['POST', `/registry/transfer-instruction/v1/00${'ab'.repeat(33)}/choice-contexts/withdraw`, '{', 400],
      [
        'POST',
        `/registry/transfer-instruction/v1/00${'ab'.repeat(33)}/choice-contexts/withdraw`,
        { meta: [1] },
        400,
      ],
      ['GET', '/registry/metadata/v1/instruments?pageSize=0', undefined, 400],
      ['GET', '/registry/metadata/v1/instruments?pageSize=abc', undefined, 400],
      ['GET', '/registry/metadata/v1/instruments?pageToken=zzz', undefined, 400],
      ['GET', '/registry/metadata/v1/instruments/%E0%A4%A', undefined, 404],
      ['GET', '/registry/metadata/v2/info', undefined, 404],
      ['DELETE', '/registry/metadata/v1/info', undefined, 404],
    ];
    for (const [method, path, body, status] of cases) {
      const a = await call(base, method, path, body);
      expect(
        [a.status, typeof a.json?.error],
        `${method} ${path} ${JSON.stringify(body)}: ${a.text}`,
      ).toEqual([status, 'string']);
    }
    // The holding of another registry is not an instruction of this one.
    const usdqHolding = mintHolding(sb.state, 'usdq', alice.partyId, '1.0000000000');
    const a = await call(
      sb.registries.amulet.registryUrl,
      'POST',
      `/registry/transfer-instruction/v1/${usdqHolding}/choice-contexts/accept`,
      {},
    );
    expect(a.status).toBe(404);
  });

  test('fuzzed factory requests are answered 200 or 4xx JSON', async () => {
    const reg = sb.registries.amulet;
    await fc.assert(
      fc.asyncProperty(fc.anything(), async (x) => {
        const a = await call(reg.registryUrl, 'POST', '/registry/transfer-instruction/v1/transfer-factory', {
          choiceArguments: x,
          excludeDebugFields: true,
        });
        expect(a.status === 200 || (a.status >= 400 && a.status < 500), a.text).toBe(true);
        expect(a.json).toBeTypeOf('object');
      }),
      { numRuns: 60 },
    );
  });
});

describe('fees', () => {
  test('committed transactions carry paidTrafficCost (a function of their size); prepare estimates it', async () => {
    const prep = await call(
      sb.url,
      'POST',
      '/v2/interactive-submission/prepare',
      {
        userId: alice.userId,
        commandId: 'fees-1',
        commands: [tapCommand(sb, alice.partyId, '1.0000000000')],
        actAs: [alice.partyId],
        synchronizerId: '',
        packageIdSelectionPreference: [],
      },
      alice.token,
    );
    const est = prep.json.costEstimation;
    expect(est.totalTrafficCostEstimation).toBe(
      est.confirmationRequestTrafficCostEstimation + est.confirmationResponseTrafficCostEstimation,
    );
    const disabled = await call(
      sb.url,
      'POST',
      '/v2/interactive-submission/prepare',
      {
        userId: alice.userId,
        commandId: 'fees-2',
        commands: [tapCommand(sb, alice.partyId, '1.0000000000')],
        actAs: [alice.partyId],
        synchronizerId: '',
        packageIdSelectionPreference: [],
        estimateTrafficCost: { disabled: true },
      },
      alice.token,
    );
    expect(disabled.json.costEstimation).toBeNull();
    const tx = await run(sb, alice, [tapCommand(sb, alice.partyId, '2.0000000000')]);
    expect(tx.paidTrafficCost).toBeGreaterThan(0);
  });
});

test('SANDBOX_RECOGNIZERS names the non-Amulet holding templates', () => {
  expect(SANDBOX_RECOGNIZERS.holdings.map((h) => h.template)).toEqual([
    '#quill-stablecoin:Quill.Stablecoin:Holding',
    '#quill-coin:Quill.Coin:Holding',
    '#quill-coin:Quill.Coin:TransferInstruction',
  ]);
});

test('the demo funds its parties with Amulet and USDQ besides the demo coin', async () => {
  const demo = await startSandbox({ port: 0, scanPort: 0, auth: 'none', demo: true });
  try {
    const alicePartyId = [...demo.state.parties.keys()].find((p) => p.startsWith('alice::'))!;
    const owned = [...demo.state.contracts.values()].filter(
      (c) => c.archivedOffset === undefined && c.stakeholders.includes(alicePartyId),
    );
    const packages = new Set(owned.map((c) => c.packageName));
    expect([...packages].sort()).toEqual(
      expect.arrayContaining(['quill-coin', 'quill-stablecoin', 'splice-amulet']),
    );
  } finally {
    await demo.close();
  }
});
