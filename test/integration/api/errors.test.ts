// The API's one error table, and what a Redis failure looks like to a caller and to the operator.

import { invalidArgument, LedgerError } from '@quill/canton/ledger';
import { TransactionError } from '@quill/canton/transaction';
import { HTTPException } from 'hono/http-exception';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError, toHttpError } from '../../../src/api/index.ts';
import { AuthError } from '../../../src/auth/index.ts';
import { PartyError } from '../../../src/parties/index.ts';
import { StoreError } from '../../../src/redis/index.ts';
import { SigningError } from '../../../src/signing/index.ts';
import { SubmissionRefused } from '../../../src/submissions/index.ts';
import { apiHarness, prepared } from '../../support/api-harness.ts';

const unavailable = { status: 503, code: 'UNAVAILABLE' };

describe('toHttpError', () => {
  it.each<[string, unknown, { status: number; code: string }]>([
    ['ApiError', new ApiError(413, 'BATCH_TOO_LARGE', 'x'), { status: 413, code: 'BATCH_TOO_LARGE' }],
    [
      'SubmissionRefused',
      new SubmissionRefused(422, 'HASH_MISMATCH', 'x'),
      { status: 422, code: 'HASH_MISMATCH' },
    ],
    ['AuthError', new AuthError('UNAUTHENTICATED', 'x'), { status: 401, code: 'UNAUTHENTICATED' }],
    ['AuthError FORBIDDEN', new AuthError('FORBIDDEN', 'x'), { status: 403, code: 'FORBIDDEN' }],
    ['AuthError CONFIG', new AuthError('CONFIG', 'x'), { status: 500, code: 'INTERNAL' }],
    ['SigningError BAD_INPUT', new SigningError('BAD_INPUT', 'x'), { status: 400, code: 'INVALID_REQUEST' }],
    ['SigningError NOT_FOUND', new SigningError('NOT_FOUND', 'x'), { status: 404, code: 'NOT_FOUND' }],
    ['SigningError DISABLED', new SigningError('DISABLED', 'x'), { status: 422, code: 'KEY_DISABLED' }],
    [
      'SigningError TAMPERED',
      new SigningError('TAMPERED', 'x'),
      { status: 503, code: 'KEYSTORE_UNAVAILABLE' },
    ],
    ['PartyError BAD_INPUT', new PartyError('BAD_INPUT', 'x'), { status: 400, code: 'BAD_INPUT' }],
    ['PartyError MISMATCH', new PartyError('MISMATCH', 'x'), { status: 422, code: 'MISMATCH' }],
    ['PartyError CONFLICT', new PartyError('CONFLICT', 'x'), { status: 409, code: 'CONFLICT' }],
    [
      'PartyError CORRUPT',
      new PartyError('CORRUPT', 'x'),
      { status: 503, code: 'PARTY_REGISTRY_UNAVAILABLE' },
    ],
    [
      'TransactionError',
      new TransactionError('BAD_BASE64', 'x'),
      { status: 400, code: 'INVALID_PREPARED_TRANSACTION' },
    ],
    [
      'a ledger 409',
      new LedgerError({ status: 409, code: 'EXTERNAL_PARTY_ALREADY_EXISTS', message: 'x' }),
      { status: 409, code: 'EXTERNAL_PARTY_ALREADY_EXISTS' },
    ],
    [
      'a ledger 400',
      new LedgerError({ status: 400, code: 'INVALID_ARGUMENT', message: 'x' }),
      { status: 422, code: 'INVALID_ARGUMENT' },
    ],
    ['a client-side refusal', invalidArgument('x'), { status: 422, code: 'INVALID_ARGUMENT' }],
    [
      'a ledger out of reach',
      new LedgerError({ code: 'TRANSPORT_FAILURE', message: 'x', retryable: true }),
      unavailable,
    ],
    [
      'a ledger internal error',
      new LedgerError({ status: 500, code: 'INTERNAL_ERROR', message: 'x', errorCategory: 4 }),
      { status: 500, code: 'INTERNAL' },
    ],
    ['StoreError UNAVAILABLE', new StoreError('UNAVAILABLE', 'x'), unavailable],
    [
      'StoreError UNAVAILABLE under another error',
      new Error('wrapped', { cause: new StoreError('UNAVAILABLE', 'x', { cause: new Error('ECONNRESET') }) }),
      unavailable,
    ],
    [
      'StoreError INVALID_CURSOR',
      new StoreError('INVALID_CURSOR', 'x'),
      { status: 400, code: 'INVALID_CURSOR' },
    ],
    ['StoreError CORRUPT', new StoreError('CORRUPT', 'x'), { status: 500, code: 'INTERNAL' }],
    [
      'malformed JSON',
      new HTTPException(400, { message: 'whatever' }),
      { status: 400, code: 'INVALID_JSON' },
    ],
    ['a bare Error', new Error('ECONNREFUSED 127.0.0.1:6379'), { status: 500, code: 'INTERNAL' }],
    ['a thrown string', 'boom', { status: 500, code: 'INTERNAL' }],
  ])('%s', (_name, err, want) => {
    const got = toHttpError(err);
    expect({ status: got.status, code: got.body.error.code }).toEqual(want);
    expect(got.logCause).toBe(want.status >= 500);
    if (want.code === 'INTERNAL') expect(got.body.error.message).toBe('internal error');
  });
});

