// The decode and hash fast paths against the straightforward ones: the tuned protobuf reader decodes what
// the stock protobuf-ts reader decodes, the writer's reserved length prefix writes what the stock writer
// writes (messages past 16 KiB included), and native SHA-256 gives @noble/hashes' digests, node by node.
import { sha256 as nobleSha256 } from '@noble/hashes/sha2.js';
import { BinaryReader } from '@protobuf-ts/runtime';
import { buildPreparedTransaction, damlValue as V } from '@quill/sandbox/build';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { schemeNumber } from '../../src/transaction/hash/index.ts';
import { sha256 } from '../../src/transaction/hash/sha256.ts';
import {
  finalPreimage,
  metadataPreimage,
  nodeHashes,
  transactionPreimage,
} from '../../src/transaction/hash/transaction.ts';
import { ByteWriter } from '../../src/transaction/hash/writer.ts';
import {
  decodePreparedTransaction,
  encodePreparedTransaction,
  type HashingSchemeVersion,
  hashPreparedTransaction,
} from '../../src/transaction/index.ts';
import { PreparedTransaction } from '../../src/transaction/types.ts';
import { validatePreparedTransaction } from '../../src/transaction/validate.ts';
import { FastBinaryReader } from '../../src/transaction/wire-reader.ts';
import { buildInput } from './arbitraries.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const schemes: HashingSchemeVersion[] = ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'];

/** Arbitrary transactions, some with a text value long enough to need 3-byte length prefixes. */
const transactionBytes = fc
  .tuple(buildInput, fc.option(fc.string({ minLength: 17000, maxLength: 20000, unit: 'binary' })))
  .map(([input, long]) => {
    const tx = buildPreparedTransaction({ ...input, roots: [...input.roots] });
    if (long !== null) {
      const first = tx.transaction!.nodes[0]?.versionedNode;
      if (first?.oneofKind === 'v1' && first.v1.nodeType.oneofKind === 'create')
        first.v1.nodeType.create.argument = V.record({ note: V.text(long) });
    }
    return { tx, bytes: PreparedTransaction.toBinary(tx, { writeUnknownFields: false }) };
  });

/** Decodes with `reader`, or returns the error's constructor name. */
function read(bytes: Uint8Array, reader: (b: Uint8Array) => BinaryReader): unknown {
  try {
    return PreparedTransaction.fromBinary(bytes, { readUnknownField: 'throw', readerFactory: reader });
  } catch (err) {
    return (err as Error).constructor.name;
  }
}
const stockReader = (b: Uint8Array) => new BinaryReader(b);
const fastReader = (b: Uint8Array) => new FastBinaryReader(b);

/** The signed hash by the same encoding, hashed with @noble/hashes at every step. */
function nobleHash(bytes: Uint8Array, scheme: HashingSchemeVersion): string {
  const tx = decodePreparedTransaction(bytes);
  const v = schemeNumber(scheme);
  const index = validatePreparedTransaction(tx);
  const w = new ByteWriter();
  // Node hashes come from native SHA-256; check each against noble over the node's exact pre-image.
  nodeHashes(index, v, w, (id, pre) => {
    expect(hex(nobleSha256(pre)), `node ${id}`).toBe(hex(sha256(pre)));
  });
  const txHash = nobleSha256(transactionPreimage(tx, index, v, w));
  const metaHash = nobleSha256(metadataPreimage(tx.metadata!, v, w));
  return hex(nobleSha256(finalPreimage(txHash, metaHash, v)));
}

describe('decode and hash fast paths', () => {
  it('FastBinaryReader decodes exactly what the stock reader decodes', () => {
    fc.assert(
      fc.property(transactionBytes, ({ tx, bytes }) => {
        const fast = read(bytes, fastReader);
        expect(fast).toEqual(read(bytes, stockReader));
        expect(fast).toEqual(tx);
      }),
      { numRuns: 150 },
    );
  });

  it('FastBinaryReader agrees with the stock reader on corrupted bytes', () => {
    fc.assert(
      fc.property(
        transactionBytes,
        fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }),
        ({ bytes }, edits) => {
          const b = new Uint8Array(bytes);
          for (const [at, byte] of edits) b[at % b.length] = byte;
          expect(read(b, fastReader)).toEqual(read(b, stockReader));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('strings decode alike: ASCII, non-ASCII, invalid UTF-8, repeated (interned) and long', () => {
    const strings = fc.array(
      fc.oneof(
        fc.string({ maxLength: 200 }),
        fc.string({ maxLength: 40, unit: 'binary' }),
        fc.uint8Array({ maxLength: 40 }),
        fc.constantFrom('alice::1220aa', 'bob::1220bb', 'alice::1220ab'),
      ),
      { maxLength: 30 },
    );
    fc.assert(
      fc.property(strings, (xs) => {
        const parts = xs.map((x) => (typeof x === 'string' ? Buffer.from(x, 'utf8') : Buffer.from(x)));
        const bytes = Buffer.concat(parts.flatMap((p) => [Buffer.from([p.length]), p]).slice(0));
        const readAll = (r: BinaryReader) => {
          const out: unknown[] = [];
          for (let i = 0; i < parts.length; i++) {
            if (parts[i]!.length > 127) return out; // one-byte length prefixes only
            try {
              out.push(r.string());
            } catch (err) {
              out.push((err as Error).constructor.name);
              return out;
            }
          }
          return out;
        };
        expect(readAll(new FastBinaryReader(bytes))).toEqual(readAll(new BinaryReader(bytes)));
      }),
      { numRuns: 500 },
    );
  });

  it('the writer reproduces its input byte for byte, whatever the message sizes', () => {
    fc.assert(
      fc.property(transactionBytes, ({ tx, bytes }) => {
        expect(hex(encodePreparedTransaction(tx))).toBe(hex(bytes));
        expect(hex(encodePreparedTransaction(decodePreparedTransaction(bytes)))).toBe(hex(bytes));
      }),
      { numRuns: 100 },
    );
  });

  it('native SHA-256 equals @noble/hashes on arbitrary bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (b) => {
        expect(hex(sha256(b))).toBe(hex(nobleSha256(b)));
      }),
      { numRuns: 500 },
    );
  });

  it('the signed hash equals the one computed with @noble/hashes at every step', () => {
    fc.assert(
      fc.property(transactionBytes, fc.constantFrom(...schemes), ({ bytes }, scheme) => {
        let fast: string;
        try {
          fast = hex(hashPreparedTransaction(decodePreparedTransaction(bytes), scheme));
        } catch {
          return; // not hashable under this scheme (keys under V2): nothing to compare
        }
        expect(fast).toBe(nobleHash(bytes, scheme));
      }),
      { numRuns: 150 },
    );
  });
});
