/**
 * Typed Daml values for the registries' templates and choices (the participant encodes values by their Daml types:
 * Numeric, Time, Party, ContractId, TextMap, Optional, variants), and the strict reading of choice arguments from
 * their JSON API encoding (ledger-json-api.md §1.5): a value of the wrong shape is the engine's preprocessing error.
 */
import type { Identifier, Value } from '@quill/canton/transaction';
import { damlValue as d, identifier } from '../build/values.ts';
import { fail } from '../daml.ts';
import { formatAmount, parseAmount } from '../decimal.ts';
import { isoFromMicros } from '../lfjson.ts';

/** The registries' value constructors: the builder's, with amounts as Numeric 10 units and times in micros. */
export const v = {
  unit: d.unit(),
  bool: d.bool,
  int: (n: bigint): Value => d.int64(n),
  text: d.text,
  party: d.party,
  cid: d.contractId,
  numeric: (units: bigint): Value => d.numeric(formatAmount(units)),
  time: (micros: bigint): Value => d.timestamp(micros),
  optional: (x: Value | undefined): Value => d.optional(x),
  list: d.list,
  /** Entries in key order (UTF-8 bytes), as Daml-LF's `TextMap` (a `SortedLookupList`) always holds them. */
  textMap: (entries: Record<string, Value>): Value => ({
    sum: {
      oneofKind: 'textMap',
      textMap: {
        entries: Object.entries(entries)
          .sort(([a], [b]) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8')))
          .map(([key, value]) => ({ key, value })),
      },
    },
  }),
  record: (fields: Record<string, Value>, recordId?: Identifier): Value => d.record(fields, recordId),
  variant: (tag: string, value: Value = v.record({})): Value => d.variant(tag, value),
};

/** `"pkg:Module:Entity"` → Identifier. */
export const ident = (id: string): Identifier => identifier(id);

/** `Metadata { values : TextMap Text }`. */
export function metaValue(values: Record<string, string>): Value {
  return v.record({
    values: v.textMap(Object.fromEntries(Object.entries(values).map(([k, x]) => [k, v.text(x)]))),
  });
}

// ---- reading JSON arguments ----

type Obj = Record<string, unknown>;

export function obj(x: unknown, what: string): Obj {
  if (x === null || typeof x !== 'object' || Array.isArray(x))
    throw fail.preprocessing(`${what} must be a record`);
  return x as Obj;
}

export function str(x: unknown, what: string): string {
  if (typeof x !== 'string') throw fail.preprocessing(`${what} must be a string`);
  return x;
}

export function partyOf(x: unknown, what: string): string {
  const s = str(x, what);
  if (!/^[A-Za-z0-9:_ -]+::[0-9a-f]+$/.test(s)) throw fail.preprocessing(`${what} must be a party id`);
  return s;
}

export function cidOf(x: unknown, what: string): string {
  const s = str(x, what);
  if (!/^00[0-9a-f]{64,}$/.test(s)) throw fail.preprocessing(`${what} must be a contract id`);
  return s;
}

/** A Numeric 10 (`Decimal`) from its JSON string (or a JSON integer). */
export function amountOf(x: unknown, what: string): bigint {
  const units = parseAmount(typeof x === 'number' && Number.isSafeInteger(x) ? String(x) : x);
  if (units === undefined) throw fail.preprocessing(`${what} must be a Numeric 10 decimal string`);
  return units;
}

const ISO = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/;

/** A Daml `Time` from its ISO-8601 JSON string, in microseconds. */
export function timeOf(x: unknown, what: string): bigint {
  const m = ISO.exec(str(x, what));
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : Number.NaN;
  if (!m || !Number.isFinite(ms)) throw fail.preprocessing(`${what} must be an ISO-8601 timestamp`);
  return BigInt(ms) * 1000n + BigInt((m[2] ?? '').padEnd(6, '0').slice(0, 6) || '0');
}

export function listOf<T>(x: unknown, what: string, item: (y: unknown, w: string) => T): T[] {
  if (!Array.isArray(x)) throw fail.preprocessing(`${what} must be a list`);
  return x.map((y, i) => item(y, `${what}[${i}]`));
}

/** `Metadata`: `{values: {key: text}}`. */
export function metaOf(x: unknown, what: string): Record<string, string> {
  const values = obj(obj(x, what).values, `${what}.values`);
  return Object.fromEntries(Object.entries(values).map(([k, y]) => [k, str(y, `${what}.values.${k}`)]));
}

/** `AnyValue` (splice `Splice.Api.Token.MetadataV1`): a variant `{tag, value}` typed by its constructor. */
export function anyValueOf(x: unknown, what: string, depth = 0): Value {
  if (depth > 20) throw fail.preprocessing(`${what} nests too deeply`);
  const o = obj(x, what);
  const tag = str(o.tag, `${what}.tag`);
  const payload = (): Value => {
    switch (tag) {
      case 'AV_Text':
        return v.text(str(o.value, what));
      case 'AV_Int': {
        const s = typeof o.value === 'number' ? String(o.value) : str(o.value, what);
        if (!/^-?\d{1,19}$/.test(s)) throw fail.preprocessing(`${what} must be an Int64`);
        return v.int(BigInt(s));
      }
      case 'AV_Decimal':
        return v.numeric(amountOf(o.value, what));
      case 'AV_Bool':
        if (typeof o.value !== 'boolean') throw fail.preprocessing(`${what} must be a Bool`);
        return v.bool(o.value);
      case 'AV_Time':
        return v.time(timeOf(o.value, what));
      case 'AV_Party':
        return v.party(partyOf(o.value, what));
      case 'AV_ContractId':
        return v.cid(cidOf(o.value, what));
      case 'AV_List':
        return v.list(listOf(o.value, what, (y, w) => anyValueOf(y, w, depth + 1)));
      case 'AV_Map':
        return v.textMap(
          Object.fromEntries(
            Object.entries(obj(o.value, what)).map(([k, y]) => [k, anyValueOf(y, `${what}.${k}`, depth + 1)]),
          ),
        );
      default:
        throw fail.preprocessing(`${what}.tag ${tag} is not an AnyValue constructor`);
    }
  };
  return v.variant(tag, payload());
}

/** `ExtraArgs { context : ChoiceContext, meta : Metadata }`: the typed value and the context's contract ids. */
export function extraArgsOf(x: unknown, what: string) {
  const o = obj(x, what);
  const ctx = obj(obj(o.context, `${what}.context`).values, `${what}.context.values`);
  const context: Record<string, Value> = {};
  const cids: Record<string, string> = {};
  const flags: Record<string, boolean> = {};
  for (const [k, y] of Object.entries(ctx)) {
    const value = anyValueOf(y, `${what}.context.values.${k}`);
    context[k] = value;
    const inner = value.sum.oneofKind === 'variant' ? value.sum.variant.value?.sum : undefined;
    if (inner?.oneofKind === 'contractId') cids[k] = inner.contractId;
    if (inner?.oneofKind === 'bool') flags[k] = inner.bool;
  }
  const meta = metaOf(o.meta, `${what}.meta`);
  return {
    value: v.record({ context: v.record({ values: v.textMap(context) }), meta: metaValue(meta) }),
    contextCids: cids,
    contextFlags: flags,
    meta,
  };
}

/** The ISO form of a time, as the JSON API prints it. */
export const iso = isoFromMicros;
