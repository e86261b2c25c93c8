// The policy on asset movements (issue 27): amount and velocity per instrument, the instrument, receiver, memo and
// executeBefore conditions, unrecognized movements denied unless a rule says otherwise; schema errors with paths.
import { describe, expect, it } from 'vitest';
import {
  AMULET_RECOGNIZERS,
  evaluatePolicy,
  PolicyInvalid,
  parsePolicy,
  type TransactionFacts,
  transactionFacts,
  type VelocityItem,
  velocityLookup,
} from '../../../src/policy/index.ts';
import {
  AMULET,
  DSO,
  FAKE_AMULET,
  MYSTERY,
  TEST_RECOGNIZERS,
  type TransferSpec,
  TxBuilder,
  USD,
} from './token-tx.ts';

const RECOGNIZERS = [...TEST_RECOGNIZERS, ...AMULET_RECOGNIZERS];
const ALICE = 'alice::1220aa';
const BOB = 'bob::1220bb';
const EXCHANGE = 'exchange::1220ee';
const E10 = 10n ** 10n;

/** The facts of alice's TransferFactory_Transfer of `amount` (whole units) of `instrument`. */
function transfer(amount: bigint, over: Partial<TransferSpec> = {}): TransactionFacts {
  const b = new TxBuilder([ALICE]);
  b.factoryTransfer({
    sender: ALICE,
    receiver: BOB,
    instrument: AMULET,
    amount: amount * E10,
    inputs: [amount * E10 + 7n * E10],
    twoStep: false,
    namesInputs: true,
    executeBefore: '2026-01-01T01:00:00Z',
    ...over,
  });
  return transactionFacts(b.preview('2026-01-01T00:00:00Z'), RECOGNIZERS);
}

const AMULET_LIMIT = parsePolicy(`
rules:
  - name: big-amulet
    match:
      instrument: { admin: "${DSO}", id: Amulet }
      amount: { gt: "100" }
    action: approve
    quorum: 2
`);

describe('amount per instrument', () => {
  it('holds a 1,000,000 Amulet TransferFactory_Transfer for 2 approvals; 50 passes', async () => {
    const big = await evaluatePolicy(AMULET_LIMIT, transfer(1_000_000n));
    expect(big.rule).toBe('big-amulet');
    expect(big.outcome).toMatchObject({ action: 'approve', quorum: 2 });
    expect(big.outflows).toEqual([{ instrument: AMULET, amount: '1000000' }]);
    expect((await evaluatePolicy(AMULET_LIMIT, transfer(50n))).rule).toBeNull();
  });

  it('a rule without an instrument reads transfer.amount too: no amount 0 through the factory', async () => {
    const any = parsePolicy('rules: [{name: big, match: {amount: {gt: "100"}}, action: approve, quorum: 2}]');
    expect((await evaluatePolicy(any, transfer(1_000_000n))).rule).toBe('big');
    expect((await evaluatePolicy(any, transfer(1_000_000n, { twoStep: true }))).rule).toBe('big');
    expect((await evaluatePolicy(any, transfer(1_000_000n, { namesInputs: false }))).rule).toBe('big');
  });

  it('1,000,000 of another instrument, or of a look-alike "Amulet", does not count against the Amulet limit', async () => {
    for (const instrument of [USD, FAKE_AMULET]) {
      const d = await evaluatePolicy(AMULET_LIMIT, transfer(1_000_000n, { instrument }));
      expect(d.rule).toBeNull();
      expect(d.outflows).toEqual([{ instrument, amount: '1000000' }]);
    }
  });

  it('two instruments in one transaction are weighed separately, never summed', async () => {
    const b = new TxBuilder([ALICE]);
    const base = {
      sender: ALICE,
      receiver: BOB,
      twoStep: false,
      namesInputs: true,
      executeBefore: '2026-01-01T01:00:00Z',
    };
    b.factoryTransfer({ ...base, instrument: AMULET, amount: 60n * E10, inputs: [60n * E10] });
    b.factoryTransfer({ ...base, instrument: USD, amount: 60n * E10, inputs: [60n * E10] });
    const f = transactionFacts(b.preview(), RECOGNIZERS);
    const any = parsePolicy('rules: [{name: big, match: {amount: {gt: "100"}}, action: deny}]');
    expect((await evaluatePolicy(any, f)).rule).toBeNull();
  });
});