describe('a Redis command failing under the accept path', () => {
  let h: Awaited<ReturnType<typeof apiHarness>>;
  let alice: { id: string; fingerprint: string };
  beforeAll(async () => {
    h = await apiHarness();
    alice = await h.party('alice');
    // The audit stream replaced by a string: the store's creation script fails with WRONGTYPE, before it
    // writes anything (a real Redis error reply, nothing mocked).
    await h.wallet.store.redis.set(`${h.wallet.store.prefix}audit`, 'not a stream');
  });
  afterAll(async () => {
    await h.wallet.store.redis.del(`${h.wallet.store.prefix}audit`);
    await h.close();
  });

  it('answers 503 UNAVAILABLE and logs the cause with the request id', async () => {
    const res = await h.call('POST', '/wallet/v1/submissions', {
      body: prepared(alice.id).body,
      token: await h.token('submit'),
    });
    expect(res.status).toBe(503);
    expect(res.json).toEqual({
      error: { code: 'UNAVAILABLE', message: 'a dependency is unavailable, try again' },
    });
    const id = res.headers.get('x-request-id');
    const lines = h.logs.filter((l) => l.requestId === id);
    expect(lines).toEqual([
      expect.objectContaining({ level: 'error', msg: 'dependency unavailable', code: 'UNAVAILABLE' }),
      expect.objectContaining({ level: 'error', msg: 'request', status: 503 }),
    ]);
    expect(lines[0]?.error).toMatch(
      /StoreError: Redis is unavailable[\s\S]*caused by: ReplyError: WRONGTYPE/,
    );
  });

  it('answers each batch item 503 UNAVAILABLE and logs each cause with the request id and item index', async () => {
    const res = await h.call('POST', '/wallet/v1/submissions/batch', {
      body: { submissions: [prepared(alice.id).body, prepared(alice.id).body] },
      token: await h.token('submit'),
    });
    expect(res.status).toBe(200);
    const items = res.json.items as { index: number; status: number; error?: { code: string } }[];
    expect(items.map((i) => [i.index, i.status, i.error?.code])).toEqual([
      [0, 503, 'UNAVAILABLE'],
      [1, 503, 'UNAVAILABLE'],
    ]);
    const requestId = res.headers.get('x-request-id');
    const failed = h.logs.filter((l) => l.requestId === requestId && l.msg === 'batch item failed');
    expect(failed.map((l) => l.index).sort()).toEqual([0, 1]);
    for (const l of failed) {
      expect(l).toMatchObject({ level: 'error', code: 'UNAVAILABLE' });
      expect(l.error).toMatch(/WRONGTYPE/);
    }
  });
});
