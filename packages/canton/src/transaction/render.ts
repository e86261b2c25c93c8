// Rendering Daml values and times for people: the JSON API's Daml-LF JSON conventions (records as
// objects, variants as {tag, value}, Int64/Numeric as strings, ISO times), never lossy numbers.
import type { Identifier, Value } from './types.ts';

export type Json = null | boolean | string | Json[] | { [k: string]: Json };

export function identifierText(id: Identifier | undefined): string | null {
  return id === undefined ? null : `${id.packageId}:${id.moduleName}:${id.entityName}`;
}

/** Microseconds since the epoch → ISO-8601 UTC with as many fraction digits as needed. */
export function microsToIso(micros: bigint): string {
  const ms = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const sub = Number(micros - ms * 1000n);
  const d = new Date(Number(ms));
  if (Number.isNaN(d.getTime())) return `${micros}us`;
  const base = d.toISOString();
  if (sub === 0) return base;
  return `${base.slice(0, -1)}${String(sub).padStart(3, '0')}Z`;
}

function daysToDate(days: number): string {
  return new Date(days * 86400000).toISOString().slice(0, 10);
}

export function renderValue(v: Value | undefined, nested = false): Json {
  if (v === undefined) return null;
  const s = v.sum;
  switch (s.oneofKind) {
    case 'unit':
      return {};
    case 'bool':
      return s.bool;
    case 'int64':
      return s.int64.toString();
    case 'numeric':
      return s.numeric;
    case 'timestamp':
      return microsToIso(s.timestamp);
    case 'date':
      return daysToDate(s.date);
    case 'party':
      return s.party;
    case 'text':
      return s.text;
    case 'contractId':
      return s.contractId;
    case 'optional': {
      const inner = s.optional.value;
      const innerIsOptional = inner?.sum.oneofKind === 'optional';
      if (nested) return inner === undefined ? [] : [renderValue(inner, innerIsOptional)];
      return inner === undefined ? null : renderValue(inner, innerIsOptional);
    }
    case 'list':
      return s.list.elements.map((e) => renderValue(e));
    case 'textMap': {
      const out: { [k: string]: Json } = {};
      for (const e of s.textMap.entries) out[e.key] = renderValue(e.value);
      return out;
    }
    case 'genMap':
      return s.genMap.entries.map((e) => [renderValue(e.key), renderValue(e.value)]);
    case 'record': {
      const fields = s.record.fields;
      if (fields.length > 0 && fields.every((f) => f.label !== '')) {
        const out: { [k: string]: Json } = {};
        for (const f of fields) out[f.label] = renderValue(f.value);
        return out;
      }
      return fields.map((f) => renderValue(f.value));
    }
    case 'variant':
      return { tag: s.variant.constructor, value: renderValue(s.variant.value) };
    case 'enum':
      return s.enum.constructor;
    default:
      return null;
  }
}
