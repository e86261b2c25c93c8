// Verify-before-signing (issue 28) over generated token-standard transactions: an honest prepare of the transfer
// asked passes; any difference in amount, receiver, instrument, memo, expiry or factory, or anything more moving,
// is named and refused. Instruction answers likewise.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { instructionDifferences, transferDifferences } from '../../../src/intents/verify.ts';
import { AMULET_RECOGNIZERS, transactionFacts } from '../../../src/policy/index.ts';
import {
  AMULET,
  dec,
  FAKE_AMULET,
  MYSTERY,
  TEST_RECOGNIZERS,
  type TransferSpec,
  TxBuilder,
  USD,
} from '../policy/token-tx.ts';

const RECOGNIZERS = [...TEST_RECOGNIZERS, ...AMULET_RECOGNIZERS];
const SENDER = 'w1::1220aa';
const OTHERS = ['w2::1220bb', 's1::1220cc'];
const units = fc.bigInt({ min: 1n, max: 10n ** 16n });

const spec = fc
  .record({
    receiver: fc.constantFrom(...OTHERS),
    instrument: fc.constantFrom(AMULET, USD, FAKE_AMULET),
    amount: units,
    change: fc.array(units, { maxLength: 2 }),
    twoStep: fc.boolean(),
    namesInputs: fc.boolean(),
    executeBefore: fc.constantFrom('2026-01-01T01:00:00Z', '2026-01-08T00:00:00Z'),
    memo: fc.option(fc.string({ minLength: 1, maxLength: 12 }), { nil: undefined }),
  })
  .map(
    ({ change, memo, ...s }): TransferSpec => ({
      ...s,
      sender: SENDER,
      inputs: [s.amount, ...change],
      ...(memo !== undefined ? { memo } : {}),
    }),
  );

function factsOf(build: (b: TxBuilder) => void) {
  const b = new TxBuilder([SENDER]);
  build(b);
  return transactionFacts(b.preview(), RECOGNIZERS);
}

/** What the caller asked, for the transfer `s`, on the factory the transaction exercises. */
function asked(s: TransferSpec, factoryId: string) {
  return {
    party: SENDER,
    receiver: s.receiver,
    instrument: s.instrument,
    amount: dec(s.amount),
    memo: s.memo ?? null,
    executeBefore: s.executeBefore,
    factoryId,
  };
}

describe('transfer intents', () => {
  test.prop([spec])('an honest prepare of what was asked passes', (s) => {
    const f = factsOf((b) => b.factoryTransfer(s));
    expect(transferDifferences(f, asked(s, f.roots[0]?.contractId ?? ''))).toEqual([]);
  });

  test.prop([spec, fc.constantFrom('amount', 'receiver', 'instrument', 'memo', 'executeBefore', 'factory')])(
    'a prepared transfer that differs from the request in one field is refused, naming it',
    (s, field) => {
      const f = factsOf((b) => b.factoryTransfer(s));
      const want = asked(s, f.roots[0]?.contractId ?? '');
      const tampered = {
        amount: { ...want, amount: dec(s.amount + 1n) },
        receiver: {
          ...want,
          receiver: want.receiver === OTHERS[0] ? (OTHERS[1] as string) : (OTHERS[0] as string),
        },
        instrument: { ...want, instrument: want.instrument === USD ? AMULET : USD },
        memo: { ...want, memo: `${want.memo ?? ''}x` },
        executeBefore: { ...want, executeBefore: '2027-01-01T00:00:00Z' },
        factory: { ...want, factoryId: '00ff' },
      }[field];
      const diffs = transferDifferences(f, tampered);
      expect(diffs.length).toBeGreaterThan(0);
    },
  );

  test.prop([spec, spec])('a second transfer in the same transaction is refused', (s, extra) => {
    const f = factsOf((b) => {
      b.factoryTransfer(s);
      b.factoryTransfer(extra);
    });
    const diffs = transferDifferences(f, asked(s, f.roots[0]?.contractId ?? ''));
    expect(diffs).toContain('it has 2 root actions, not 1');
    expect(diffs.some((d) => d.includes('2 token transfers'))).toBe(true);
  });

  it('refuses what it cannot value, and an outflow larger than asked', () => {
    const s: TransferSpec = {
      sender: SENDER,
      receiver: 'w2::1220bb',
      instrument: MYSTERY,
      amount: 10n,
      inputs: [10n],
      twoStep: false,
      namesInputs: true,
      executeBefore: '2026-01-08T00:00:00Z',
    };
    const mystery = factsOf((b) => b.factoryTransfer(s));
    expect(transferDifferences(mystery, asked(s, mystery.roots[0]?.contractId ?? '')).join()).toMatch(
      /cannot value/,
    );
    // The factory argument says 10, but 30 leave the sender for the receiver.
    const greedy = factsOf((b) =>
      b.exercise(
        {
          template: 'Registry.Factory:Factory',
          pkg: 'registry',
          contractId: b.cid(),
          choice: 'TransferFactory_Transfer',
          consuming: false,
          interfaceId: '55ba4deb:Splice.Api.Token.TransferInstructionV1:TransferFactory',
          choiceArgument: {
            expectedAdmin: USD.admin,
            transfer: b.transferArg({ ...s, instrument: USD }, []),
            extraArgs: {},
          },
        },
        () => {
          b.archive(USD, SENDER, 30n, b.input(USD, SENDER, 30n));
          b.create(USD, 'w2::1220bb', 30n);
        },
      ),
    );
    const diffs = transferDifferences(greedy, {
      ...asked({ ...s, instrument: USD }, greedy.roots[0]?.contractId ?? ''),
    });
    expect(diffs.join()).toContain(`sends ${dec(30n).replace(/0+$/, '')}`);
  });
});

describe('instruction answers', () => {
  const CHOICES = {
    accept: 'TransferInstruction_Accept',
    reject: 'TransferInstruction_Reject',
    withdraw: 'TransferInstruction_Withdraw',
  } as const;
  test.prop([spec, fc.constantFrom('accept', 'reject', 'withdraw' as const)])(
    'an honest answer passes; the other answers are refused',
    (s, action) => {
      const two = { ...s, twoStep: true };
      const f = factsOf((b) => b.settle(two, CHOICES[action]));
      const want = {
        party: action === 'withdraw' ? SENDER : s.receiver,
        action,
        instructionCid: f.roots[0]?.contractId ?? '',
        sender: SENDER,
        receiver: s.receiver,
        amount: dec(s.amount),
        instrument: s.instrument,
      };
      expect(instructionDifferences(f, want)).toEqual([]);
      for (const other of ['accept', 'reject', 'withdraw'] as const)
        if (other !== action)
          expect(instructionDifferences(f, { ...want, action: other }).length).toBeGreaterThan(0);
    },
  );
});
