// Strict decoding: every defect is a typed TransactionError with a clear one-line message.

import { fc, test as fcTest } from '@fast-check/vitest';
import { BinaryWriter, WireType } from '@protobuf-ts/runtime';
import { describe, expect, it } from 'vitest';
import { isStandardBase64 } from '../../src/ledger/schemas/common.ts';
import {
  decodePreparedTransaction,
  decodePreparedTransactionBase64,
  encodePreparedTransaction,
  hashPreparedTransaction,
  TransactionError,
  type TransactionErrorCode,
} from '../../src/transaction/index.ts';
import type { PreparedTransaction } from '../../src/transaction/types.ts';
import { sampleTx } from './sample.ts';

function code(f: () => unknown): TransactionErrorCode {
  try {
    f();
  } catch (err) {
    expect(err).toBeInstanceOf(TransactionError);
    expect((err as Error).message).not.toMatch(/\n/);
    return (err as TransactionError).code;
  }
  throw new Error('expected a TransactionError');
}

const good = encodePreparedTransaction(sampleTx());
const mutate = (f: (tx: PreparedTransaction) => void) => {
  const tx = sampleTx();
  f(tx);
  return () => decodePreparedTransaction(encodePreparedTransaction(tx));
};

describe('decodePreparedTransaction', () => {
  it('decodes a valid transaction and re-encodes it to the same bytes', () => {
    const tx = decodePreparedTransaction(good);
    expect(Buffer.compare(encodePreparedTransaction(tx), good)).toBe(0);
  });
  it('does not alias the input buffer (bytes fields are copied)', () => {
    const input = new Uint8Array(good);
    const tx = decodePreparedTransaction(input);
    const seed = Buffer.from(tx.transaction!.nodeSeeds[0]!.seed).toString('hex');
    input.fill(0);
    expect(Buffer.from(tx.transaction!.nodeSeeds[0]!.seed).toString('hex')).toBe(seed);
  });
  it('accepts base64 with surrounding whitespace', () => {
    const tx = decodePreparedTransactionBase64(`  ${Buffer.from(good).toString('base64')}\n`);
    expect(tx.metadata?.submitterInfo?.commandId).toBe('cmd-1');
  });
  it('refuses bad base64', () => {
    expect(code(() => decodePreparedTransactionBase64('not base64!'))).toBe('BAD_BASE64');
    expect(code(() => decodePreparedTransactionBase64('abc'))).toBe('BAD_BASE64');
    expect(code(() => decodePreparedTransactionBase64(''))).toBe('BAD_BASE64');
  });
  // The base64 check decodes once and searches (codec.ts standardBase64Bytes): it refuses exactly what the rule it
  // replaced refused (the standard alphabet by a regular expression, the last four characters by isStandardBase64),
  // on the sample's base64 with characters replaced by ones Node's decoder skips, stops at, reads as the URL alphabet
  // or as a low byte.
  const BASE64 = Buffer.from(good).toString('base64');
  const standardByExpression = (s: string) =>
    s.length % 4 === 0 && s.length > 4
      ? /^[A-Za-z0-9+/]*$/.test(s.slice(0, -4)) && isStandardBase64(s.slice(-4))
      : isStandardBase64(s);
  const outcome = (s: string) => {
    try {
      decodePreparedTransactionBase64(s);
      return 'decoded';
    } catch (err) {
      return (err as TransactionError).code === 'BAD_BASE64' ? 'refused' : 'decoded';
    }
  };
  fcTest.prop(
    [
      fc.array(
        fc.tuple(
          fc.nat(),
          fc.constantFrom('-', '_', '=', ' ', '\n', '!', '\u0141', '\u00e9', '\u0000', 'A', '+', '/', '=='),
        ),
        { minLength: 0, maxLength: 4 },
      ),
    ],
    { numRuns: 1500 },
  )('refuses base64 exactly as the per-character rule does', (edits) => {
    let s = BASE64;
    for (const [at, c] of edits) {
      const i = at % s.length;
      s = s.slice(0, i) + c + s.slice(i + 1);
    }
    const body = s.trim();
    const expected = body.length > 0 && standardByExpression(body) ? 'decoded' : 'refused';
    expect(outcome(s)).toBe(expected);
  });

  it('refuses truncated protobuf', () => {
    expect(code(() => decodePreparedTransaction(good.subarray(0, good.length - 3)))).toBe(
      'MALFORMED_PROTOBUF',
    );
  });
  it('refuses garbage', () => {
    expect(code(() => decodePreparedTransaction(new Uint8Array([0xff, 0xff, 0xff, 0xff, 0xff])))).toMatch(
      /MALFORMED_PROTOBUF|UNKNOWN_FIELD/,
    );
  });
  it('refuses unknown fields', () => {
    const extra = new Uint8Array([...good, 0x18, 0x01]); // field 3 (varint) on PreparedTransaction
    expect(code(() => decodePreparedTransaction(extra))).toBe('UNKNOWN_FIELD');
  });
  it('refuses non-canonical encodings (a default value written explicitly)', () => {
    // field 1 of Metadata.SubmitterInfo is repeated; write PreparedTransaction.transaction twice instead:
    const twice = new Uint8Array([...good, ...good.subarray(0, 2 + good[1]!)]);
    expect(code(() => decodePreparedTransaction(twice))).toMatch(/NON_CANONICAL_ENCODING|MALFORMED_PROTOBUF/);
  });
  it('refuses a missing transaction or metadata', () => {
    expect(code(() => decodePreparedTransaction(new Uint8Array()))).toBe('MISSING_TRANSACTION');
    expect(code(mutate((tx) => delete tx.metadata))).toBe('MISSING_METADATA');
    expect(code(mutate((tx) => delete tx.metadata!.submitterInfo))).toBe('MISSING_FIELD');
  });
  it('refuses a create or exercise node without a seed', () => {
    expect(code(mutate((tx) => tx.transaction!.nodeSeeds.splice(0, 1)))).toBe('MISSING_NODE_SEED');
  });
  it('refuses an unknown node type', () => {
    expect(code(mutate((tx) => (tx.transaction!.nodes[3]!.versionedNode = { oneofKind: undefined })))).toBe(
      'UNKNOWN_NODE_TYPE',
    );
    // transaction.v1.Node field 6 (a node type this version does not know), written by hand.
    const w = new BinaryWriter();
    w.tag(1, WireType.LengthDelimited).fork(); // PreparedTransaction.transaction
    w.tag(1, WireType.LengthDelimited).string('2.1');
    w.tag(2, WireType.LengthDelimited).string('0');
    w.tag(3, WireType.LengthDelimited).fork(); // DamlTransaction.nodes
    w.tag(1, WireType.LengthDelimited).string('0');
    w.tag(1000, WireType.LengthDelimited).fork(); // v1
    w.tag(6, WireType.LengthDelimited).bytes(new Uint8Array(0));
    w.join().join().join();
    expect(code(() => decodePreparedTransaction(w.finish()))).toBe('UNKNOWN_NODE_TYPE');
  });
  it('refuses bad node ids, duplicates, missing children, shared and orphan nodes', () => {
    expect(code(mutate((tx) => (tx.transaction!.nodes[1]!.nodeId = '01')))).toBe('INVALID_NODE_ID');
    expect(code(mutate((tx) => (tx.transaction!.nodes[2]!.nodeId = '1')))).toBe('DUPLICATE_NODE_ID');
    expect(code(mutate((tx) => tx.transaction!.roots.push('99')))).toBe('MISSING_NODE');
    expect(code(mutate((tx) => tx.transaction!.roots.push('1')))).toBe('INVALID_TREE');
    expect(code(mutate((tx) => tx.transaction!.roots.pop()))).toBe('INVALID_TREE');
  });
  it('refuses malformed fields', () => {
    const seedLen = mutate((tx) => (tx.transaction!.nodeSeeds[0]!.seed = new Uint8Array(31)));
    expect(code(seedLen)).toBe('INVALID_SEED');
    expect(code(mutate((tx) => (tx.metadata!.submitterInfo!.actAs = ['bad party!'])))).toBe('INVALID_PARTY');
    expect(code(mutate((tx) => (tx.metadata!.transactionUuid = 'ABC')))).toBe('INVALID_METADATA');
    expect(code(mutate((tx) => (tx.metadata!.preparationTime = 1n << 62n)))).toBe('INVALID_TIME');
    expect(code(mutate((tx) => (tx.transaction!.version = '3')))).toBe('UNSUPPORTED_LF_VERSION');
  });
  it('hashing refuses hand-built values the wire could not carry', () => {
    const bad = sampleTx();
    bad.metadata!.mediatorGroup = -1;
    expect(code(() => hashPreparedTransaction(bad, 'HASHING_SCHEME_VERSION_V2'))).toBe('INVALID_METADATA');
    const big = sampleTx();
    const n = big.transaction!.nodes[1]!.versionedNode;
    if (n.oneofKind !== 'v1' || n.v1.nodeType.oneofKind !== 'create') throw new Error('unexpected');
    n.v1.nodeType.create.argument = { sum: { oneofKind: 'int64', int64: 1n << 63n } };
    expect(code(() => hashPreparedTransaction(big, 'HASHING_SCHEME_VERSION_V2'))).toBe('INVALID_VALUE');
  });
});

describe('hashPreparedTransaction schemes', () => {
  it('refuses unknown schemes', () => {
    const tx = sampleTx();
    expect(code(() => hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_V1' as never))).toBe(
      'UNKNOWN_HASHING_SCHEME',
    );
    expect(code(() => hashPreparedTransaction(tx, 'HASHING_SCHEME_VERSION_UNSPECIFIED' as never))).toBe(
      'UNKNOWN_HASHING_SCHEME',
    );
  });
  it('max record time is signed under V3 only', () => {
    const a = sampleTx();
    const b = sampleTx({ maxRecordTime: 1729788290000000n });
    const h = (tx: PreparedTransaction, s: 'HASHING_SCHEME_VERSION_V2' | 'HASHING_SCHEME_VERSION_V3') =>
      Buffer.from(hashPreparedTransaction(tx, s)).toString('hex');
    expect(h(a, 'HASHING_SCHEME_VERSION_V2')).toBe(h(b, 'HASHING_SCHEME_VERSION_V2'));
    expect(h(a, 'HASHING_SCHEME_VERSION_V3')).not.toBe(h(b, 'HASHING_SCHEME_VERSION_V3'));
  });
});
