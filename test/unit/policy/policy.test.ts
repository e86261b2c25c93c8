import { instrumentKey } from '@quill/canton/token';
import type { TransactionPreview } from '@quill/canton/transaction';
import { SANDBOX_RECOGNIZERS } from '@quill/sandbox';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  compareDecimal,
  evaluatePolicy,
  PolicyInvalid,
  parsePolicy,
  staticMatch,
  sumDecimals,
  type TransactionFacts,
  transactionFacts,
  validatePolicy,
} from '../../../src/policy/index.ts';

const decimalArb = fc
  .tuple(fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }), fc.integer({ min: 0, max: 12 }))
  .map(([units, scale]) => {
    const neg = units < 0n;
    const digits = (neg ? -units : units).toString().padStart(scale + 1, '0');
    const text = scale === 0 ? digits : `${digits.slice(0, -scale)}.${digits.slice(-scale)}`;
    return { text: `${neg ? '-' : ''}${text}`, units, scale };
  });

describe('decimal', () => {
  it('compares exactly, like rational arithmetic', () => {
    fc.assert(
      fc.property(decimalArb, decimalArb, (a, b) => {
        const s = Math.max(a.scale, b.scale);
        const x = a.units * 10n ** BigInt(s - a.scale);
        const y = b.units * 10n ** BigInt(s - b.scale);
        expect(compareDecimal(a.text, b.text)).toBe(x < y ? -1 : x > y ? 1 : 0);
        expect(compareDecimal(b.text, a.text)).toBe(x < y ? 1 : x > y ? -1 : 0);
      }),
    );
  });
  it('ignores trailing zeros and sums exactly', () => {
    fc.assert(
      fc.property(decimalArb, fc.integer({ min: 0, max: 10 }), (a, pad) => {
        const padded = a.scale === 0 ? `${a.text}.${'0'.repeat(pad + 1)}` : `${a.text}${'0'.repeat(pad)}`;
        expect(compareDecimal(a.text, padded)).toBe(0);
        expect(compareDecimal(sumDecimals([a.text, padded]), sumDecimals([padded, a.text]))).toBe(0);
      }),
    );
    expect(sumDecimals(['0.1', '0.2'])).toBe('0.3');
    expect(compareDecimal('100.0000000001', '100')).toBe(1);
    expect(compareDecimal('-0.0', '0')).toBe(0);
  });
  it('refuses non-decimals', () => {
    for (const bad of ['1e3', '', '.5', '1.', 'NaN', ' 1', '0x10'])
      expect(() => compareDecimal(bad, '1')).toThrow();
  });
});

const COIN = { admin: 'op::1', id: 'QuillCoin' };
const noMovements = { created: [], consumed: [], deltas: [], transfers: [], unrecognized: [] };
const facts = (over: Partial<TransactionFacts> = {}): TransactionFacts => ({
  party: 'alice::1',
  actAs: ['alice::1'],
  synchronizer: 'sync::1',
  preparationTime: '2026-01-01T00:00:00Z',
  templates: ['#quill-coin:Quill.Coin:Holding'],
  choices: ['Holding_Transfer'],
  counterparties: ['bob::1'],
  receivers: ['bob::1'],
  movements: noMovements,
  roots: [],
  outflows: [{ instrument: COIN, amount: '500.0' }],
  ...over,
});
const sending = (amount: string) => facts({ outflows: [{ instrument: COIN, amount }] });

const ISSUE_POLICY = `
default: allow
groups:
  treasury: [carol, dave, erin]
rules:
  - name: deny-x
    match: { counterparty: X::1 }
    action: deny
    reason: transfers to X are not allowed
  - name: big-coin
    match:
      template: "#quill-coin:Quill.Coin:Holding"
      amount: { gt: "100.0" }
    action: approve
    quorum: 2
    group: treasury
    ttl: 1h
`;