describe('velocity per instrument', () => {
  const NOW = Date.parse('2026-01-01T12:00:00Z');
  const ago = (minutes: number) => new Date(NOW - minutes * 60_000).toISOString();
  const history: VelocityItem[] = [
    { createdAt: ago(5), status: 'committed', outflows: [{ instrument: AMULET, amount: '600' }] },
    { createdAt: ago(10), status: 'committed', outflows: [{ instrument: USD, amount: '50000' }] },
    { createdAt: ago(20), status: 'rejected', outflows: [{ instrument: AMULET, amount: '99999' }] },
    { createdAt: ago(30), status: 'accepted', outflows: [{ instrument: FAKE_AMULET, amount: '99999' }] },
    { createdAt: ago(40), status: 'committed', outflows: [{ instrument: AMULET, amount: '300' }] },
    { createdAt: ago(120), status: 'committed', outflows: [{ instrument: AMULET, amount: '10000' }] },
  ];
  const lookup = velocityLookup(
    async () => ({ items: history, nextCursor: null }),
    () => NOW,
  );
  const doc = parsePolicy(`
rules:
  - name: amulet-hourly
    match:
      instrument: { admin: "${DSO}", id: Amulet }
      velocity: { window: 1h, maxAmount: "1000" }
    action: approve
    quorum: 2
  - name: amulet-count
    match:
      instrument: [{ admin: "${DSO}", id: Amulet }]
      velocity: { window: 1h, maxCount: 2 }
    action: deny
`);

  it('sums only the same instrument inside the window', async () => {
    const w = await lookup(ALICE, 3600);
    expect(w.count).toBe(4);
    expect(w.instruments).toEqual({
      [`${DSO}/Amulet`]: { count: 2, amount: '900' },
      [`${USD.admin}/USDx`]: { count: 1, amount: '50000' },
      [`${FAKE_AMULET.admin}/Amulet`]: { count: 1, amount: '99999' },
    });
    expect((await evaluatePolicy(doc, transfer(100n), lookup)).rule).toBe('amulet-count'); // 900 + 100: the 3rd
    const hourly = parsePolicy(`rules: [${JSON.stringify(doc.rules[0])}]`);
    expect((await evaluatePolicy(hourly, transfer(100n), lookup)).rule).toBeNull(); // 1000 is not above
    expect((await evaluatePolicy(hourly, transfer(101n), lookup)).rule).toBe('amulet-hourly');
    // USD's 50,000 and the look-alike's 99,999 are not Amulet.
    expect((await evaluatePolicy(doc, transfer(101n, { instrument: USD }), lookup)).rule).toBeNull();
    expect((await evaluatePolicy(doc, transfer(101n, { instrument: FAKE_AMULET }), lookup)).rule).toBeNull();
  });

  it('without an instrument, maxAmount is still per instrument and maxCount counts every submission', async () => {
    const any = parsePolicy(`
rules:
  - { name: sum, match: { velocity: { window: 1h, maxAmount: "60000" } }, action: deny }
  - { name: count, match: { velocity: { window: 1h, maxCount: 4 } }, action: deny }
`);
    // Every instrument's sum is under 60,000 (USD 50,000 + 9,000); all of them together would not be.
    expect((await evaluatePolicy(any, transfer(9000n, { instrument: USD }), lookup)).rule).toBe('count');
    expect((await evaluatePolicy(any, transfer(10001n, { instrument: USD }), lookup)).rule).toBe('sum');
  });
});

describe('receiver, memo, executeBefore', () => {
  const doc = parsePolicy(`
rules:
  - name: exchange-needs-memo
    match: { receiver: "${EXCHANGE}", memo: { present: false } }
    action: deny
    reason: deposits to the exchange need a memo
  - name: exchange-account
    match: { receiver: "${EXCHANGE}", memo: { pattern: "^acct-[0-9]{4}$" } }
    action: allow
  - name: exchange-other
    match: { receiver: "${EXCHANGE}" }
    action: deny
  - name: long-lived
    match: { executeBefore: { gt: 1d } }
    action: approve
    quorum: 1
`);
  const to = (receiver: string, memo?: string, executeBefore = '2026-01-01T01:00:00Z') =>
    transfer(10n, { receiver, executeBefore, ...(memo !== undefined ? { memo } : {}) });

  it('matches the receiver and the memo of the token transfer', async () => {
    expect((await evaluatePolicy(doc, to(EXCHANGE))).outcome).toEqual({
      action: 'deny',
      reason: 'deposits to the exchange need a memo',
    });
    expect((await evaluatePolicy(doc, to(EXCHANGE, ''))).rule).toBe('exchange-needs-memo'); // empty is absent
    expect((await evaluatePolicy(doc, to(EXCHANGE, 'acct-0042'))).rule).toBe('exchange-account');
    expect((await evaluatePolicy(doc, to(EXCHANGE, 'acct-42; drop'))).rule).toBe('exchange-other');
    expect((await evaluatePolicy(doc, to(EXCHANGE, `acct-0042${' '.repeat(2000)}`))).rule).toBe(
      'exchange-other',
    );
    expect((await evaluatePolicy(doc, to(BOB))).rule).toBeNull();
  });

  it('bounds executeBefore relative to the preparation time', async () => {
    expect((await evaluatePolicy(doc, to(BOB, 'x', '2026-01-01T23:59:59Z'))).rule).toBeNull();
    expect((await evaluatePolicy(doc, to(BOB, 'x', '2026-01-08T00:00:00Z'))).rule).toBe('long-lived');
  });
});

