import { invalidArgument, LedgerError, type LedgerErrorInit } from '@quill/canton/ledger';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { backoffDelay, classifyError, deduplicationSeconds } from '../../../src/submissions/index.ts';

function ledgerError(over: Partial<LedgerErrorInit>) {
  return new LedgerError({ code: 'X', message: 'cause', ...over });
}

describe('classifyError', () => {
  it('reads DUPLICATE_COMMAND with its completion offset', () => {
    const c = classifyError(
      ledgerError({
        code: 'DUPLICATE_COMMAND',
        status: 409,
        errorCategory: 10,
        context: { completion_offset: '42' },
      }),
    );
    expect(c).toMatchObject({ kind: 'duplicate', completionOffset: 42 });
  });
  it('treats unknown outcomes as ambiguous and transient failures as retryable', () => {
    expect(classifyError(ledgerError({ code: 'TIMEOUT', outcomeUnknown: true, retryable: true })).kind).toBe(
      'ambiguous',
    );
    expect(classifyError(ledgerError({ code: 'REQUEST_TIME_OUT', status: 504, errorCategory: 3 })).kind).toBe(
      'ambiguous',
    );
    expect(classifyError(ledgerError({ code: 'HTTP_503', status: 503, outcomeUnknown: true })).kind).toBe(
      'ambiguous',
    );
    expect(
      classifyError(ledgerError({ code: 'SUBMISSION_ALREADY_IN_FLIGHT', status: 409, errorCategory: 2 }))
        .kind,
    ).toBe('ambiguous');
    expect(
      classifyError(ledgerError({ code: 'UNAVAILABLE', status: 503, errorCategory: 1, retryable: true }))
        .kind,
    ).toBe('retryable');
    expect(classifyError(new Error('socket hang up')).kind).toBe('ambiguous');
  });
  it('treats definite refusals as rejected, also contention that cannot heal', () => {
    expect(
      classifyError(
        ledgerError({
          code: 'LOCAL_VERDICT_INACTIVE_CONTRACTS',
          status: 409,
          errorCategory: 2,
          retryable: true,
          definiteAnswer: true,
        }),
      ).kind,
    ).toBe('rejected');
    expect(
      classifyError(
        ledgerError({
          code: 'LOCAL_VERDICT_LOCKED_CONTRACTS',
          status: 409,
          errorCategory: 2,
          retryable: true,
        }),
      ).kind,
    ).toBe('retryable');
    const c = classifyError(
      ledgerError({ code: 'FAILED_TO_EXECUTE_TRANSACTION', status: 400, errorCategory: 8 }),
    );
    expect(c).toEqual({
      kind: 'rejected',
      error: { code: 'FAILED_TO_EXECUTE_TRANSACTION', message: 'cause' },
    });
  });
  it('ends rejected only on answers that say nothing committed; a refusal that can follow a commit is reconciled first', () => {
    // The participant reads the transaction with the caller's format only after the commit
    // (CommandServiceImpl.fetchTransactionFromCompletion): these answers can come for a committed transaction.
    for (const [code, status, errorCategory] of [
      ['INVALID_FIELD', 400, 8],
      ['INVALID_ARGUMENT', 400, 8],
      ['MISSING_FIELD', 400, 8],
      ['PACKAGE_NAMES_NOT_FOUND', 404, 11],
      ['NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME', 404, 11],
      ['UPDATE_NOT_FOUND', 404, 11],
    ] as const) {
      const answer = ledgerError({ code, status, errorCategory, definiteAnswer: false });
      expect(classifyError(answer).kind, code).toBe('refused');
    }
    // The transaction's own rejection (a failed completion): it did not commit.
    for (const [code, status, errorCategory] of [
      ['LOCAL_VERDICT_INACTIVE_CONTRACTS', 404, 11],
      ['LOCAL_VERDICT_TIMEOUT', 400, 9],
      ['FAILED_TO_EXECUTE_TRANSACTION', 400, 8],
      ['INVALID_DEDUPLICATION_PERIOD', 400, 9],
      ['DAML_AUTHORIZATION_ERROR', 400, 8],
    ] as const) {
      const answer = ledgerError({ code, status, errorCategory, definiteAnswer: false });
      expect(classifyError(answer).kind, code).toBe('rejected');
    }
    // A body the decoder could not read: nothing ran.
    expect(classifyError(ledgerError({ code: 'HTTP_400', status: 400, definiteAnswer: true })).kind).toBe(
      'rejected',
    );
  });
  it('treats a request the ledger client refused before sending as rejected, never ambiguous', () => {
    const c = classifyError(invalidArgument('executeAndWaitForTransaction: transactionFormat: bad'));
    expect(c).toEqual({
      kind: 'rejected',
      error: { code: 'INVALID_ARGUMENT', message: 'executeAndWaitForTransaction: transactionFormat: bad' },
    });
  });
  it('treats a definite answer that is not retryable as rejected', () => {
    expect(
      classifyError(ledgerError({ code: 'SOMETHING_FINAL', status: 500, definiteAnswer: true })).kind,
    ).toBe('rejected');
    expect(classifyError(ledgerError({ code: 'SOMETHING_FINAL', definiteAnswer: true })).kind).toBe(
      'rejected',
    );
    // Without a definite answer, the same shapes stay ambiguous.
    expect(classifyError(ledgerError({ code: 'SOMETHING', status: 500 })).kind).toBe('ambiguous');
    expect(classifyError(ledgerError({ code: 'SOMETHING' })).kind).toBe('ambiguous');
    // A definite answer that is retryable is still retried; an unknown outcome still wins.
    expect(
      classifyError(ledgerError({ code: 'ABORTED', status: 409, retryable: true, definiteAnswer: true }))
        .kind,
    ).toBe('retryable');
    expect(classifyError(ledgerError({ code: 'T', outcomeUnknown: true, definiteAnswer: true })).kind).toBe(
      'ambiguous',
    );
  });
  it('reads only LedgerError: a look-alike is an unexpected error, ambiguous', () => {
    const lookAlike = Object.assign(new Error('looks like one'), {
      code: 'FAILED_TO_EXECUTE_TRANSACTION',
      status: 400,
      errorCategory: 8,
      retryable: false,
      outcomeUnknown: false,
      context: {},
    });
    expect(classifyError(lookAlike)).toEqual({
      kind: 'ambiguous',
      error: { code: 'UNEXPECTED_ERROR', message: 'looks like one' },
    });
  });
  it('never throws on any thrown value', () => {
    fc.assert(
      fc.property(fc.anything(), (v) => {
        expect(['duplicate', 'rejected', 'refused', 'retryable', 'ambiguous']).toContain(
          classifyError(v).kind,
        );
      }),
    );
  });
});

describe('backoff and dedup period', () => {
  it('backs off exponentially with jitter inside the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100 }),
        fc.double({ min: 0, max: 0.999, noNaN: true }),
        (n, r) => {
          const d = backoffDelay(n, 100, 10_000, () => r);
          const exp = Math.min(10_000, 100 * 2 ** (n - 1));
          expect(d).toBeGreaterThanOrEqual(Math.floor(exp / 2));
          expect(d).toBeLessThanOrEqual(exp);
        },
      ),
    );
  });
  it('covers every earlier attempt, within the cap', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000_000 }),
        fc.integer({ min: 0, max: 100_000 }),
        (ago, req) => {
          const now = 1_800_000_000_000;
          const s = deduplicationSeconds({
            firstAttemptAt: new Date(now - ago).toISOString(),
            now,
            marginSeconds: 60,
            maxSeconds: 86_400,
            requestedSeconds: req,
          });
          expect(s).toBeLessThanOrEqual(86_400);
          expect(s).toBeGreaterThanOrEqual(Math.min(86_400, Math.ceil(ago / 1000) + 60));
          expect(s).toBeGreaterThanOrEqual(Math.min(86_400, req));
        },
      ),
    );
  });
});
