// Asset movements over generated token-standard transactions (issue 27): the deltas balance against the holdings
// created and consumed, nothing that leaves a wallet party reads as amount 0, instruments never sum.
import { fc, test } from '@fast-check/vitest';
import { instrumentKey } from '@quill/canton/token';
import { describe, expect, it } from 'vitest';
import {
  AMULET_RECOGNIZERS,
  assetMovements,
  compareDecimal,
  parsePolicy,
  staticMatch,
  subtractDecimals,
  sumDecimals,
  transactionFacts,
} from '../../../src/policy/index.ts';
import {
  AMULET,
  dec,
  FAKE_AMULET,
  MYSTERY,
  TEST_RECOGNIZERS,
  type TransferSpec,
  TxBuilder,
  USD,
} from './token-tx.ts';

const RECOGNIZERS = [...TEST_RECOGNIZERS, ...AMULET_RECOGNIZERS];
const WALLET = ['w1::1220aa', 'w2::1220bb'];
const STRANGERS = ['s1::1220cc', 's2::1220dd'];
const PARTIES = [...WALLET, ...STRANGERS];
const KNOWN = [AMULET, USD, FAKE_AMULET];

const units = fc.bigInt({ min: 1n, max: 10n ** 16n }); // up to 1,000,000 with 10 decimals
const spec = fc
  .record({
    sender: fc.constantFrom(...PARTIES),
    receiver: fc.constantFrom(...PARTIES),
    instrument: fc.constantFrom(AMULET, USD, FAKE_AMULET, MYSTERY),
    amount: units,
    extra: fc.array(units, { maxLength: 2 }),
    twoStep: fc.boolean(),
    namesInputs: fc.boolean(),
    executeBefore: fc.constantFrom('2026-01-01T01:00:00Z', '2026-01-08T00:00:00Z'),
    memo: fc.option(fc.string({ maxLength: 12 }), { nil: undefined }),
  })
  .map(
    ({ extra, memo, ...s }): TransferSpec => ({
      ...s,
      inputs: [s.amount, ...extra],
      ...(memo !== undefined ? { memo } : {}),
    }),
  );
const op = fc.record({
  kind: fc.constantFrom(
    'factory',
    'factory',
    'factory',
    'TransferInstruction_Accept',
    'TransferInstruction_Reject',
    'TransferInstruction_Withdraw',
    'transient',
  ),
  spec,
  /** Wrapper exercises around it (a proxy, a batch): token-standard choices count at any depth. */
  wrappers: fc.integer({ min: 0, max: 2 }),
  rolledBack: fc.integer({ min: 0, max: 4 }).map((n) => n === 0),
});
const txArb = fc.record({
  actAs: fc.constantFrom([WALLET[0] ?? ''], WALLET),
  ops: fc.array(op, { minLength: 1, maxLength: 5 }),
});

type GeneratedTx = typeof txArb extends fc.Arbitrary<infer T> ? T : never;

function build({ actAs, ops }: GeneratedTx) {
  const b = new TxBuilder(actAs);
  const run = (o: (typeof ops)[number]) => {
    if (o.kind === 'factory') b.factoryTransfer(o.spec);
    else if (o.kind === 'transient') {
      const cid = b.create(o.spec.instrument, o.spec.sender, o.spec.amount);
      b.archive(o.spec.instrument, o.spec.sender, o.spec.amount, cid, false, false);
    } else b.settle(o.spec, o.kind);
  };
  const wrap = (o: (typeof ops)[number], depth: number): void => {
    if (depth === 0) {
      run(o);
      return;
    }
    b.exercise(
      {
        template: 'Wallet.Proxy:Proxy',
        pkg: 'proxy',
        contractId: b.cid(),
        choice: 'Proxy_Run',
        consuming: false,
      },
      () => wrap(o, depth - 1),
    );
  };
  for (const o of ops) {
    if (o.rolledBack) b.rollback(() => wrap(o, o.wrappers));
    else wrap(o, o.wrappers);
  }
  return b;
}

const k = (party: string, i: { admin: string; id: string }) => `${party}|${instrumentKey(i)}`;
const num = (units: bigint) => (units < 0n ? `-${dec(-units)}` : dec(units));

