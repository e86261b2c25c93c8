// A record's lifecycle and its error in plain words (timeline.ts, explain.ts): read from the record alone.
import { describe, expect, it } from 'vitest';
import { explain, spentInputs, timeline } from '../../../src/submissions/index.ts';
import { record } from '../../support/records.ts';

const at = (s: number) => new Date(Date.UTC(2026, 10, 28, 9, 0, s)).toISOString();
const attempt = (s: number, outcome: 'committed' | 'ambiguous' | 'rejected', code?: string) => ({
  submissionId: `a${s}`,
  startedAt: at(s),
  finishedAt: at(s + 1),
  outcome,
  deduplicationSeconds: 600,
  error: code ? { code, message: code } : null,
});

describe('timeline', () => {
  it('accepted → approvals → signed → attempts → committed, in time order', () => {
    const rec = record({
      createdAt: at(0),
      updatedAt: at(9),
      status: 'committed',
      completionOffset: 42,
      updateId: 'upd-1',
      approval: {
        rule: 'big',
        policyVersion: 3,
        quorum: 2,
        group: 'treasury',
        approvers: null,
        deadline: null,
      },
      approvals: [
        { subject: 'ann', decision: 'approve', reason: null, at: at(2) },
        { subject: 'ben', decision: 'approve', reason: 'ok', at: at(3) },
      ],
      attempts: [attempt(4, 'ambiguous', 'UNEXPECTED_ERROR'), attempt(6, 'committed')],
    });
    const steps = timeline(rec);
    expect(steps.map((s) => s.kind)).toEqual([
      'accepted',
      'approval',
      'approval',
      'signed',
      'attempt',
      'attempt',
      'committed',
    ]);
    expect(steps[0]?.text).toBe(
      'Accepted from tester; held for approval: rule "big" needs 2 approvals from treasury (policy version 3)',
    );
    expect(steps[3]?.at).toBe(at(3));
    expect(steps[4]?.text).toContain('no answer (it may have committed) — UNEXPECTED_ERROR');
    expect(steps.at(-1)?.text).toBe('Committed at offset 42 as update upd-1');
  });

  it('ends with what it waits for: approvals, the worker, an unknown outcome with its deadline', () => {
    const waiting = (over: Parameters<typeof record>[0]) => timeline(record(over)).at(-1);
    expect(
      waiting({
        status: 'awaiting_approval',
        approval: {
          rule: null,
          policyVersion: null,
          quorum: 2,
          group: null,
          approvers: null,
          deadline: at(30),
        },
        approvals: [{ subject: 'ann', decision: 'approve', reason: null, at: at(1) }],
      }),
    ).toMatchObject({ kind: 'waiting', at: null, text: `Waiting for 1 more approval until ${at(30)}` });
    expect(waiting({ status: 'queued' })?.text).toBe('Queued: waiting for a worker to send it');
    const unknown = waiting({
      status: 'executing',
      canCommitUntil: at(50),
      attempts: [attempt(1, 'ambiguous')],
      error: { code: 'OUTCOME_UNKNOWN', message: '…' },
    });
    expect(unknown).toMatchObject({ code: 'OUTCOME_UNKNOWN' });
    expect(unknown?.text).toContain(`searched until ${at(50)}`);
  });

  it('a rejection by an approver is never called signed', () => {
    const steps = timeline(
      record({
        status: 'rejected',
        approval: {
          rule: null,
          policyVersion: null,
          quorum: 1,
          group: null,
          approvers: null,
          deadline: null,
        },
        approvals: [{ subject: 'ann', decision: 'reject', reason: 'wrong amount', at: at(1) }],
        error: { code: 'APPROVAL_REJECTED', message: 'rejected by ann' },
      }),
    );
    expect(steps.map((s) => s.kind)).toEqual(['accepted', 'approval', 'rejected']);
    expect(steps[1]?.text).toBe('ann rejected: wrong amount');
  });
});

describe('explain', () => {
  it('explains each common code once, with a next step; an unknown code falls back to its message', () => {
    for (const code of [
      'LOCAL_VERDICT_INACTIVE_CONTRACTS',
      'CONTRACT_NOT_FOUND',
      'MAX_RECORD_TIME_PASSED',
      'OUTCOME_UNKNOWN',
      'APPROVAL_REJECTED',
      'KEY_DISABLED',
      'DUPLICATE_COMMAND',
    ]) {
      const x = explain({ error: { code, message: 'm' } });
      expect(x?.title, code).not.toContain(code);
      expect(x?.next.length, code).toBeGreaterThan(10);
    }
    expect(explain({ error: { code: 'MAX_RECORD_TIME_PASSED', message: '' } })?.next).toContain('Prepare');
    expect(explain({ error: { code: 'SOMETHING_NEW', message: 'the ledger said so' } })).toMatchObject({
      title: 'Refused: SOMETHING_NEW',
      text: 'the ledger said so',
    });
    expect(explain({ error: null })).toBeUndefined();
    expect(spentInputs({ code: 'CONTRACT_NOT_FOUND', message: '' })).toBe(true);
    expect(spentInputs({ code: 'KEY_DISABLED', message: '' })).toBe(false);
  });
});

describe('signature rounds in the timeline', () => {
  const round = (signed: (string | null)[], deadline: string | null = at(50)) => ({
    threshold: 2,
    deadline,
    keys: signed.map((s, i) => ({
      fingerprint: `1220${String(i).repeat(64)}`,
      holder: (i === 0 ? 'quill' : 'external') as 'quill' | 'external',
      label: i === 0 ? null : `holder-${i}`,
      signedAt: s,
    })),
  });

  it('shows who signed when and who is awaited, until the deadline, and explains the wait', () => {
    const rec = record({
      createdAt: at(0),
      status: 'awaiting_signatures',
      signatureRound: round([at(0), null, null]),
    });
    const steps = timeline(rec);
    expect(steps.map((s) => s.kind)).toEqual(['accepted', 'signature', 'waiting']);
    expect(steps[0]?.text).toContain('signs 2 of 3 keys');
    expect(steps[1]?.text).toContain('held by Quill');
    expect(steps[2]?.text).toBe(
      `Waiting for 1 more signature (1 of 2) until ${at(50)}: awaiting holder-1 (122011111111…), holder-2 (122022222222…)`,
    );
    expect(explain(rec)?.code).toBe('AWAITING_SIGNATURES');
  });

  it('explains SIGNATURES_MISSING and KEYS_ROTATED', () => {
    for (const code of ['SIGNATURES_MISSING', 'KEYS_ROTATED']) {
      const rec = record({
        status: 'expired',
        error: { code, message: code },
        signatureRound: round([at(0), at(3), null]),
      });
      expect(explain(rec)?.title).not.toMatch(/^Refused/);
      const steps = timeline(rec);
      expect(steps.filter((s) => s.kind === 'signature').map((s) => s.at)).toEqual([at(0), at(3)]);
      expect(steps.at(-1)).toMatchObject({ kind: 'expired', code });
    }
  });
});
