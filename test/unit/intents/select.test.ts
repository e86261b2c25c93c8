// Holding selection for transfer intents: enough of the instrument, never a locked or already-spent holding,
// at most INTENT_MAX_INPUTS, dust merged only when configured; a shortfall is a 422 saying what is available.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { IndexedHolding } from '../../../src/history/index.ts';
import { selectHoldings } from '../../../src/intents/select.ts';
import { compareDecimal, sumDecimals } from '../../../src/policy/index.ts';
import { SubmissionRefused } from '../../../src/submissions/index.ts';

const USD = { admin: 'issuer::1220', id: 'USD' };
const EUR = { admin: 'issuer::1220', id: 'EUR' };
const NOW = Date.parse('2026-06-01T00:00:00Z');

const holding = fc
  .record({
    cents: fc.integer({ min: 1, max: 100_000 }),
    instrument: fc.constantFrom(USD, USD, EUR),
    locked: fc.boolean(),
  })
  .map(
    ({ cents, instrument, locked }): Omit<IndexedHolding, 'contractId'> => ({
      templateId: 't',
      owner: 'alice::1',
      instrument,
      amount: (cents / 100).toFixed(2),
      lock: locked
        ? { holders: ['issuer::1220'], expiresAt: null, expiresAfterMicros: null, context: null }
        : null,
      createdAt: '2026-01-01T00:00:00Z',
      offset: 1,
    }),
  );
const wallet = fc
  .array(holding, { maxLength: 30 })
  .map((hs) => hs.map((h, i): IndexedHolding => ({ ...h, contractId: `c${i}` })));

describe('selectHoldings', () => {
  test.prop([
    wallet,
    fc.integer({ min: 1, max: 200_000 }),
    fc.integer({ min: 1, max: 10 }),
    fc.array(fc.nat(29)),
  ])(
    'covers the amount with unlocked, unspent holdings of the instrument, or refuses',
    (hs, cents, maxInputs, spentIdx) => {
      const amount = (cents / 100).toFixed(2);
      const spent = new Set(spentIdx.map((i) => `c${i}`));
      try {
        const chosen = selectHoldings(hs, { instrument: USD, amount, spent, now: NOW }, { maxInputs });
        const picked = chosen.map((c) => hs.find((h) => h.contractId === c) as IndexedHolding);
        expect(new Set(chosen).size).toBe(chosen.length);
        expect(chosen.length).toBeLessThanOrEqual(maxInputs);
        for (const h of picked) {
          expect(h.instrument).toEqual(USD);
          expect(h.lock).toBeNull();
          expect(spent.has(h.contractId)).toBe(false);
        }
        expect(compareDecimal(sumDecimals(picked.map((h) => h.amount)), amount)).toBeGreaterThanOrEqual(0);
      } catch (err) {
        expect(err).toBeInstanceOf(SubmissionRefused);
        expect((err as SubmissionRefused).code).toBe('INSUFFICIENT_HOLDINGS');
        // Refused only when the largest usable holdings within the limit do not cover it.
        const usable = hs
          .filter((h) => h.instrument === USD && !h.lock && !spent.has(h.contractId))
          .map((h) => h.amount)
          .sort((a, b) => compareDecimal(b, a))
          .slice(0, maxInputs);
        expect(compareDecimal(sumDecimals(usable), amount)).toBe(-1);
      }
    },
  );

  it('merges dust below the threshold only when configured', () => {
    const hs = ['50', '0.01', '0.02', '3'].map(
      (amount, i): IndexedHolding => ({
        contractId: `c${i}`,
        templateId: 't',
        owner: 'alice::1',
        instrument: USD,
        amount,
        lock: null,
        createdAt: '2026-01-01T00:00:00Z',
        offset: 1,
      }),
    );
    const q = { instrument: USD, amount: '10', spent: new Set<string>(), now: NOW };
    expect(selectHoldings(hs, q, { maxInputs: 10 })).toEqual(['c0']);
    expect(selectHoldings(hs, q, { maxInputs: 10, mergeDustBelow: '1' })).toEqual(['c0', 'c1', 'c2']);
    expect(selectHoldings(hs, q, { maxInputs: 2, mergeDustBelow: '1' })).toEqual(['c0', 'c1']);
    expect(() => selectHoldings(hs, { ...q, amount: '60' }, { maxInputs: 10 })).toThrow(/holds 53\.03 USD/);
  });
});