describe('asset movements over generated token-standard transactions', () => {
  test.prop([txArb], { numRuns: 300 })('the deltas balance against created and consumed holdings', (t) => {
    const b = build(t);
    const m = assetMovements(b.preview(), RECOGNIZERS);
    const byKey = new Map(m.deltas.map((d) => [k(d.party, d.instrument), d]));
    for (const [key, net] of b.truth.net) {
      const d = byKey.get(key);
      const seen = d
        ? subtractDecimals(sumDecimals([d.inflow, d.locked]), sumDecimals([d.outflow, d.unlocked]))
        : '0';
      expect(compareDecimal(seen, num(net)), key).toBe(0);
      const unlocked = d ? subtractDecimals(d.inflow, d.outflow) : '0';
      expect(compareDecimal(unlocked, num(b.truth.unlocked.get(key) ?? 0n)), key).toBe(0);
    }
    for (const d of m.deltas) {
      // The same figures from the holdings listed as created and consumed, per (owner, instrument).
      const mine = (hs: typeof m.created) =>
        sumDecimals(
          hs.filter((h) => k(h.owner, h.instrument) === k(d.party, d.instrument)).map((h) => h.amount),
        );
      const listed = subtractDecimals(mine(m.created), mine(m.consumed));
      const seen = subtractDecimals(sumDecimals([d.inflow, d.locked]), sumDecimals([d.outflow, d.unlocked]));
      expect(compareDecimal(listed, seen)).toBe(0);
      for (const f of [d.inflow, d.outflow, d.locked, d.unlocked]) expect(f.startsWith('-')).toBe(false);
      expect(compareDecimal(d.inflow, '0') > 0 && compareDecimal(d.outflow, '0') > 0).toBe(false);
    }
    // Transient holdings cancel out: none is both created and consumed.
    const created = new Set(m.created.map((h) => h.contractId));
    expect(m.consumed.filter((h) => created.has(h.contractId))).toEqual([]);
    if (b.truth.unknown) expect(m.unrecognized.length).toBeGreaterThan(0);
  });

  test.prop([txArb], { numRuns: 300 })('what leaves a wallet party is never amount 0', (t) => {
    const b = build(t);
    const f = transactionFacts(b.preview(), RECOGNIZERS);
    for (const [key, sent] of b.truth.sent) {
      const [party, instrument] = key.split('|');
      if (!party || !t.actAs.includes(party) || sent <= 0n) continue;
      const out = f.outflows.find((o) => instrumentKey(o.instrument) === instrument);
      expect(
        (out !== undefined && compareDecimal(out.amount, '0') > 0) || f.movements.unrecognized.length > 0,
        key,
      ).toBe(true);
    }
  });

  test.prop([txArb, units], { numRuns: 300 })('instruments are never summed together', (t, limit) => {
    const b = build(t);
    const f = transactionFacts(b.preview(), RECOGNIZERS);
    const keys = f.outflows.map((o) => instrumentKey(o.instrument));
    expect(new Set(keys).size).toBe(keys.length);
    for (const i of KNOWN) {
      let want = 0n;
      for (const p of t.actAs) {
        const net = b.truth.unlocked.get(k(p, i)) ?? 0n;
        if (net < 0n) want += -net;
      }
      const got = f.outflows.find((o) => instrumentKey(o.instrument) === instrumentKey(i))?.amount ?? '0';
      expect(compareDecimal(got, num(want)), instrumentKey(i)).toBe(0);
      // A rule on one instrument sees that instrument's outflow only: never the look-alike's, never a sum.
      const rule = parsePolicy(
        `rules: [{name: r, action: allow, match: {instrument: {admin: "${i.admin}", id: "${i.id}"}, amount: {gt: "${dec(limit)}"}}}]`,
      ).rules[0];
      expect(staticMatch(rule?.match ?? {}, f)).toBe(want > limit);
    }
    expect(f.outflows.some((o) => instrumentKey(o.instrument) === instrumentKey(MYSTERY))).toBe(false);
  });
});

