// Multi-hash of external-party onboarding topology transactions (what `generate-topology` returns as
// `multiHash` and the party's key signs): Canton's MultiTransactionSignature.computeCombinedHash.
// The topology codec (../topology/) re-exports these: they stay here because this folder may import only
// itself and the ledger schemas (.dependency-cruiser.cjs 'transaction-uses-schemas'), and
// `@quill/canton/transaction` has exported them since before the codec existed.
import { sha256 } from '@noble/hashes/sha2.js';
import { TransactionError } from './errors.ts';

const TOPOLOGY_TRANSACTION_SIGNATURE = 11;
const MULTI_TOPOLOGY_TRANSACTION = 55;

/**
 * sha256 with a 4-byte purpose prefix, as a 34-byte multihash (0x12 0x20 || digest): Canton's Hash.digest
 * (crypto/Hash.scala, crypto/HashBuilder.scala: the purpose goes first, as a big-endian int32).
 */
export function multihashSha256(purpose: number, bytes: Uint8Array): Uint8Array {
  const input = new Uint8Array(4 + bytes.length);
  new DataView(input.buffer).setInt32(0, purpose, false);
  input.set(bytes, 4);
  const out = new Uint8Array(34);
  out[0] = 0x12;
  out[1] = 0x20;
  out.set(sha256(input), 2);
  return out;
}

/** The 34-byte hash of one serialized topology transaction (purpose 11). */
export function topologyTransactionHash(transaction: Uint8Array): Uint8Array {
  return multihashSha256(TOPOLOGY_TRANSACTION_SIGNATURE, transaction);
}

/**
 * The 34-byte multihash over a set of serialized topology transactions: the transaction hashes form a set
 * (duplicates count once), sorted, prefixed by their count, each length-prefixed; hashed with purpose 55.
 */
export function topologyMultiHash(transactions: Uint8Array[]): Uint8Array {
  if (!Array.isArray(transactions) || transactions.length === 0) {
    throw new TransactionError('INVALID_INPUT', 'topologyMultiHash needs at least one topology transaction');
  }
  const byHex = new Map<string, Uint8Array>();
  for (const t of transactions) {
    if (!(t instanceof Uint8Array))
      throw new TransactionError('INVALID_INPUT', 'topology transactions must be bytes');
    const h = topologyTransactionHash(t);
    byHex.set(Buffer.from(h).toString('hex'), h);
  }
  const sorted = [...byHex.keys()].sort();
  const combined = new Uint8Array(4 + sorted.length * 38);
  const view = new DataView(combined.buffer);
  view.setInt32(0, sorted.length, false);
  sorted.forEach((hex, i) => {
    const off = 4 + i * 38;
    view.setInt32(off, 34, false);
    combined.set(byHex.get(hex)!, off + 4);
  });
  return multihashSha256(MULTI_TOPOLOGY_TRANSACTION, combined);
}
