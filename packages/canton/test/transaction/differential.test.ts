// Differential test against the ecosystem's TypeScript hasher (@canton-network/core-tx-visualizer, V2):
// thousands of random valid transactions (Int64 in the safe range) hash identically; at 2^53 vs 2^53+1
// only we tell them apart (the reference goes through JS numbers).
import { hashPreparedTransaction as referenceHash } from '@canton-network/core-tx-visualizer';
import { buildPreparedTransaction, damlValue as V } from '@quill/sandbox/build';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodePreparedTransactionBase64,
  encodePreparedTransactionBase64,
  hashPreparedTransaction,
} from '../../src/transaction/index.ts';
import { buildInput } from './arbitraries.ts';
import { sampleInput } from './sample.ts';

const V2 = 'HASHING_SCHEME_VERSION_V2';
const ours = (b64: string) =>
  Buffer.from(hashPreparedTransaction(decodePreparedTransactionBase64(b64), V2)).toString('hex');

describe('differential: core-tx-visualizer (V2)', () => {
  it('random prepared transactions hash the same', async () => {
    await fc.assert(
      fc.asyncProperty(buildInput, async (input) => {
        const b64 = encodePreparedTransactionBase64(buildPreparedTransaction(input));
        expect(ours(b64)).toBe(await referenceHash(b64, 'hex'));
      }),
      { numRuns: 2000 },
    );
  });

  it('Int64 2^53 and 2^53+1 hash differently for us, identically for the reference', async () => {
    const withAmount = (n: bigint) =>
      encodePreparedTransactionBase64(
        buildPreparedTransaction(
          sampleInput({
            roots: [
              {
                kind: 'create',
                contractId: `00${'44'.repeat(32)}`,
                packageName: 'coin',
                templateId: `${'a'.repeat(64)}:Coin:Coin`,
                argument: V.record({ amount: V.int64(n) }),
                signatories: ['alice::1220aaaa'],
              },
            ],
          }),
        ),
      );
    const a = withAmount(2n ** 53n);
    const b = withAmount(2n ** 53n + 1n);
    expect(ours(a)).not.toBe(ours(b));
    expect(await referenceHash(a, 'hex')).toBe(await referenceHash(b, 'hex'));
    expect(ours(a)).toBe(await referenceHash(a, 'hex'));
  });
});
