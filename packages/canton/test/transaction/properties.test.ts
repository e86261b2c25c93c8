// Property tests: random bytes and mutated valid transactions never crash the decoder (only typed
// TransactionErrors) and never yield a hash — a mutation that still decodes never hashes like the original.

import { buildPreparedTransaction } from '@quill/sandbox/build';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePreparedTransaction,
  decodePreparedTransactionBase64,
  encodePreparedTransaction,
  type HashingSchemeVersion,
  hashPreparedTransaction,
  previewPreparedTransaction,
  TransactionError,
} from '../../src/transaction/index.ts';
import { PreparedTransaction } from '../../src/transaction/types.ts';
import { buildInput } from './arbitraries.ts';

const schemes: HashingSchemeVersion[] = ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'];
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

/** Decodes and hashes; returns the hash or the TransactionError, rethrows anything else (a crash). */
function attempt(bytes: Uint8Array, scheme: HashingSchemeVersion): string | TransactionError {
  try {
    return hex(hashPreparedTransaction(decodePreparedTransaction(bytes), scheme));
  } catch (err) {
    if (err instanceof TransactionError) return err;
    throw err;
  }
}

/**
 * The transaction with the fields the scheme does not sign cleared: global key mappings, input contracts'
 * event blobs, and under V2 the max record time (ledger-json-api.md §2, §3.5).
 */
function signedPart(bytes: Uint8Array, scheme: HashingSchemeVersion): string {
  const tx = decodePreparedTransaction(bytes);
  const meta = tx.metadata;
  if (meta) {
    meta.globalKeyMapping = [];
    for (const c of meta.inputContracts) c.eventBlob = new Uint8Array();
    if (scheme === 'HASHING_SCHEME_VERSION_V2') meta.maxRecordTime = undefined;
  }
  return hex(encodePreparedTransaction(tx));
}

type Mutation = { op: 'set' | 'insert' | 'delete' | 'truncate'; at: number; byte: number };
const mutation = fc.record({
  op: fc.constantFrom<Mutation['op']>('set', 'insert', 'delete', 'truncate'),
  at: fc.nat(),
  byte: fc.integer({ min: 0, max: 255 }),
});

function mutate(bytes: Uint8Array, ms: Mutation[]): Uint8Array {
  let b = Array.from(bytes);
  for (const m of ms) {
    const at = b.length === 0 ? 0 : m.at % b.length;
    if (m.op === 'set') b[at] = b[at] === m.byte ? (m.byte + 1) & 0xff : m.byte;
    else if (m.op === 'insert') b.splice(at, 0, m.byte);
    else if (m.op === 'delete') b.splice(at, 1);
    else b = b.slice(0, at);
  }
  return new Uint8Array(b);
}

describe('decoder robustness', () => {
  it('random bytes: only TransactionErrors, never a hash', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 400 }), fc.constantFrom(...schemes), (bytes, scheme) => {
        expect(attempt(bytes, scheme)).toBeInstanceOf(TransactionError);
      }),
      { numRuns: 3000 },
    );
  });

  it('random text as base64: only TransactionErrors', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (s) => {
        expect(() => decodePreparedTransactionBase64(s)).toThrow(TransactionError);
      }),
      { numRuns: 1000 },
    );
  });

  it('mutated valid transactions: never a crash, never the original hash', () => {
    fc.assert(
      fc.property(
        buildInput,
        fc.array(mutation, { minLength: 1, maxLength: 3 }),
        fc.constantFrom(...schemes),
        (input, ms, scheme) => {
          const original = encodePreparedTransaction(buildPreparedTransaction(input));
          const good = attempt(original, scheme);
          expect(typeof good).toBe('string');
          const bad = mutate(original, ms);
          if (Buffer.compare(bad, original) === 0) return;
          const r = attempt(bad, scheme);
          if (typeof r !== 'string') expect(r.message).not.toMatch(/\n/);
          // The same hash is right only when the mutation touched nothing the scheme signs.
          else if (r === good) expect(signedPart(bad, scheme)).toBe(signedPart(original, scheme));
        },
      ),
      { numRuns: 1500 },
    );
  });

  it('valid random transactions decode, re-encode identically and preview', () => {
    fc.assert(
      fc.property(buildInput, (input) => {
        const bytes = encodePreparedTransaction(buildPreparedTransaction(input));
        const tx = decodePreparedTransaction(bytes);
        expect(hex(encodePreparedTransaction(tx))).toBe(hex(bytes));
        const p = previewPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V3');
        expect(p.hash).toBe(hex(hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V3')));
        JSON.stringify(p);
      }),
      { numRuns: 300 },
    );
  });
});

describe('FastBinaryWriter', () => {
  it('writes exactly the bytes of the stock protobuf-ts writer', () => {
    fc.assert(
      fc.property(buildInput, fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), (input, big) => {
        const tx = buildPreparedTransaction({ ...input, roots: [...input.roots] });
        const m = tx.metadata!;
        m.mediatorGroup = Number(BigInt.asUintN(32, big));
        const stock = PreparedTransaction.toBinary(tx, { writeUnknownFields: false });
        expect(hex(encodePreparedTransaction(tx))).toBe(hex(stock));
      }),
      { numRuns: 300 },
    );
  });
});