describe('policy document', () => {
  it('parses YAML and JSON alike', () => {
    const doc = parsePolicy(ISSUE_POLICY);
    expect(doc.rules.map((r) => r.name)).toEqual(['deny-x', 'big-coin']);
    expect(doc.rules[1]).toMatchObject({ action: 'approve', quorum: 2, group: 'treasury', ttl: 3600 });
    expect(parsePolicy(JSON.stringify({ rules: [] }))).toEqual({
      default: 'allow',
      unrecognizedAssets: 'deny',
      groups: {},
      rules: [],
    });
    expect(parsePolicy('')).toEqual({ default: 'allow', unrecognizedAssets: 'deny', groups: {}, rules: [] });
  });

  it('names the path of every problem', () => {
    const bad = `
default: maybe
rules:
  - name: a
    match: { amount: { gt: 1.5 }, colour: red }
    action: approve
    quorum: 0
  - name: a
    action: approve
    quorum: 4
    group: nobody
`;
    try {
      parsePolicy(bad);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(PolicyInvalid);
      const paths = (err as PolicyInvalid).problems.map((p) => p.path);
      expect(paths).toEqual(
        expect.arrayContaining(['default', 'rules[0].match.amount.gt', 'rules[0].match', 'rules[0].quorum']),
      );
      expect((err as PolicyInvalid).code).toBe('POLICY_INVALID');
    }
    try {
      parsePolicy(
        'rules:\n  - {name: a, action: allow}\n  - {name: a, action: approve, quorum: 1, group: g}\n',
      );
      expect.unreachable();
    } catch (err) {
      const paths = (err as PolicyInvalid).problems.map((p) => p.path);
      expect(paths).toEqual(['rules[1].name', 'rules[1].group']);
    }
    expect(() => parsePolicy('{ unclosed')).toThrow(PolicyInvalid);
    expect(() => parsePolicy('a: &x [1]\na: 2')).toThrow(PolicyInvalid);
  });

  it('never throws anything but PolicyInvalid on garbage', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.json()), (text) => {
        try {
          parsePolicy(text);
        } catch (err) {
          expect(err).toBeInstanceOf(PolicyInvalid);
        }
      }),
    );
    fc.assert(
      fc.property(fc.anything(), (v) => {
        try {
          validatePolicy(v);
        } catch (err) {
          expect(err).toBeInstanceOf(PolicyInvalid);
        }
      }),
    );
  });
});

describe('matcher', () => {
  const doc = parsePolicy(ISSUE_POLICY);
  it('first match wins; the default applies otherwise', async () => {
    expect((await evaluatePolicy(doc, facts())).rule).toBe('big-coin');
    expect((await evaluatePolicy(doc, facts({ counterparties: ['X::1'] }))).outcome).toEqual({
      action: 'deny',
      reason: 'transfers to X are not allowed',
    });
    const small = sending('50.0');
    expect(await evaluatePolicy(doc, small)).toEqual({
      rule: null,
      ruleIndex: null,
      outcome: { action: 'allow' },
      outflows: [{ instrument: COIN, amount: '50.0' }],
    });
    const exact = sending('100.0000000000');
    expect((await evaluatePolicy(doc, exact)).rule).toBeNull();
    const approve = (await evaluatePolicy(doc, facts())).outcome;
    expect(approve).toEqual({
      action: 'approve',
      quorum: 2,
      group: 'treasury',
      approvers: ['carol', 'dave', 'erin'],
      ttlSeconds: 3600,
    });
  });

  it('amount bounds agree with exact comparison for every amount', () => {
    fc.assert(
      fc.property(decimalArb, decimalArb, fc.constantFrom('gt', 'gte', 'lt', 'lte'), (a, b, op) => {
        const f = sending(a.text.startsWith('-') ? a.text.slice(1) : a.text);
        const c = compareDecimal(a.text.startsWith('-') ? a.text.slice(1) : a.text, b.text);
        const want = { gt: c > 0, gte: c >= 0, lt: c < 0, lte: c <= 0 }[op];
        expect(staticMatch({ amount: { [op]: b.text } }, f)).toBe(want);
      }),
    );
  });

  it('an empty match matches everything; every condition narrows', () => {
    const arbFacts = fc.record({
      party: fc.constantFrom('alice::1', 'bob::1'),
      synchronizer: fc.constantFrom('s1', 's2'),
      templates: fc.subarray(['#a:M:T', '#quill-coin:Quill.Coin:Holding']),
      choices: fc.subarray(['C1', 'Holding_Transfer']),
      counterparties: fc.subarray(['X::1', 'bob::1']),
    });
    fc.assert(
      fc.property(
        arbFacts,
        fc.constantFrom('alice::1', 'bob::1'),
        fc.constantFrom('C1', 'Holding_Transfer'),
        (partial, p, c) => {
          const f = facts({ ...partial, outflows: [] });
          expect(staticMatch({}, f)).toBe(true);
          expect(staticMatch({ party: [p] }, f)).toBe(f.party === p);
          expect(staticMatch({ choice: [c] }, f)).toBe(f.choices.includes(c));
          expect(staticMatch({ party: [p], choice: [c] }, f)).toBe(f.party === p && f.choices.includes(c));
          expect(staticMatch({ template: ['#quill-coin:Quill.Coin:*'] }, f)).toBe(
            f.templates.includes('#quill-coin:Quill.Coin:Holding'),
          );
          expect(staticMatch({ amount: { gte: '0' } }, f)).toBe(false);
        },
      ),
    );
  });

  it('velocity trips on the Nth transfer in the window', async () => {
    const v = parsePolicy(`rules:
  - name: burst
    match: { velocity: { window: 10m, maxCount: 2 } }
    action: deny
  - name: sum
    match: { velocity: { window: 1h, maxAmount: "1000" } }
    action: approve
    quorum: 1
`);
    const seen: number[] = [];
    const at = (count: number, amount: string) => async (_p: string, w: number) => {
      seen.push(w);
      return { count, instruments: { [instrumentKey(COIN)]: { count, amount } } };
    };
    expect((await evaluatePolicy(v, facts(), at(1, '0'))).rule).toBeNull();
    expect((await evaluatePolicy(v, facts(), at(2, '0'))).rule).toBe('burst');
    expect((await evaluatePolicy(v, facts(), at(0, '500.0'))).rule).toBeNull();
    expect((await evaluatePolicy(v, facts(), at(0, '500.1'))).rule).toBe('sum');
    expect(seen).toContain(600);
    expect(seen).toContain(3600);
  });
});