describe('asset movements, by example', () => {
  const alice = WALLET[0] ?? '';
  const bob = STRANGERS[0] ?? '';
  const base: TransferSpec = {
    sender: alice,
    receiver: bob,
    instrument: AMULET,
    amount: 250n * 10n ** 10n,
    inputs: [900n * 10n ** 10n],
    twoStep: false,
    namesInputs: true,
    executeBefore: '2026-01-01T13:05:00Z',
    memo: 'invoice 42',
  };

  it('reads a one-step Amulet transfer: change back, the memo, the receiver, executeBefore', () => {
    const b = new TxBuilder([alice]);
    b.factoryTransfer(base);
    const m = assetMovements(b.preview(), AMULET_RECOGNIZERS);
    expect(m.unrecognized).toEqual([]);
    expect(m.transfers).toEqual([
      {
        nodeId: '0',
        choice: 'TransferFactory_Transfer',
        sender: alice,
        receiver: bob,
        amount: '250.0000000000',
        instrument: AMULET,
        executeBefore: '2026-01-01T13:05:00Z',
        memo: 'invoice 42',
      },
    ]);
    expect(m.deltas).toEqual([
      { party: alice, instrument: AMULET, outflow: '250', inflow: '0', locked: '0', unlocked: '0' },
      { party: bob, instrument: AMULET, outflow: '0', inflow: '250', locked: '0', unlocked: '0' },
    ]);
  });

  it('a two-step transfer moves the amount from unlocked to locked; accepting it pays the receiver', () => {
    const b = new TxBuilder([alice]);
    b.factoryTransfer({ ...base, twoStep: true });
    const [d] = assetMovements(b.preview(), AMULET_RECOGNIZERS).deltas;
    expect(d).toMatchObject({ party: alice, outflow: '250', locked: '250' });
    const accept = new TxBuilder([bob]);
    accept.settle(base, 'TransferInstruction_Accept');
    const m = assetMovements(accept.preview(), AMULET_RECOGNIZERS);
    expect(m.deltas).toEqual([
      { party: alice, instrument: AMULET, outflow: '0', inflow: '0', locked: '0', unlocked: '250' },
      { party: bob, instrument: AMULET, outflow: '0', inflow: '250', locked: '0', unlocked: '0' },
    ]);
    expect(m.transfers[0]).toMatchObject({
      choice: 'TransferInstruction_Accept',
      receiver: bob,
      memo: 'invoice 42',
    });
  });

  it('an unknown registry is unrecognized, never amount 0', () => {
    const b = new TxBuilder([alice]);
    b.factoryTransfer({ ...base, instrument: MYSTERY });
    const m = assetMovements(b.preview(), AMULET_RECOGNIZERS);
    expect(m.deltas).toEqual([]);
    expect(m.unrecognized.map((u) => u.why)).toEqual([
      'a token-standard holding (#mystery:Mystery:Holding) that no recognizer can value',
      expect.stringContaining('TransferFactory_Transfer of 250 MYS'),
    ]);
    // Inputs the registry picks itself (inputHoldingCids empty) and nothing Quill can see: still unrecognized.
    const bare = new TxBuilder([alice]);
    bare.exercise({
      template: 'Registry.Factory:Factory',
      pkg: 'registry',
      contractId: bare.cid(),
      choice: 'TransferFactory_Transfer',
      consuming: false,
      interfaceId: '55ba4deb:Splice.Api.Token.TransferInstructionV1:TransferFactory',
      choiceArgument: {
        expectedAdmin: MYSTERY.admin,
        transfer: bare.transferArg({ ...base, instrument: MYSTERY }, []),
      },
    });
    expect(assetMovements(bare.preview(), AMULET_RECOGNIZERS).unrecognized).toHaveLength(1);
  });

  it('a recognized template whose fields do not parse is unrecognized', () => {
    const b = new TxBuilder([alice]);
    b.factoryTransfer(base);
    const input = b.inputs[0];
    if (input)
      input.argument = { dso: DSO_OF(input.argument), owner: alice, amount: { initialAmount: '1e9' } };
    const m = assetMovements(b.preview(), AMULET_RECOGNIZERS);
    expect(m.unrecognized[0]?.why).toContain('no non-negative decimal amount at amount.initialAmount');
  });

  it('a look-alike Amulet of another admin is another instrument', () => {
    const b = new TxBuilder([alice]);
    b.factoryTransfer(base);
    b.factoryTransfer({ ...base, instrument: FAKE_AMULET, amount: 10n ** 16n, inputs: [10n ** 16n] });
    const f = transactionFacts(b.preview(), RECOGNIZERS);
    expect(f.outflows).toEqual([
      { instrument: AMULET, amount: '250' },
      { instrument: FAKE_AMULET, amount: '1000000' },
    ]);
  });

  it('what a rollback undoes does not move', () => {
    const b = new TxBuilder([alice]);
    b.rollback(() => b.factoryTransfer(base));
    const m = assetMovements(b.preview(), AMULET_RECOGNIZERS);
    expect(m).toMatchObject({ created: [], consumed: [], deltas: [], transfers: [], unrecognized: [] });
  });
});

function DSO_OF(arg: unknown): string {
  return (arg as { dso: string }).dso;
}
