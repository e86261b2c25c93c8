// Cross-check of V3 against V2 on random key-free transactions, per the participant's "summary of
// differences": V3 drops the node-encoding byte 01 and appends by_key / optional key to Create and Fetch.

import { buildPreparedTransaction } from '@quill/sandbox/build';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ByteWriter } from '../../src/transaction/hash/index.ts';
import { metadataPreimage, nodeHashes } from '../../src/transaction/hash/transaction.ts';
import { validatePreparedTransaction } from '../../src/transaction/validate.ts';
import { buildInput } from './arbitraries.ts';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('V3 versus V2 encodings', () => {
  it('Create = V2 without 01, plus None key; Fetch = V2 without 01, plus by_key false and None key', () => {
    fc.assert(
      fc.property(buildInput, (input) => {
        const tx = buildPreparedTransaction(input);
        const index = validatePreparedTransaction(tx);
        const pre = (s: 2 | 3) => {
          const out = new Map<string, string>();
          nodeHashes(index, s, new ByteWriter(), (id, b) => out.set(id, hex(b)));
          return out;
        };
        const v2 = pre(2);
        const v3 = pre(3);
        for (const n of index.postOrder) {
          const a = v2.get(n.id)!;
          const b = v3.get(n.id)!;
          expect(a.slice(0, 2)).toBe('01');
          const kind = n.node.nodeType.oneofKind;
          if (kind === 'create') expect(b).toBe(`${a.slice(2)}00`);
          if (kind === 'fetch') expect(b).toBe(`${a.slice(2)}0000`);
        }
      }),
      { numRuns: 200 },
    );
  });
  it('metadata without input contracts = V2 without 01, plus optional max record time', () => {
    fc.assert(
      fc.property(buildInput, (input) => {
        const m = buildPreparedTransaction({ ...input, inputContracts: [] }).metadata!;
        const a = hex(metadataPreimage(m, 2, new ByteWriter()));
        const b = hex(metadataPreimage(m, 3, new ByteWriter()));
        const mrt =
          m.maxRecordTime === undefined ? '00' : `01${m.maxRecordTime.toString(16).padStart(16, '0')}`;
        expect(a.slice(0, 10)).toBe('0000003001');
        expect(b).toBe(`00000030${a.slice(10)}${mrt}`);
      }),
      { numRuns: 200 },
    );
  });
});
