// Transaction, metadata and final hash of a PreparedTransaction (V2 and V3), over validated input.

import { fail } from '../errors.ts';
import type { Metadata, PreparedTransaction } from '../types.ts';
import type { TransactionIndex } from '../validate.ts';
import {
  checkNodeVersion,
  type Scheme,
  writeCreate,
  writeExercise,
  writeFetch,
  writeQueryByKey,
  writeRollback,
  writeStringSet,
} from './nodes.ts';
import { sha256Latin1 } from './sha256.ts';
import type { ByteWriter } from './writer.ts';

/** HashPurpose.PreparedSubmission (48) as 4 big-endian bytes. */
const PURPOSE = 0x30;

function writePurpose(w: ByteWriter): void {
  w.int32(PURPOSE);
}

/** Node hashes of every node, as bytes; `onPreimage` sees each node's exact encoding. */
export function nodeHashes(
  index: TransactionIndex,
  scheme: Scheme,
  w: ByteWriter,
  onPreimage?: (nodeId: string, bytes: Uint8Array) => void,
): Map<string, Uint8Array> {
  const bytes = new Map<string, Uint8Array>();
  for (const [id, h] of nodeHashStrings(index, scheme, w, onPreimage)) {
    bytes.set(
      id,
      Uint8Array.from(h, (c) => c.charCodeAt(0)),
    );
  }
  return bytes;
}

/** Node hashes of every node (latin1 strings, `sha256Latin1`), computed children first. */
function nodeHashStrings(
  index: TransactionIndex,
  scheme: Scheme,
  w: ByteWriter,
  onPreimage?: (nodeId: string, bytes: Uint8Array) => void,
): Map<string, string> {
  const hashes = new Map<string, string>();
  const childHashes = (ids: readonly string[]) => {
    for (const id of ids) w.latin1(hashes.get(id)!);
  };
  for (const n of index.postOrder) {
    w.reset();
    const t = n.node.nodeType;
    const where = `node ${n.id}`;
    switch (t.oneofKind) {
      case 'create':
        checkNodeVersion(t.create.lfVersion, scheme, where);
        writeCreate(w, t.create, n.seed, scheme);
        break;
      case 'fetch':
        checkNodeVersion(t.fetch.lfVersion, scheme, where);
        writeFetch(w, t.fetch, scheme);
        break;
      case 'exercise':
        checkNodeVersion(t.exercise.lfVersion, scheme, where);
        writeExercise(w, t.exercise, n.seed!, scheme);
        childHashes(t.exercise.children);
        break;
      case 'rollback':
        writeRollback(w, t.rollback.children.length, scheme);
        childHashes(t.rollback.children);
        break;
      case 'queryByKey':
        checkNodeVersion(t.queryByKey.lfVersion, scheme, where);
        if (scheme === 2) {
          fail(
            'UNSUPPORTED_BY_SCHEME',
            `${where}: QueryByKey nodes cannot be hashed with hashing scheme V2; use V3`,
          );
        }
        writeQueryByKey(w, t.queryByKey);
        break;
      default:
        fail('UNKNOWN_NODE_TYPE', `${where} has no known node type`);
    }
    onPreimage?.(n.id, w.bytes());
    hashes.set(n.id, sha256Latin1(w.bytes()));
  }
  return hashes;
}

/** The exact bytes of the transaction hash pre-image. */
export function transactionPreimage(
  tx: PreparedTransaction,
  index: TransactionIndex,
  scheme: Scheme,
  w: ByteWriter,
): Uint8Array {
  const hashes = nodeHashStrings(index, scheme, w);
  const t = tx.transaction!;
  w.reset();
  writePurpose(w);
  w.string(t.version);
  w.int32(t.roots.length);
  for (const r of t.roots) w.latin1(hashes.get(r)!);
  return w.bytes().slice();
}

/** The exact bytes of the metadata hash pre-image. */
export function metadataPreimage(m: Metadata, scheme: Scheme, w: ByteWriter): Uint8Array {
  // Input contracts are a map keyed (and so ordered) by contract id; each is hashed as a seedless Create.
  const inputs = [...m.inputContracts].sort((a, b) => {
    const x = a.contract.oneofKind === 'v1' ? a.contract.v1.contractId : '';
    const y = b.contract.oneofKind === 'v1' ? b.contract.v1.contractId : '';
    return x < y ? -1 : x > y ? 1 : 0;
  });
  const contractHashes = inputs.map((ic) => {
    const c =
      ic.contract.oneofKind === 'v1'
        ? ic.contract.v1
        : fail('MISSING_FIELD', 'input contract has no contract');
    checkNodeVersion(c.lfVersion, scheme, `input contract ${c.contractId}`);
    w.reset();
    writeCreate(w, c, undefined, scheme);
    return sha256Latin1(w.bytes());
  });
  w.reset();
  writePurpose(w);
  if (scheme === 2) w.byte(1);
  writeStringSet(w, m.submitterInfo!.actAs);
  w.string(m.submitterInfo!.commandId);
  w.string(m.transactionUuid);
  w.int32(m.mediatorGroup | 0);
  w.string(m.synchronizerId);
  writeOptionalLong(w, m.minLedgerEffectiveTime);
  writeOptionalLong(w, m.maxLedgerEffectiveTime);
  w.int64(m.preparationTime);
  w.int32(inputs.length);
  inputs.forEach((ic, i) => {
    w.int64(ic.createdAt);
    w.latin1(contractHashes[i]!);
  });
  if (scheme === 3) writeOptionalLong(w, m.maxRecordTime);
  return w.bytes().slice();
}

function writeOptionalLong(w: ByteWriter, v: bigint | undefined): void {
  if (v === undefined) w.byte(0);
  else {
    w.byte(1);
    w.int64(v);
  }
}

/** The final pre-image: purpose || scheme version byte || transaction hash || metadata hash. */
export function finalPreimage(txHash: Uint8Array, metadataHash: Uint8Array, scheme: Scheme): Uint8Array {
  const out = new Uint8Array(4 + 1 + 32 + 32);
  out[3] = PURPOSE;
  out[4] = scheme;
  out.set(txHash, 5);
  out.set(metadataHash, 37);
  return out;
}
