// Daml-LF value encoding of the external-signing hash (type tag byte first), as the participant's
// LfValueHashBuilder: TextMap entries in Utf8 key order, empty record labels as None, Numeric canonical.
import { canonicalNumeric } from '../checks.ts';
import type { Identifier, Value } from '../types.ts';
import type { ByteWriter } from './writer.ts';

export function writeIdentifier(w: ByteWriter, id: Identifier): void {
  w.string(id.packageId);
  writeDotted(w, id.moduleName);
  writeDotted(w, id.entityName);
}

/** The parts of dotted names seen lately: every node repeats its template's module name. */
const dottedParts = new Map<string, readonly string[]>();

function writeDotted(w: ByteWriter, name: string): void {
  if (name.indexOf('.') < 0) {
    w.int32(1);
    w.string(name);
    return;
  }
  let parts = dottedParts.get(name);
  if (parts === undefined) {
    if (dottedParts.size >= 256) dottedParts.clear();
    parts = name.split('.');
    dottedParts.set(name, parts);
  }
  w.int32(parts.length);
  for (const p of parts) w.string(p);
}

function writeOptionalIdentifier(w: ByteWriter, id: Identifier | undefined): void {
  if (id === undefined) w.byte(0);
  else {
    w.byte(1);
    writeIdentifier(w, id);
  }
}

/** Daml's Utf8.Ordering: by Unicode code point (differs from UTF-16 order only around surrogates). */
function compareUtf8(a: string, b: string): number {
  const lim = Math.min(a.length, b.length);
  for (let i = 0; i < lim; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      const j = x >= 0xdc00 && x <= 0xdfff ? i - 1 : i;
      return (a.codePointAt(j) ?? 0) - (b.codePointAt(j) ?? 0);
    }
  }
  return a.length - b.length;
}

export function writeValue(w: ByteWriter, v: Value): void {
  const s = v.sum;
  switch (s.oneofKind) {
    case 'unit':
      w.byte(0);
      return;
    case 'bool':
      w.byte(1);
      w.bool(s.bool);
      return;
    case 'int64':
      w.byte(2);
      w.int64(s.int64);
      return;
    case 'numeric':
      w.byte(3);
      w.string(canonicalNumeric(s.numeric));
      return;
    case 'timestamp':
      w.byte(4);
      w.int64(s.timestamp);
      return;
    case 'date':
      w.byte(5);
      w.int32(s.date);
      return;
    case 'party':
      w.byte(6);
      w.string(s.party);
      return;
    case 'text':
      w.byte(7);
      w.string(s.text);
      return;
    case 'contractId':
      w.byte(8);
      w.hex(s.contractId);
      return;
    case 'optional':
      w.byte(9);
      if (s.optional.value === undefined) w.byte(0);
      else {
        w.byte(1);
        writeValue(w, s.optional.value);
      }
      return;
    case 'list':
      w.byte(10);
      w.int32(s.list.elements.length);
      for (const e of s.list.elements) writeValue(w, e);
      return;
    case 'textMap': {
      w.byte(11);
      const entries = s.textMap.entries;
      const sorted = isSortedUtf8(entries) ? entries : [...entries].sort((a, b) => compareUtf8(a.key, b.key));
      w.int32(sorted.length);
      for (const e of sorted) {
        w.string(e.key);
        writeValue(w, e.value!);
      }
      return;
    }
    case 'record':
      w.byte(12);
      writeOptionalIdentifier(w, s.record.recordId);
      w.int32(s.record.fields.length);
      for (const f of s.record.fields) {
        if (f.label === '') w.byte(0);
        else {
          w.byte(1);
          w.string(f.label);
        }
        writeValue(w, f.value!);
      }
      return;
    case 'variant':
      w.byte(13);
      writeOptionalIdentifier(w, s.variant.variantId);
      w.string(s.variant.constructor);
      writeValue(w, s.variant.value!);
      return;
    case 'enum':
      w.byte(14);
      writeOptionalIdentifier(w, s.enum.enumId);
      w.string(s.enum.constructor);
      return;
    case 'genMap':
      w.byte(15);
      w.int32(s.genMap.entries.length);
      for (const e of s.genMap.entries) {
        writeValue(w, e.key!);
        writeValue(w, e.value!);
      }
      return;
    default:
      throw new TypeError('value has no kind');
  }
}

function isSortedUtf8(entries: readonly { key: string }[]): boolean {
  for (let i = 1; i < entries.length; i++)
    if (compareUtf8(entries[i - 1]!.key, entries[i]!.key) > 0) return false;
  return true;
}
