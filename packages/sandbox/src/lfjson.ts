/**
 * Daml-LF JSON (the JSON API's value encoding, ledger-json-api.md §1.5) ↔ protobuf `Value`. The sandbox
 * has no package types, so JSON → Value for unknown templates infers the type from the JSON shape (party
 * ids become Party, everything else string-like becomes Text); Value → JSON is exact.
 */
import { FINGERPRINT_PATTERN } from '@quill/canton/ledger';
import { type Identifier, renderValue, type Value } from '@quill/canton/transaction';

const PARTY_LIKE = new RegExp(`^[A-Za-z0-9_-][A-Za-z0-9:_ -]*::${FINGERPRINT_PATTERN.source.slice(1)}`);
const CID_LIKE = /^00[0-9a-f]{64,}$/;

/** Untyped JSON → Value (records keep the JSON field order). Throws an Error for unsupported JSON. */
export function valueFromJson(json: unknown, recordId?: Identifier, depth = 0): Value {
  if (depth > 100) throw new Error('value nests deeper than 100 levels');
  if (json === null || json === undefined) return { sum: { oneofKind: 'optional', optional: {} } };
  if (typeof json === 'boolean') return { sum: { oneofKind: 'bool', bool: json } };
  if (typeof json === 'number') {
    if (Number.isSafeInteger(json)) return { sum: { oneofKind: 'int64', int64: BigInt(json) } };
    throw new Error('non-integer JSON numbers are not supported: send Numeric values as strings');
  }
  if (typeof json === 'string') {
    if (PARTY_LIKE.test(json)) return { sum: { oneofKind: 'party', party: json } };
    if (CID_LIKE.test(json)) return { sum: { oneofKind: 'contractId', contractId: json } };
    return { sum: { oneofKind: 'text', text: json } };
  }
  if (Array.isArray(json)) {
    return {
      sum: { oneofKind: 'list', list: { elements: json.map((j) => valueFromJson(j, undefined, depth + 1)) } },
    };
  }
  if (typeof json === 'object') {
    const fields = Object.entries(json as Record<string, unknown>).map(([label, v]) => ({
      label,
      value: valueFromJson(v, undefined, depth + 1),
    }));
    return { sum: { oneofKind: 'record', record: { recordId, fields } } };
  }
  throw new Error(`unsupported JSON value of type ${typeof json}`);
}

type Json = ReturnType<typeof renderValue>;

/**
 * Value → Daml-LF JSON (Int64 and Numeric as strings, as the participant prints them). Records are objects, the
 * empty record too (`{}`, e.g. the payload of `TransferInstructionResult_Failed`); scalars as `renderValue` prints
 * them.
 */
export function valueToJson(value: Value | undefined): Json {
  const s = value?.sum;
  if (s === undefined) return renderValue(value);
  switch (s.oneofKind) {
    case 'record': {
      const fields = s.record.fields;
      if (fields.length > 0 && fields.some((f) => f.label === ''))
        return fields.map((f) => valueToJson(f.value));
      return Object.fromEntries(fields.map((f) => [f.label, valueToJson(f.value)]));
    }
    case 'variant':
      return { tag: s.variant.constructor, value: valueToJson(s.variant.value) };
    case 'list':
      return s.list.elements.map(valueToJson);
    case 'optional':
      // Nested optionals (`Some None`) have their own encoding: renderValue's.
      if (s.optional.value?.sum.oneofKind === 'optional') return renderValue(value);
      return s.optional.value === undefined ? null : valueToJson(s.optional.value);
    case 'textMap':
      return Object.fromEntries(s.textMap.entries.map((e) => [e.key, valueToJson(e.value)]));
    case 'genMap':
      return s.genMap.entries.map((e) => [valueToJson(e.key), valueToJson(e.value)]);
    default:
      return renderValue(value);
  }
}

/** Field of a record value by label. */
export function field(v: Value | undefined, label: string): Value | undefined {
  if (v?.sum.oneofKind !== 'record') return undefined;
  return v.sum.record.fields.find((f) => f.label === label)?.value;
}

export function text(v: Value | undefined): string | undefined {
  const s = v?.sum;
  if (s === undefined) return undefined;
  if (s.oneofKind === 'party') return s.party;
  if (s.oneofKind === 'text') return s.text;
  if (s.oneofKind === 'numeric') return s.numeric;
  if (s.oneofKind === 'contractId') return s.contractId;
  return undefined;
}

/** ISO-8601 instant from microseconds, trailing zero groups dropped like java.time.Instant. */
export function isoFromMicros(micros: bigint): string {
  const ms = micros / 1000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  const frac = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  // join() yields a flat string; template concatenation would keep a rope (memory of 1M+ updates).
  if (frac === 0n) return [base, 'Z'].join('');
  const digits = frac.toString().padStart(6, '0');
  return [base, '.', digits.endsWith('000') ? digits.slice(0, 3) : digits, 'Z'].join('');
}
