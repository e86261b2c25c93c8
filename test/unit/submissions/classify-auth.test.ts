// Issue 26, wallet bug 2: the ledger refusing the wallet's credentials ends the submission at once, with the
// wallet's own code (the participant redacts these bodies to code "NA"); a throttle is still retried.
import { LedgerError } from '@quill/canton/ledger';
import { describe, expect, it } from 'vitest';
import { classifyError } from '../../../src/submissions/classify.ts';

const redacted = (status: number) =>
  new LedgerError({ status, code: 'NA', message: 'NA: A security-sensitive error has been received' });

describe('401 and 403 from the ledger', () => {
  it('are final: LEDGER_UNAUTHENTICATED and LEDGER_PERMISSION_DENIED, not retried until attempts run out', () => {
    expect(classifyError(redacted(401))).toMatchObject({
      kind: 'rejected',
      error: { code: 'LEDGER_UNAUTHENTICATED' },
    });
    expect(classifyError(redacted(403))).toMatchObject({
      kind: 'rejected',
      error: { code: 'LEDGER_PERMISSION_DENIED' },
    });
    expect(classifyError(new LedgerError({ status: 429, code: 'HTTP_429', message: 'slow down' })).kind).toBe(
      'retryable',
    );
  });
});
