// The approval block's words (issue 30 item 1): time left before the deadline and the quorum's progress.
import { describe, expect, it } from 'vitest';
import { quorumProgress, type Rec, timeLeft } from '../../../src/console/approval.tsx';

const NOW = Date.parse('2026-11-25T12:00:00Z');
const at = (minutes: number) => new Date(NOW + minutes * 60_000).toISOString();

describe('timeLeft', () => {
  it.each([
    [221, '3 h 41 min left'],
    [12, '12 min left'],
    [60, '1 h 0 min left'],
    [3 * 1440 + 125, '3 d 2 h left'],
    [0.5, 'under a minute left'],
    [0, 'past its deadline'],
    [-5, 'past its deadline'],
  ])('%s minutes ahead: %s', (minutes, text) => {
    expect(timeLeft(at(minutes), NOW)).toBe(text);
  });
});

describe('quorumProgress', () => {
  const rec = (approvals: { subject: string; decision: 'approve' | 'reject' }[], group: string | null) =>
    ({
      status: 'awaiting_approval',
      approval: { quorum: 2, group, deadline: at(221) },
      approvals: approvals.map((a) => ({ ...a, reason: null, at: at(0) })),
    }) as unknown as Rec;

  it('counts approvals, names who approved, what is missing and the time left', () => {
    expect(quorumProgress(rec([{ subject: 'alice', decision: 'approve' }], 'treasury'), NOW)).toBe(
      '1 of 2 · alice ✓ · needs 1 more from treasury · 3 h 41 min left',
    );
    expect(quorumProgress(rec([], null), NOW)).toBe('0 of 2 · needs 2 more · 3 h 41 min left');
  });
});
