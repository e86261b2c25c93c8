// Node encodings of the external-signing hash, schemes V2 and V3 (NodeHashBuilderCommon, v2/v3 builders).
import { fail } from '../errors.ts';
import type { Create, Exercise, Fetch, GlobalKeyWithMaintainers, Identifier, QueryByKey } from '../types.ts';
import { writeIdentifier, writeValue } from './value.ts';
import type { ByteWriter } from './writer.ts';

export type Scheme = 2 | 3;

/** Party sets are hashed as the participant's Scala Set: sorted, without duplicates. */
export function writeStringSet(w: ByteWriter, xs: readonly string[]): void {
  let sorted = xs;
  for (let i = 1; i < xs.length; i++) {
    if (!(xs[i - 1]! < xs[i]!)) {
      sorted = [...new Set(xs)].sort();
      break;
    }
  }
  w.int32(sorted.length);
  for (const x of sorted) w.string(x);
}

function writeOptionalIdentifier(w: ByteWriter, id: Identifier | undefined): void {
  if (id === undefined) w.byte(0);
  else {
    w.byte(1);
    writeIdentifier(w, id);
  }
}

function writeKey(w: ByteWriter, k: GlobalKeyWithMaintainers): void {
  const g = k.key!;
  w.string(g.packageName);
  writeIdentifier(w, g.templateId!);
  writeValue(w, g.key!);
  w.raw(g.hash);
  writeStringSet(w, k.maintainers);
}

function writeOptionalKey(w: ByteWriter, k: GlobalKeyWithMaintainers | undefined): void {
  if (k === undefined) w.byte(0);
  else {
    w.byte(1);
    writeKey(w, k);
  }
}

/** The participant's refusal when a node's LF serialization version is newer than the scheme supports. */
export function checkNodeVersion(lf: string, scheme: Scheme, where: string): void {
  if (lf === 'dev' || (lf === '2' && scheme === 2)) {
    const v = lf === '2' ? 'V2' : 'VDev';
    const hint = lf === '2' ? ' Does the transaction use contract keys?' : '';
    const min = lf === '2' ? 'V3' : 'N/A';
    fail(
      'UNSUPPORTED_BY_SCHEME',
      `${where}: Cannot hash node with LF serialization version ${v} using hashing scheme V${scheme}.${hint} Please using hashing scheme ${min} or higher.`,
    );
  }
}

export function writeCreate(w: ByteWriter, c: Create, seed: Uint8Array | undefined, scheme: Scheme): void {
  if (scheme === 2) w.byte(1);
  w.string(c.lfVersion);
  w.byte(0);
  if (seed === undefined) w.byte(0);
  else {
    w.byte(1);
    w.raw(seed);
  }
  w.hex(c.contractId);
  w.string(c.packageName);
  writeIdentifier(w, c.templateId!);
  writeValue(w, c.argument!);
  writeStringSet(w, c.signatories);
  writeStringSet(w, c.stakeholders);
  if (scheme === 3) writeOptionalKey(w, c.key);
}

export function writeFetch(w: ByteWriter, f: Fetch, scheme: Scheme): void {
  if (scheme === 2) w.byte(1);
  w.string(f.lfVersion);
  w.byte(2);
  w.hex(f.contractId);
  w.string(f.packageName);
  writeIdentifier(w, f.templateId!);
  writeStringSet(w, f.signatories);
  writeStringSet(w, f.stakeholders);
  writeOptionalIdentifier(w, f.interfaceId);
  writeStringSet(w, f.actingParties);
  if (scheme === 3) {
    w.bool(f.byKey);
    writeOptionalKey(w, f.key);
  }
}

/** Everything but the children hashes, which the caller appends. */
export function writeExercise(w: ByteWriter, e: Exercise, seed: Uint8Array, scheme: Scheme): void {
  if (scheme === 2) w.byte(1);
  w.string(e.lfVersion);
  w.byte(1);
  w.raw(seed);
  w.hex(e.contractId);
  w.string(e.packageName);
  writeIdentifier(w, e.templateId!);
  writeStringSet(w, e.signatories);
  writeStringSet(w, e.stakeholders);
  writeStringSet(w, e.actingParties);
  writeOptionalIdentifier(w, e.interfaceId);
  w.string(e.choiceId);
  writeValue(w, e.chosenValue!);
  w.bool(e.consuming);
  if (e.exerciseResult === undefined) w.byte(0);
  else {
    w.byte(1);
    writeValue(w, e.exerciseResult);
  }
  writeStringSet(w, e.choiceObservers);
  if (scheme === 3) {
    w.bool(e.byKey);
    writeOptionalKey(w, e.key);
  }
  w.int32(e.children.length);
}

/** Everything but the children hashes. */
export function writeRollback(w: ByteWriter, childCount: number, scheme: Scheme): void {
  if (scheme === 2) w.byte(1);
  w.byte(3);
  w.int32(childCount);
}

export function writeQueryByKey(w: ByteWriter, q: QueryByKey): void {
  w.string(q.lfVersion);
  w.byte(4);
  w.string(q.packageName);
  writeIdentifier(w, q.templateId!);
  w.bool(q.exhaustive);
  writeKey(w, q.key!);
  w.int32(q.result.length);
  for (const cid of q.result) w.hex(cid);
}
