// topologyMultiHash against the wallet SDK's algorithm (core-tx-visualizer's computeSha256CantonHash and
// computeMultiHashForTopology, composed exactly as @canton-network/wallet-sdk does for onboarding).
import { computeMultiHashForTopology, computeSha256CantonHash } from '@canton-network/core-tx-visualizer';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { TransactionError, topologyMultiHash, topologyTransactionHash } from '../../src/transaction/index.ts';

async function reference(txs: Uint8Array[]): Promise<string> {
  const hashes = await Promise.all(txs.map((t) => computeSha256CantonHash(11, t)));
  return Buffer.from(await computeSha256CantonHash(55, await computeMultiHashForTopology(hashes))).toString(
    'hex',
  );
}

describe('topologyMultiHash', () => {
  it('matches the SDK for random sets of distinct topology transactions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(fc.uint8Array({ minLength: 1, maxLength: 200 }), {
          minLength: 1,
          maxLength: 5,
          selector: (b) => Buffer.from(b).toString('hex'),
        }),
        async (txs) => {
          const ours = topologyMultiHash(txs);
          expect(ours).toHaveLength(34);
          expect(ours.subarray(0, 2)).toEqual(new Uint8Array([0x12, 0x20]));
          expect(Buffer.from(ours).toString('hex')).toBe(await reference(txs));
        },
      ),
      { numRuns: 300 },
    );
  });
  it('is independent of order and counts a repeated transaction once', () => {
    const a = new Uint8Array([1, 2, 3]);
    const b = new Uint8Array([4, 5]);
    const h = (xs: Uint8Array[]) => Buffer.from(topologyMultiHash(xs)).toString('hex');
    expect(h([a, b])).toBe(h([b, a]));
    expect(h([a, b, a])).toBe(h([a, b]));
    expect(h([a])).not.toBe(h([b]));
  });
  it('single transaction hash is the purpose-11 multihash', async () => {
    const t = new Uint8Array([9, 9, 9]);
    expect(Buffer.from(topologyTransactionHash(t))).toEqual(
      Buffer.from(await computeSha256CantonHash(11, t)),
    );
  });
  it('refuses an empty list', () => {
    expect(() => topologyMultiHash([])).toThrow(TransactionError);
  });
});
