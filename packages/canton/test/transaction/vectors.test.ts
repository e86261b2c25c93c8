// Every entry of Canton's hashing test vectors reproduces byte for byte: the exact pre-image bytes
// (top_level_encoding_hex) and their sha256, for values, nodes, transaction, metadata and the full hash.
import { sha256 } from '@noble/hashes/sha2.js';
import { describe, expect, it } from 'vitest';
import { ByteWriter, writeValue } from '../../src/transaction/hash/index.ts';
import type { Scheme } from '../../src/transaction/hash/nodes.ts';
import {
  finalPreimage,
  metadataPreimage,
  nodeHashes,
  transactionPreimage,
} from '../../src/transaction/hash/transaction.ts';
import type { PreparedTransaction } from '../../src/transaction/types.ts';
import type { IndexedNode, TransactionIndex } from '../../src/transaction/validate.ts';
import {
  cantonMetadata,
  cantonNodes,
  seed0,
  seed4,
  toHex,
  type Vector,
  values,
  vectors,
} from './canton-inputs.ts';

const NODE_OF: Record<string, string> = {
  createNode: '0',
  fetchNode: '2',
  exerciseNode: '4',
  rollbackNode: '5',
  queryNode: '6',
};

/** Canton's test transaction shares nodes between subtrees, so the index is built by hand, not validated. */
function cantonIndex(s: Scheme): TransactionIndex {
  const nodes = cantonNodes(s);
  const children: Record<string, string[]> = { '4': ['0', '2'], '5': ['2', '4'] };
  const order = s === 3 ? ['0', '2', '4', '5', '6'] : ['0', '2', '4', '5'];
  const entries: IndexedNode[] = order.map((id) => ({
    id,
    node: nodes[id]!,
    seed: id === '0' ? seed0 : id === '4' ? seed4 : undefined,
    children: children[id] ?? [],
  }));
  return { nodes: new Map(entries.map((e) => [e.id, e])), postOrder: entries };
}

function cantonTx(s: Scheme): PreparedTransaction {
  return {
    transaction: { version: s === 2 ? '2.1' : '2', roots: ['0', '5'], nodes: [], nodeSeeds: [] },
    metadata: cantonMetadata(s),
  };
}

function schemeOf(v: Vector): Scheme {
  if (/^V2$/.test(v.hashing_scheme) || v.source.branch === 'release-line-3.4') return 2;
  if (/^V3$/.test(v.hashing_scheme)) return 3;
  throw new Error(`unexpected scheme ${v.hashing_scheme}`);
}

/** Our exact pre-image bytes for one vector. */
function preimage(v: Vector): Uint8Array {
  const w = new ByteWriter(64);
  if (v.name.startsWith('value:')) {
    const value = values[v.name];
    if (value === undefined) throw new Error(`no input for ${v.name}`);
    writeValue(w, value);
    return w.bytes().slice();
  }
  const s = schemeOf(v);
  const kind = v.name.split(' ')[0]!;
  if (kind in NODE_OF) {
    let out: Uint8Array | undefined;
    nodeHashes(cantonIndex(s), s, w, (id, bytes) => {
      if (id === NODE_OF[kind]) out = bytes.slice();
    });
    if (out === undefined) throw new Error(`node for ${v.name} not hashed`);
    return out;
  }
  const synchronizer = v.source.branch === 'release-line-3.4' ? 'synchronizerId' : 'synchronizer::id';
  if (kind === 'metadata') return metadataPreimage(cantonMetadata(s, synchronizer), s, w);
  if (kind === 'transaction') return transactionPreimage(cantonTx(s), cantonIndex(s), s, w);
  if (kind === 'fullTransaction' || v.name === 'Full Transaction Hash') {
    const txHash = sha256(transactionPreimage(cantonTx(s), cantonIndex(s), s, w));
    const mdHash = sha256(metadataPreimage(cantonMetadata(s, synchronizer), s, w));
    return finalPreimage(txHash, mdHash, s);
  }
  throw new Error(`unhandled vector ${v.name}`);
}

describe('Canton hashing test vectors', () => {
  it('covers all 80 entries', () => {
    expect(vectors).toHaveLength(80);
  });
  for (const v of vectors) {
    it(`${v.name} [${v.hashing_scheme}, ${v.source.branch}]`, () => {
      const bytes = preimage(v);
      expect(toHex(bytes)).toBe(v.top_level_encoding_hex);
      expect(toHex(sha256(bytes))).toBe(v.expected_sha256);
    });
  }
});
