// Field-level checks shared by validation, hashing and building: the same rules the participant applies
// when it turns a PreparedTransaction back into a Daml-LF transaction (so we never sign what it refuses).

import { fail } from './errors.ts';
import type { GlobalKeyWithMaintainers, Identifier, Value } from './types.ts';

/** Daml-LF values nest at most 100 levels deep. */
const MAX_VALUE_DEPTH = 100;
/** Daml-LF timestamps: 0001-01-01T00:00:00Z .. 9999-12-31T23:59:59.999999Z, in microseconds. */
const MIN_TIMESTAMP = -62135596800000000n;
export const MAX_TIMESTAMP = 253402300799999999n;
const MIN_DATE = -719162;
const MAX_DATE = 2932896;

const PACKAGE_NAME = /^[A-Za-z0-9\-_]{1,255}$/;
const LEDGER_STRING = /^[A-Za-z0-9._:\-#/ ]{1,255}$/;
const NAME = /^[A-Za-z_$][A-Za-z0-9_$]{0,999}$/;
const DOTTED = /^[A-Za-z_$][A-Za-z0-9_$]*(\.[A-Za-z_$][A-Za-z0-9_$]*)*$/;
const HEX = /^(?:[0-9a-f]{2})+$/;
const NUMERIC = /^-?([1-9]\d*|0)\.(\d*)$/;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** [A-Za-z0-9:\-_ ]{1,255}, as a loop: parties are checked on every node of every transaction. */
function isParty(p: string): boolean {
  const n = p.length;
  if (n === 0 || n > 255) return false;
  for (let i = 0; i < n; i++) {
    const c = p.charCodeAt(i);
    const ok =
      (c >= 97 && c <= 122) ||
      (c >= 65 && c <= 90) ||
      (c >= 48 && c <= 58) ||
      c === 45 ||
      c === 95 ||
      c === 32;
    if (!ok) return false;
  }
  return true;
}

// The last few strings that passed a check: transactions repeat the same parties and identifiers on every
// node (decoding interns them, so the comparison is usually by reference). Only passes are remembered.
const goodParties: string[] = ['', '', '', ''];
let nextParty = 0;
let goodPackageName = '';
let goodPackageId = '';
let goodModule = '';
let goodEntity = '';
/** Record labels that passed: a template's records repeat theirs on every node. */
const goodLabels = new Set<string>();

export function checkParty(p: string, where: string): void {
  const g = goodParties;
  if (p === g[0] || p === g[1] || p === g[2] || p === g[3]) {
    if (p !== '') return;
  }
  if (isParty(p)) {
    g[nextParty] = p;
    nextParty = (nextParty + 1) & 3;
    return;
  }
  fail('INVALID_PARTY', `${where}: "${p.slice(0, 80)}" is not a valid party id`);
}

export function checkParties(ps: readonly string[], where: string, nonEmpty: boolean): void {
  if (nonEmpty && ps.length === 0) fail('MISSING_FIELD', `${where} must not be empty`);
  for (const p of ps) checkParty(p, where);
}

export function checkPackageName(s: string, where: string): void {
  if (s === goodPackageName && s !== '') return;
  if (PACKAGE_NAME.test(s)) {
    goodPackageName = s;
    return;
  }
  fail('INVALID_IDENTIFIER', `${where}: "${s}" is not a valid package name`);
}

export function checkLedgerString(s: string, where: string): void {
  if (!LEDGER_STRING.test(s)) fail('INVALID_METADATA', `${where}: "${s}" is not a valid ledger string`);
}

export function checkUuid(s: string, where: string): void {
  // The participant hashes UUID.toString (lowercase canonical form): anything else would hash differently.
  if (!UUID.test(s)) fail('INVALID_METADATA', `${where}: "${s}" is not a lowercase canonical UUID`);
}

export function checkIdentifier(id: Identifier | undefined, where: string): asserts id is Identifier {
  if (id === undefined) fail('MISSING_FIELD', `${where} is missing`);
  const { packageId, moduleName, entityName } = id;
  if (packageId === goodPackageId && moduleName === goodModule && entityName === goodEntity) {
    if (packageId !== '') return;
  }
  if (id.packageId.length === 0 || id.packageId.length > 64 || !/^[A-Za-z0-9\-_ ]+$/.test(id.packageId)) {
    fail('INVALID_IDENTIFIER', `${where}: invalid package id "${id.packageId}"`);
  }
  if (!DOTTED.test(id.moduleName))
    fail('INVALID_IDENTIFIER', `${where}: invalid module name "${id.moduleName}"`);
  if (!DOTTED.test(id.entityName))
    fail('INVALID_IDENTIFIER', `${where}: invalid entity name "${id.entityName}"`);
  goodPackageId = packageId;
  goodModule = moduleName;
  goodEntity = entityName;
}

/** Contract ids are lowercase hex of a V1 (00 + 32-byte hash + suffix <= 94) or V2 (01 + 12 + suffix <= 33) id. */
export function checkContractId(cid: string, where: string): void {
  if (!HEX.test(cid)) fail('INVALID_CONTRACT_ID', `${where}: "${cid.slice(0, 80)}" is not lowercase hex`);
  const n = cid.length / 2;
  const ok = cid.startsWith('00') ? n >= 33 && n <= 127 : cid.startsWith('01') ? n >= 13 && n <= 46 : false;
  if (!ok) fail('INVALID_CONTRACT_ID', `${where}: "${cid.slice(0, 80)}" is not a V1 or V2 contract id`);
}

export function checkTimestamp(t: bigint, where: string): void {
  if (typeof t !== 'bigint' || t < MIN_TIMESTAMP || t > MAX_TIMESTAMP)
    fail('INVALID_TIME', `${where}: ${t} is outside the Daml time range`);
}

export function checkHash32(b: Uint8Array, where: string): void {
  if (b.length !== 32) fail('INVALID_SEED', `${where} must be 32 bytes, got ${b.length}`);
}

/**
 * The Numeric text the participant hashes: its parser keeps the digits and scale of the input and prints
 * them back unchanged, except that a negative zero loses its sign.
 */
export function canonicalNumeric(s: string, where = 'numeric'): string {
  const m = NUMERIC.exec(s);
  if (m === null) fail('INVALID_VALUE', `${where}: "${s.slice(0, 60)}" is not a Daml Numeric`);
  const intPart = m[1] ?? '';
  const scale = (m[2] ?? '').length;
  const precision = intPart === '0' ? scale : intPart.length + scale;
  if (precision > 38 || scale > 37)
    fail('INVALID_VALUE', `${where}: "${s.slice(0, 60)}" exceeds Numeric precision`);
  if (s.startsWith('-') && /^-0\.0*$/.test(s)) return s.slice(1);
  return s;
}

/** Validates a Daml value the way the participant's value validator does. */
export function checkValue(v: Value | undefined, where: string, depth = 0): asserts v is Value {
  if (v === undefined) fail('MISSING_FIELD', `${where}: value is missing`);
  if (depth > MAX_VALUE_DEPTH) fail('INVALID_VALUE', `${where}: value nests deeper than ${MAX_VALUE_DEPTH}`);
  const s = v.sum;
  const d = depth + 1;
  switch (s.oneofKind) {
    case 'unit':
    case 'bool':
    case 'text':
      return;
    case 'int64':
      // Decoded values always fit; built ones might not, and would otherwise wrap silently.
      if (typeof s.int64 !== 'bigint' || s.int64 < -(1n << 63n) || s.int64 >= 1n << 63n) {
        fail('INVALID_VALUE', `${where}: int64 ${String(s.int64)} out of range`);
      }
      return;
    case 'numeric':
      canonicalNumeric(s.numeric, where);
      return;
    case 'timestamp':
      checkTimestamp(s.timestamp, where);
      return;
    case 'date':
      if (!Number.isInteger(s.date) || s.date < MIN_DATE || s.date > MAX_DATE) {
        fail('INVALID_VALUE', `${where}: date ${s.date} out of range`);
      }
      return;
    case 'party':
      checkParty(s.party, where);
      return;
    case 'contractId':
      checkContractId(s.contractId, where);
      return;
    case 'optional':
      if (s.optional.value !== undefined) checkValue(s.optional.value, where, d);
      return;
    case 'list':
      for (const e of s.list.elements) checkValue(e, where, d);
      return;
    case 'textMap': {
      const entries = s.textMap.entries;
      // small maps (the usual) compared pairwise, without allocating a set; the same first duplicate found
      const seen = entries.length > 8 ? new Set<string>() : undefined;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i]!;
        let dup = false;
        if (seen === undefined) {
          for (let j = 0; j < i && !dup; j++) dup = entries[j]!.key === e.key;
        } else {
          dup = seen.has(e.key);
          seen.add(e.key);
        }
        if (dup) fail('INVALID_VALUE', `${where}: text map key "${e.key.slice(0, 60)}" duplicated`);
        checkValue(e.value, where, d);
      }
      return;
    }
    case 'genMap':
      for (const e of s.genMap.entries) {
        checkValue(e.key, where, d);
        checkValue(e.value, where, d);
      }
      return;
    case 'record':
      if (s.record.recordId !== undefined) checkIdentifier(s.record.recordId, `${where} record id`);
      for (const f of s.record.fields) {
        if (f.label !== '' && !goodLabels.has(f.label)) {
          if (!NAME.test(f.label)) fail('INVALID_VALUE', `${where}: bad field label "${f.label}"`);
          if (goodLabels.size >= 256) goodLabels.clear();
          goodLabels.add(f.label);
        }
        checkValue(f.value, where, d);
      }
      return;
    case 'variant':
      if (s.variant.variantId !== undefined) checkIdentifier(s.variant.variantId, `${where} variant id`);
      if (!NAME.test(s.variant.constructor)) fail('INVALID_VALUE', `${where}: bad variant constructor`);
      checkValue(s.variant.value, where, d);
      return;
    case 'enum':
      if (s.enum.enumId !== undefined) checkIdentifier(s.enum.enumId, `${where} enum id`);
      if (!NAME.test(s.enum.constructor)) fail('INVALID_VALUE', `${where}: bad enum constructor`);
      return;
    default:
      fail('INVALID_VALUE', `${where}: value has no kind`);
  }
}

export function checkKey(k: GlobalKeyWithMaintainers, where: string): void {
  const g = k.key;
  if (g === undefined) fail('MISSING_FIELD', `${where}: empty key in GlobalKeyWithMaintainers`);
  checkIdentifier(g.templateId, `${where} template id`);
  checkPackageName(g.packageName, `${where} package name`);
  checkValue(g.key, `${where} value`);
  checkHash32(g.hash, `${where} hash`);
  checkParties(k.maintainers, `${where} maintainers`, false);
}
