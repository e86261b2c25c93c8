// The preview's sentences (issue 27, part 3): one per movement, from the movements alone, amounts exact.
import { describe, expect, it } from 'vitest';
import { describeMovements, nodeTree, shortAmount, shortParty } from '../../../src/policy/describe.ts';
import type { AssetMovements, HoldingRef } from '../../../src/policy/movements.ts';

const fp = (c: string) => `1220${c.repeat(64)}`;
const DEMO = `demo::${fp('a')}`;
const TREASURY = `treasury::${fp('b')}`;
const DSO = `DSO::${fp('c')}`;
const AMULET = { admin: DSO, id: 'Amulet' };
const USDQ = { admin: `registrar::${fp('d')}`, id: 'USDQ' };

const holding = (owner: string, amount: string, locked = false, instrument = AMULET): HoldingRef => ({
  contractId: `00${owner.slice(0, 4)}${amount}`,
  template: '#splice-amulet:Splice.Amulet:Amulet',
  owner,
  instrument,
  amount,
  locked,
});

const none = (): AssetMovements => ({
  created: [],
  consumed: [],
  deltas: [],
  transfers: [],
  unrecognized: [],
});

describe('describeMovements', () => {
  it('a one-step transfer: amount, instrument, admin, receiver, memo, expiry and change', () => {
    const m: AssetMovements = {
      ...none(),
      consumed: [holding(DEMO, '900.0000000000')],
      created: [holding(TREASURY, '250.0000000000'), holding(DEMO, '650.0000000000')],
      transfers: [
        {
          nodeId: '0',
          choice: 'TransferFactory_Transfer',
          sender: DEMO,
          receiver: TREASURY,
          amount: '250.0000000000',
          instrument: AMULET,
          executeBefore: '2026-11-25T13:05:00Z',
          memo: 'invoice 42',
        },
      ],
    };
    expect(describeMovements(m)).toEqual([
      `demo::1220aaaaaaaa… sends 250.0 Amulet (admin DSO::1220cccccccc…) to treasury::1220bbbbbbbb…, memo 'invoice 42', expires 2026-11-25 13:05 UTC; 650.0 back as change`,
    ]);
  });

  it('a two-step transfer is an offer, locked until accepted; accept, reject and withdraw say who does what', () => {
    const base = {
      nodeId: '0',
      sender: DEMO,
      receiver: TREASURY,
      amount: '10',
      instrument: USDQ,
      executeBefore: null,
      memo: null,
    };
    const offer: AssetMovements = {
      ...none(),
      created: [holding(DEMO, '10', true, USDQ)],
      transfers: [{ ...base, choice: 'TransferFactory_Transfer' }],
    };
    expect(describeMovements(offer)[0]).toContain(
      'offers 10.0 USDQ (admin registrar::1220dddddddd…) to treasury',
    );
    expect(describeMovements(offer)[0]).toContain('locked until treasury::1220bbbbbbbb… accepts');
    const accept = { ...none(), transfers: [{ ...base, choice: 'TransferInstruction_Accept' as const }] };
    expect(describeMovements(accept)).toEqual([
      'treasury::1220bbbbbbbb… accepts 10.0 USDQ (admin registrar::1220dddddddd…) from demo::1220aaaaaaaa…',
    ]);
    const reject = { ...none(), transfers: [{ ...base, choice: 'TransferInstruction_Reject' as const }] };
    expect(describeMovements(reject)[0]).toMatch(/rejects 10\.0 USDQ .* it goes back to demo/);
    const withdraw = { ...none(), transfers: [{ ...base, choice: 'TransferInstruction_Withdraw' as const }] };
    expect(describeMovements(withdraw)[0]).toMatch(/^demo::1220aaaaaaaa… withdraws the offer of 10\.0 USDQ/);
  });

  it('movements no token transfer explains are read from the deltas; unrecognized ones are said plainly', () => {
    const m: AssetMovements = {
      ...none(),
      consumed: [holding(DEMO, '100', false, USDQ)],
      created: [holding(TREASURY, '40', false, USDQ), holding(DEMO, '60', false, USDQ)],
      deltas: [
        { party: DEMO, instrument: USDQ, outflow: '40', inflow: '0', locked: '0', unlocked: '0' },
        { party: TREASURY, instrument: USDQ, outflow: '0', inflow: '40', locked: '0', unlocked: '0' },
        { party: DEMO, instrument: AMULET, outflow: '0', inflow: '5', locked: '0', unlocked: '0' },
      ],
      unrecognized: [
        { contractId: `00${'e'.repeat(60)}`, template: '#other:Other:Coin', why: 'no recognizer' },
      ],
    };
    expect(describeMovements(m)).toEqual([
      'demo::1220aaaaaaaa… sends 40.0 USDQ (admin registrar::1220dddddddd…) to treasury::1220bbbbbbbb…; 60.0 back as change',
      'demo::1220aaaaaaaa… receives 5.0 Amulet (admin DSO::1220cccccccc…)',
      `Unrecognized asset movement: #other:Other:Coin contract 00eeeeeeeeeeeeee…: no recognizer`,
    ]);
    expect(describeMovements(none())).toEqual(['Moves no holding Quill recognizes']);
  });

  it('amounts stay exact and parties keep their hint', () => {
    expect(shortAmount('1000000.0000000001')).toBe('1000000.0000000001');
    expect(shortAmount('0.1000000000')).toBe('0.1');
    expect(shortAmount('12')).toBe('12.0');
    expect(shortParty('alice')).toBe('alice');
    expect(shortParty(DEMO)).toBe('demo::1220aaaaaaaa…');
  });
});

describe('nodeTree', () => {
  it('prints one indented line per node with its template, choice and interface', () => {
    const lines = nodeTree({
      nodes: [
        {
          nodeId: '0',
          parentId: null,
          depth: 0,
          kind: 'exercise',
          templateId: 'abc:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules',
          packageName: 'splice-amulet',
          interfaceId: '55ba:Splice.Api.Token.TransferInstructionV1:TransferFactory',
          choice: 'TransferFactory_Transfer',
          consuming: false,
          actingParties: [DEMO],
        },
        {
          nodeId: '1',
          parentId: '0',
          depth: 1,
          kind: 'create',
          templateId: 'abc:Splice.Amulet:Amulet',
          packageName: 'splice-amulet',
        },
      ],
    } as never);
    expect(lines).toEqual([
      '[0] exercise TransferFactory_Transfer on #splice-amulet:Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules via Splice.Api.Token.TransferInstructionV1:TransferFactory by demo::1220aaaaaaaa…',
      '  [1] create #splice-amulet:Splice.Amulet:Amulet',
    ]);
  });
});
