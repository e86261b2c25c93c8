// Terse constructors for Daml values (for the sandbox's templates and for tests): `damlValue.record({...})`.

import type { Identifier, Value } from '@quill/canton/transaction';
import { canonicalNumeric, checkContractId, checkParty, TransactionError } from '@quill/canton/transaction';

/** "pkg:Module.Sub:Entity" → Identifier. */
export function identifier(id: string | Identifier): Identifier {
  if (typeof id !== 'string') return id;
  const parts = id.split(':');
  if (parts.length !== 3 || parts.some((p) => p.length === 0)) {
    throw new TransactionError(
      'INVALID_IDENTIFIER',
      `identifier "${id}" must be <package>:<module>:<entity>`,
    );
  }
  return { packageId: parts[0]!, moduleName: parts[1]!, entityName: parts[2]! };
}

export const damlValue = {
  unit: (): Value => ({ sum: { oneofKind: 'unit', unit: {} } }),
  bool: (b: boolean): Value => ({ sum: { oneofKind: 'bool', bool: b } }),
  /** Int64 from a bigint, a safe integer or a decimal string. */
  int64: (n: bigint | number | string): Value => {
    const v = BigInt(n);
    if (v < -(1n << 63n) || v >= 1n << 63n)
      throw new TransactionError('INVALID_VALUE', `int64 ${v} out of range`);
    if (typeof n === 'number' && !Number.isSafeInteger(n)) {
      throw new TransactionError(
        'INVALID_VALUE',
        'int64 from a number must be a safe integer; pass a bigint',
      );
    }
    return { sum: { oneofKind: 'int64', int64: v } };
  },
  /** Numeric from its decimal text, kept verbatim (scale = digits after the point, e.g. "10.0000000000"). */
  numeric: (s: string): Value => {
    canonicalNumeric(s);
    return { sum: { oneofKind: 'numeric', numeric: s } };
  },
  text: (s: string): Value => ({ sum: { oneofKind: 'text', text: s } }),
  party: (p: string): Value => {
    checkParty(p, 'party value');
    return { sum: { oneofKind: 'party', party: p } };
  },
  contractId: (cid: string): Value => {
    checkContractId(cid, 'contract id value');
    return { sum: { oneofKind: 'contractId', contractId: cid } };
  },
  /** Timestamp from microseconds since the epoch, or a Date / ISO string (millisecond precision). */
  timestamp: (t: bigint | Date | string): Value => ({
    sum: { oneofKind: 'timestamp', timestamp: toMicros(t) },
  }),
  /** Date from days since the epoch or "YYYY-MM-DD". */
  date: (d: number | string): Value => ({
    sum: {
      oneofKind: 'date',
      date: typeof d === 'number' ? d : Math.floor(Date.parse(`${d}T00:00:00Z`) / 86400000),
    },
  }),
  optional: (v?: Value | null): Value => ({
    sum: { oneofKind: 'optional', optional: v == null ? {} : { value: v } },
  }),
  list: (xs: Value[]): Value => ({ sum: { oneofKind: 'list', list: { elements: xs } } }),
  textMap: (entries: Record<string, Value>): Value => ({
    sum: {
      oneofKind: 'textMap',
      textMap: { entries: Object.entries(entries).map(([key, value]) => ({ key, value })) },
    },
  }),
  genMap: (entries: [Value, Value][]): Value => ({
    sum: { oneofKind: 'genMap', genMap: { entries: entries.map(([key, value]) => ({ key, value })) } },
  }),
  /** Record with labelled fields in the given order; `recordId` as "pkg:Module:Entity" or Identifier. */
  record: (fields: Record<string, Value>, recordId?: string | Identifier): Value => ({
    sum: {
      oneofKind: 'record',
      record: {
        recordId: recordId === undefined ? undefined : identifier(recordId),
        fields: Object.entries(fields).map(([label, value]) => ({ label, value })),
      },
    },
  }),
  variant: (ctor: string, value: Value, variantId?: string | Identifier): Value => ({
    sum: {
      oneofKind: 'variant',
      variant: {
        variantId: variantId === undefined ? undefined : identifier(variantId),
        constructor: ctor,
        value,
      },
    },
  }),
  enum: (ctor: string, enumId?: string | Identifier): Value => ({
    sum: {
      oneofKind: 'enum',
      enum: { enumId: enumId === undefined ? undefined : identifier(enumId), constructor: ctor },
    },
  }),
};

/** Microseconds since the epoch from a bigint (already micros), a Date or an ISO string. */
export function toMicros(t: bigint | Date | string): bigint {
  if (typeof t === 'bigint') return t;
  const ms = t instanceof Date ? t.getTime() : Date.parse(t);
  if (!Number.isFinite(ms)) throw new TransactionError('INVALID_TIME', `invalid time ${String(t)}`);
  return BigInt(ms) * 1000n;
}
