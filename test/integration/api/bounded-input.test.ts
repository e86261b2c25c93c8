// Issue #12, findings 3 and 4: a body at the size limit and deeply nested JSON are answered with a 4xx, never a
// 500 (the base64 regex overflowed the regex engine's stack above ~4.47 M characters; 5,000 levels of nesting
// overflowed the recursion in parsing and in the request fingerprint).

import { fc, test as fcTest } from '@fast-check/vitest';
import { isStandardBase64 } from '@quill/canton/ledger';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonTooDeep } from '../../../src/json.ts';
import { apiHarness, prepared } from '../../support/api-harness.ts';

let h: Awaited<ReturnType<typeof apiHarness>>;
let alice: { id: string };
let token: string;

beforeAll(async () => {
  h = await apiHarness();
  alice = await h.party('alice');
  token = await h.token('submit', alice.id);
});
afterAll(() => h.close());

const nested = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

describe('large and deep bodies', () => {
  it('a 4.6 M-character base64 prepared transaction is a 400 (not a transaction), not a 500', async () => {
    const res = await h.call('POST', '/wallet/v1/submissions', {
      body: { ...prepared(alice.id).body, preparedTransaction: 'A'.repeat(4_600_000) },
      token,
    });
    expect(res.status).toBe(400);
    expect(res.json.error?.code).toBe('INVALID_PREPARED_TRANSACTION');
  });

  it('one over the size limit is a 413 naming the field, also as a batch item', async () => {
    const big = { ...prepared(alice.id).body, preparedTransaction: 'A'.repeat(16 * 1024 * 1024 + 4) };
    const res = await h.call('POST', '/wallet/v1/submissions', { body: big, token });
    expect(res.status).toBe(413);
    expect(res.json.error).toMatchObject({
      code: 'TOO_LARGE',
      message: expect.stringMatching(/^preparedTransaction: /),
    });
    const batch = await h.call('POST', '/wallet/v1/submissions/batch', {
      body: { submissions: [big] },
      token,
    });
    expect(batch.status).toBe(200);
    expect(batch.json.items).toMatchObject([{ index: 0, status: 413, error: { code: 'TOO_LARGE' } }]);
  });

  it('malformed base64 is a 400', async () => {
    const res = await h.call('POST', '/wallet/v1/submissions', {
      body: { ...prepared(alice.id).body, preparedTransaction: 'AAA=A===' },
      token,
    });
    expect(res.status).toBe(400);
    expect(res.json.error?.code).toBe('INVALID_REQUEST');
  });

  it('5,000 levels of nesting in a pass-through field, or in a batch, are a 400', async () => {
    const body = `{"preparedTransaction":"AAAA","hashingSchemeVersion":"HASHING_SCHEME_VERSION_V2","transactionFormat":${nested(5000)}}`;
    const one = await h.call('POST', '/wallet/v1/submissions', { body, token });
    expect(one.status).toBe(400);
    expect(one.json.error?.message).toMatch(/nests deeper than 64 levels/);
    const batch = await h.call('POST', '/wallet/v1/submissions/batch', {
      body: `{"submissions":[${body}]}`,
      token,
    });
    expect(batch.status).toBe(400);
    expect(batch.json.error?.code).toBe('INVALID_REQUEST');
    expect(await h.wallet.audit.signatures()).toEqual([]);
  });
});

describe('linear checks agree with their definitions', () => {
  const REGEX = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
  fcTest.prop([fc.oneof(fc.base64String(), fc.string(), fc.stringMatching(/^[A-Za-z0-9+/=]{0,24}$/))], {
    numRuns: 2000,
  })('isStandardBase64 is the standard-base64 regex', (s) => {
    expect(isStandardBase64(s)).toBe(REGEX.test(s));
  });
  // Long strings are checked natively (a round trip through the decoder): one character changed anywhere.
  fcTest.prop(
    [
      fc.uint8Array({ minLength: 1, maxLength: 3000 }),
      fc.nat(),
      fc.constantFrom('-', '_', ' ', '=', '\n', '.', 'é', '\u0100', '\u{1F600}', 'A', '/', '+'),
    ],
    { numRuns: 1000 },
  )('isStandardBase64 is the regex on long strings too', (bytes, at, ch) => {
    const s = Buffer.from(bytes).toString('base64');
    const i = at % s.length;
    const changed = s.slice(0, i) + ch + s.slice(i + 1);
    expect(isStandardBase64(s)).toBe(true);
    expect(isStandardBase64(changed)).toBe(REGEX.test(changed));
  });

  const depthOf = (v: unknown): number =>
    v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depthOf)) : 0;
  fcTest.prop([fc.json({ depthSize: 'large' }), fc.integer({ min: 0, max: 8 })], { numRuns: 1000 })(
    'jsonTooDeep measures what JSON.parse would build',
    (text, max) => {
      expect(jsonTooDeep(text, max)).toBe(depthOf(JSON.parse(text)) > max);
    },
  );
  // Any text, JSON or not, dense in quotes and backslashes: the same answer as a scan of every character.
  const scanned = (text: string, max: number): boolean => {
    let depth = 0;
    let inString = false;
    for (let i = 0; i < text.length; i++) {
      const c = text[i];
      if (inString) {
        if (c === '\\') i++;
        else if (c === '"') inString = false;
      } else if (c === '"') inString = true;
      else if (c === '{' || c === '[') {
        if (++depth > max) return true;
      } else if (c === '}' || c === ']') depth--;
    }
    return false;
  };
  fcTest.prop(
    [
      fc.string({ unit: fc.constantFrom('"', '\\', '[', ']', '{', '}', 'a'), maxLength: 60 }),
      fc.integer({ min: 0, max: 4 }),
    ],
    { numRuns: 2000 },
  )('jsonTooDeep on any text agrees with a character-by-character scan', (text, max) => {
    expect(jsonTooDeep(text, max)).toBe(scanned(text, max));
  });
});

describe('configured size limits', () => {
  let small: Awaited<ReturnType<typeof apiHarness>>;
  let token: string;
  beforeAll(async () => {
    small = await apiHarness({ MAX_PREPARED_TRANSACTION_BYTES: '1024', BATCH_MAX_BYTES: '4096' });
    const bob = await small.party('bob');
    token = await small.token('submit', bob.id);
  });
  afterAll(() => small.close());

  it('a prepared transaction over MAX_PREPARED_TRANSACTION_BYTES is a 413, alone or in a batch', async () => {
    const body = { preparedTransaction: 'A'.repeat(1400), hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2' };
    const one = await small.call('POST', '/wallet/v1/submissions', { body, token });
    expect(one.status).toBe(413);
    expect(one.json.error?.message).toMatch(/^preparedTransaction: 1050 bytes, more than the 1024/);
    const batch = await small.call('POST', '/wallet/v1/submissions/batch', {
      body: { submissions: [body] },
      token,
    });
    expect(batch.json.items).toMatchObject([{ status: 413, error: { code: 'TOO_LARGE' } }]);
  });

  it('a batch body over BATCH_MAX_BYTES is a 413, whatever its item count', async () => {
    const item = { preparedTransaction: 'A'.repeat(1200), hashingSchemeVersion: 'HASHING_SCHEME_VERSION_V2' };
    const res = await small.call('POST', '/wallet/v1/submissions/batch', {
      body: { submissions: [item, item, item, item] },
      token,
    });
    expect(res.status).toBe(413);
    expect(res.json.error?.code).toBe('BATCH_TOO_LARGE');
    expect(await small.wallet.audit.signatures()).toEqual([]);
  });
});
