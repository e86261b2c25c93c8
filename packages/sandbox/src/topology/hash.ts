/**
 * Canton's topology hashes, computed here independently of Quill's: `0x12 0x20 ‖ SHA-256(int32_be(purpose) ‖
 * content)` (crypto/Hash.scala `digest`, crypto/HashBuilder.scala: purpose first, `addByteString` =
 * int32_be(len) ‖ bytes). Purposes from crypto/HashPurpose.scala.
 */
import { createHash } from 'node:crypto';

const TOPOLOGY_TRANSACTION_SIGNATURE = 11;
const MULTI_TOPOLOGY_TRANSACTION = 55;
const DECENTRALIZED_NAMESPACE = 37;

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n);
  return b;
}

function multihash(purpose: number, parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256').update(int32(purpose));
  for (const p of parts) h.update(p);
  return Uint8Array.from([0x12, 0x20, ...h.digest()]);
}

export function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex');
}

/** The 34-byte hash of a topology transaction: over the UntypedVersionedMessage bytes as received (TopologyTransaction.scala L140–148). */
export function txHash(uvm: Uint8Array): Uint8Array {
  return multihash(TOPOLOGY_TRANSACTION_SIGNATURE, [uvm]);
}

/**
 * The multi-transaction hash: the set of transaction hashes sorted by hex, count first, each length-prefixed
 * (TopologyTransactionSignature.scala `MultiTransactionSignature.computeCombinedHash` L87–97).
 */
export function multiHash(hashes: Uint8Array[]): Uint8Array {
  const unique = new Map(hashes.map((h) => [hex(h), h]));
  const sorted = [...unique.keys()].sort();
  const parts: Uint8Array[] = [int32(sorted.length)];
  for (const k of sorted) {
    const h = unique.get(k)!;
    parts.push(int32(h.length), h);
  }
  return multihash(MULTI_TOPOLOGY_TRANSACTION, parts);
}

/** A decentralized namespace: over its owners' namespace strings, sorted (TopologyMapping.scala L796–804). */
export function decentralizedNamespace(owners: string[]): string {
  const parts: Uint8Array[] = [];
  for (const o of [...new Set(owners)].sort()) {
    const b = Buffer.from(o, 'utf8');
    parts.push(int32(b.length), b);
  }
  return hex(multihash(DECENTRALIZED_NAMESPACE, parts));
}
