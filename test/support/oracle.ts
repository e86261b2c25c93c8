// An independent hashing oracle for tests that check a hash end to end: the ecosystem's TypeScript hasher
// (@canton-network/core-tx-visualizer), which implements V2 only. The sandbox hashes with Quill's own codec, so
// comparing Quill with the sandbox proves nothing about the hash; V3 has no oracle outside Canton, and its
// correctness rests on Canton's own test vectors (packages/canton/test/transaction/vectors.test.ts).
import { hashPreparedTransaction as referenceHash } from '@canton-network/core-tx-visualizer';

/** The hex hash of a base64 PreparedTransaction by the reference implementation; undefined for V3. */
export async function referenceHashHex(
  preparedTransaction: string,
  scheme: string,
): Promise<string | undefined> {
  return scheme === 'HASHING_SCHEME_VERSION_V2' ? referenceHash(preparedTransaction, 'hex') : undefined;
}