describe('transaction facts', () => {
  it('reads movements, templates and counterparties from the decoded nodes', () => {
    const preview = {
      actAs: ['alice::1'],
      synchronizerId: 'sync::1',
      preparationTime: '2026-01-01T00:00:00Z',
      inputContracts: [
        {
          contractId: 'c1',
          templateId: 'pkg:Quill.Coin:Holding',
          packageName: 'quill-coin',
          createdAt: '',
          signatories: ['op::1'],
          stakeholders: ['op::1', 'alice::1'],
          argument: { operator: 'op::1', owner: 'alice::1', amount: '800.0000000000' },
        },
      ],
      nodes: [
        {
          nodeId: '0',
          parentId: null,
          depth: 0,
          kind: 'exercise',
          templateId: 'pkg:Quill.Coin:Holding',
          packageName: 'quill-coin',
          contractId: 'c1',
          consuming: true,
          choice: 'Holding_Transfer',
          choiceArgument: { receiver: 'bob::1', amount: '500.0000000000' },
          stakeholders: ['op::1', 'alice::1'],
          choiceObservers: [],
          children: ['1', '2', '3'],
        },
        {
          nodeId: '1',
          parentId: '0',
          depth: 1,
          kind: 'create',
          templateId: 'pkg:Quill.Coin:Holding',
          packageName: 'quill-coin',
          contractId: 'c2',
          stakeholders: ['op::1', 'bob::1'],
          argument: { operator: 'op::1', owner: 'bob::1', amount: '500.0' },
        },
        {
          nodeId: '2',
          parentId: '0',
          depth: 1,
          kind: 'create',
          templateId: 'pkg:Quill.Coin:Holding',
          packageName: 'quill-coin',
          contractId: 'c3',
          stakeholders: ['op::1', 'alice::1'],
          argument: { operator: 'op::1', owner: 'alice::1', amount: '300.0' },
        },
        {
          nodeId: '3',
          parentId: '0',
          depth: 1,
          kind: 'exercise',
          templateId: 'pkg:Other:Thing',
          packageName: 'other',
          choice: 'Nested',
          choiceArgument: { receiver: 'z::1', amount: '1' },
          stakeholders: ['alice::1'],
          children: [],
        },
      ],
    } as unknown as TransactionPreview;
    const f = transactionFacts(preview, SANDBOX_RECOGNIZERS.holdings);
    expect(f.party).toBe('alice::1');
    expect(f.templates).toEqual(['#other:Other:Thing', '#quill-coin:Quill.Coin:Holding']);
    expect(f.choices).toEqual(['Holding_Transfer', 'Nested']);
    expect(f.counterparties).toEqual(['bob::1']);
    expect(f.receivers).toEqual(['bob::1']);
    // A choice argument's `amount` is no fact: what leaves alice's holdings is.
    expect(f.outflows).toEqual([{ instrument: COIN, amount: '500' }]);
    expect(f.movements.unrecognized).toEqual([]);
    // Without the coin's recognizers its holdings are not valued (and not token-standard holdings either).
    expect(transactionFacts(preview).outflows).toEqual([]);
  });
});