describe('unrecognized asset movements', () => {
  const mystery = () => transfer(1_000_000n, { instrument: MYSTERY });

  it('are denied by default, naming what was not recognized, whatever the other rules say', async () => {
    const doc = parsePolicy('rules: [{name: everything, action: allow}]');
    const d = await evaluatePolicy(doc, mystery());
    expect(d.rule).toBeNull();
    expect(d.outcome.action).toBe('deny');
    expect(d.outcome.action === 'deny' && d.outcome.reason).toMatch(
      /^unrecognized asset movement \(no rule allows it\): 00.*#mystery:Mystery:Holding.*no recognizer can value/,
    );
    expect(d.outflows).toEqual([]);
  });

  it('match the rules that say `unrecognized: true`', async () => {
    const doc = parsePolicy(`
rules:
  - { name: known-only, match: { unrecognized: false }, action: allow }
  - { name: unknown, match: { unrecognized: true }, action: approve, quorum: 3 }
`);
    expect((await evaluatePolicy(doc, mystery())).rule).toBe('unknown');
    expect((await evaluatePolicy(doc, transfer(5n))).rule).toBe('known-only');
  });

  it('with `unrecognizedAssets: allow`, every rule applies (and the default)', async () => {
    const doc = parsePolicy('unrecognizedAssets: allow\ndefault: deny\nrules: [{name: all, action: allow}]');
    expect((await evaluatePolicy(doc, mystery())).rule).toBe('all');
    const none = parsePolicy('unrecognizedAssets: allow\ndefault: deny\n');
    expect((await evaluatePolicy(none, mystery())).outcome).toEqual({
      action: 'deny',
      reason: 'no rule allows this transaction',
    });
  });
});

describe('schema', () => {
  const paths = (text: string) => {
    try {
      parsePolicy(text);
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyInvalid);
      return (err as PolicyInvalid).problems.map((p) => p.path);
    }
    return [];
  };
  const match = (m: string) => paths(`rules: [{name: a, action: allow, match: ${m}}]`);

  it('counts a group in people: alice and oidc:alice are one (issue 29 F3)', () => {
    const doc = (members: string) =>
      paths(`groups: {g: [${members}]}\nrules: [{name: a, action: approve, quorum: 2, group: g}]`);
    expect(doc('alice, oidc:alice')).toEqual(['rules[0].quorum']);
    expect(doc('alice, oidc:bob')).toEqual([]);
  });

  it('names the path of a problem in each new condition', () => {
    expect(match('{instrument: {id: Amulet}}')).toEqual(['rules[0].match.instrument.admin']);
    expect(match('{instrument: [{admin: dso::1, id: Amulet, colour: red}]}')).toContain(
      'rules[0].match.instrument[0]',
    );
    expect(match('{instrument: []}')).toEqual(['rules[0].match.instrument']);
    expect(match('{receiver: ""}')).toEqual(['rules[0].match.receiver']);
    expect(match('{memo: {}}')).toEqual(['rules[0].match.memo']);
    expect(match('{memo: {present: yes please}}')).toEqual(['rules[0].match.memo.present']);
    expect(match('{memo: {pattern: "(unclosed"}}')).toEqual(['rules[0].match.memo.pattern']);
    expect(match(`{memo: {pattern: "${'a'.repeat(201)}"}}`)).toEqual(['rules[0].match.memo.pattern']);
    expect(match('{executeBefore: {gt: soon}}')).toEqual(['rules[0].match.executeBefore.gt']);
    expect(match('{executeBefore: {}}')).toEqual(['rules[0].match.executeBefore']);
    expect(match('{unrecognized: maybe}')).toEqual(['rules[0].match.unrecognized']);
    expect(paths('unrecognizedAssets: ignore')).toEqual(['unrecognizedAssets']);
  });

  it('parses the new conditions', () => {
    const doc = parsePolicy(`
rules:
  - name: r
    match:
      instrument: { admin: dso::1, id: Amulet }
      receiver: bob::1
      memo: { present: true, pattern: "^[0-9]+$" }
      executeBefore: { lte: 7d, gt: 30m }
      unrecognized: false
    action: allow
`);
    expect(doc.unrecognizedAssets).toBe('deny');
    expect(doc.rules[0]?.match).toEqual({
      instrument: [{ admin: 'dso::1', id: 'Amulet' }],
      receiver: ['bob::1'],
      memo: { present: true, pattern: '^[0-9]+$' },
      executeBefore: { lte: 604800, gt: 1800 },
      unrecognized: false,
    });
  });
});
