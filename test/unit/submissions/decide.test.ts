// The state machine's decision, without Redis or a ledger: a table of the rules, and properties that hold for
// any record, time and configuration.
import { fc, test as fcTest } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { type Attempt, decide, recordDeadline, SUBMISSION_STATUSES } from '../../../src/submissions/index.ts';
import { record } from '../../support/records.ts';

const config = { maxAttempts: 3, preparationToleranceMs: 86_400_000, settleGraceMs: 60_000 };
const T0 = Date.parse('2030-01-01T00:00:00Z');
const until = new Date(T0 + 10_000).toISOString();

function attempt(outcome: Attempt['outcome']): Attempt {
  return {
    submissionId: `s-${Math.random()}`,
    startedAt: new Date(T0).toISOString(),
    finishedAt: null,
    outcome,
    deduplicationSeconds: 60,
    error: null,
  };
}

describe('decide', () => {
  const cases: [string, Parameters<typeof decide>[0], string, string?][] = [
    ['a final record is done', { record: record({ status: 'committed' }), now: T0, config }, 'done'],
    [
      'a fresh record asks for the key status',
      { record: record({ canCommitUntil: until }), now: T0, config },
      'needs-key-status',
    ],
    [
      'a fresh record with an active key is attempted',
      { record: record({ canCommitUntil: until }), now: T0, config, keyDisabled: false },
      'attempt',
    ],
    [
      'a disabled key with nothing sent is rejected',
      { record: record({ canCommitUntil: until }), now: T0, config, keyDisabled: true },
      'reject',
      'KEY_DISABLED',
    ],
    [
      'a disabled key after an unknown outcome is only watched',
      {
        record: record({ canCommitUntil: until, attempts: [attempt('ambiguous')] }),
        now: T0,
        config,
        keyDisabled: true,
      },
      'watch',
    ],
    [
      'attempts spent, all definitely failed: expired',
      {
        record: record({
          canCommitUntil: until,
          attempts: [attempt('retryable'), attempt('retryable'), attempt('rejected')],
        }),
        now: T0,
        config,
      },
      'expire',
      'ATTEMPTS_EXHAUSTED',
    ],
    [
      'attempts spent, one unknown: watched, never expired early',
      {
        record: record({
          canCommitUntil: until,
          attempts: [attempt('retryable'), attempt('ambiguous'), attempt('retryable')],
        }),
        now: T0,
        config,
      },
      'watch',
    ],
    [
      'past the deadline with an unknown outcome, within the grace: watched',
      {
        record: record({ canCommitUntil: until, attempts: [attempt('ambiguous')] }),
        now: T0 + 20_000,
        config,
      },
      'watch',
    ],
    [
      'past the deadline and the grace: expired',
      {
        record: record({ canCommitUntil: until, attempts: [attempt('ambiguous')] }),
        now: T0 + 10_000 + 60_001,
        config,
      },
      'expire',
      'PREPARATION_TIME_TOLERANCE_PASSED',
    ],
    [
      'past max record time with nothing sent: expired with that code',
      {
        record: record({ maxRecordTime: until, createdAt: new Date(T0).toISOString() }),
        now: T0 + 10_001,
        config,
      },
      'expire',
      'MAX_RECORD_TIME_PASSED',
    ],
  ];
  for (const [name, input, kind, code] of cases) {
    it(name, () => {
      const d = decide(input);
      expect(d.kind).toBe(kind);
      if (code) expect('error' in d ? d.error.code : undefined).toBe(code);
    });
  }

  it('the deadline is canCommitUntil, else the earlier of max record time and acceptance + tolerance', () => {
    expect(recordDeadline(record({ canCommitUntil: until }), config).at).toBe(T0 + 10_000);
    const created = new Date(T0).toISOString();
    const late = new Date(T0 + 2 * 86_400_000).toISOString();
    expect(recordDeadline(record({ createdAt: created, maxRecordTime: late }), config)).toEqual({
      at: T0 + 86_400_000,
      code: 'PREPARATION_TIME_TOLERANCE_PASSED',
    });
  });
});

const arbOutcome = fc.constantFrom<Attempt['outcome']>(
  'pending',
  'committed',
  'duplicate',
  'rejected',
  'retryable',
  'ambiguous',
);
const arbInput = fc.record({
  status: fc.constantFrom(...SUBMISSION_STATUSES),
  outcomes: fc.array(arbOutcome, { maxLength: 6 }),
  deadlineIn: fc.integer({ min: -200_000, max: 200_000 }),
  maxAttempts: fc.integer({ min: 1, max: 6 }),
  grace: fc.integer({ min: 0, max: 120_000 }),
  keyDisabled: fc.option(fc.boolean(), { nil: undefined }),
});

describe('decide, for any record', () => {
  fcTest.prop([arbInput], { numRuns: 2000 })('never sends what must not be sent', (i) => {
    const rec = record({
      status: i.status,
      attempts: i.outcomes.map(attempt),
      canCommitUntil: new Date(T0 + i.deadlineIn).toISOString(),
    });
    const cfg = { ...config, maxAttempts: i.maxAttempts, settleGraceMs: i.grace };
    const d = decide({ record: rec, now: T0, config: cfg, keyDisabled: i.keyDisabled });
    const final = i.status === 'committed' || i.status === 'rejected' || i.status === 'expired';
    // A final record is never touched again.
    expect(d.kind === 'done').toBe(final);
    if (d.kind === 'attempt') {
      // Only before the deadline, with attempts left, and with a key known to be active.
      expect(i.deadlineIn).toBeGreaterThanOrEqual(0);
      expect(i.outcomes.length).toBeLessThan(i.maxAttempts);
      expect(i.keyDisabled).toBe(false);
    }
    const mayCommit = i.outcomes.some((o) => o === 'pending' || o === 'ambiguous' || o === 'duplicate');
    // Nothing that may still commit is ever declared over: it is watched until the deadline plus grace.
    if ((d.kind === 'expire' || d.kind === 'reject') && mayCommit) {
      expect(i.deadlineIn + i.grace).toBeLessThan(0);
    }
    // Watching ends once nothing can commit any more.
    if (d.kind === 'watch') {
      expect(mayCommit).toBe(true);
      expect(i.deadlineIn + i.grace).toBeGreaterThanOrEqual(0);
    }
  });
});
