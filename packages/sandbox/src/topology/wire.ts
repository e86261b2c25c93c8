/**
 * A minimal protocol-buffers wire reader and writer (varints and length-delimited fields only, which is all the
 * topology messages use), written for the sandbox so that its topology codec is independent of Quill's.
 */

export interface Field {
  no: number;
  /** 0 = varint, 2 = length-delimited. */
  wire: 0 | 2;
  varint: bigint;
  bytes: Uint8Array;
}

export class WireError extends Error {
  override readonly name = 'WireError';
}

function readVarint(buf: Uint8Array, pos: number): [bigint, number] {
  let value = 0n;
  let shift = 0n;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) throw new WireError('truncated varint');
    const b = buf[pos++]!;
    value |= BigInt(b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [value, pos];
    shift += 7n;
  }
  throw new WireError('varint longer than 10 bytes');
}

/** Every field of one message, in order. Groups, fixed32 and fixed64 are refused (topology protos have none). */
export function readFields(buf: Uint8Array): Field[] {
  const out: Field[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const [tag, p1] = readVarint(buf, pos);
    pos = p1;
    const no = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (no === 0) throw new WireError('field number 0');
    if (wire === 0) {
      const [v, p2] = readVarint(buf, pos);
      pos = p2;
      out.push({ no, wire: 0, varint: v, bytes: new Uint8Array() });
    } else if (wire === 2) {
      const [len, p2] = readVarint(buf, pos);
      const end = p2 + Number(len);
      if (len > BigInt(buf.length) || end > buf.length)
        throw new WireError('truncated length-delimited field');
      out.push({ no, wire: 2, varint: 0n, bytes: buf.subarray(p2, end) });
      pos = end;
    } else {
      throw new WireError(`unsupported wire type ${wire} for field ${no}`);
    }
  }
  return out;
}

/** The unpacked or packed values of a repeated varint field. */
export function repeatedVarints(fields: Field[], no: number): number[] {
  const out: number[] = [];
  for (const f of fields) {
    if (f.no !== no) continue;
    if (f.wire === 0) out.push(Number(f.varint));
    else {
      let pos = 0;
      while (pos < f.bytes.length) {
        const [v, p] = readVarint(f.bytes, pos);
        out.push(Number(v));
        pos = p;
      }
    }
  }
  return out;
}

/** Last occurrence wins, as protobuf parsers do for singular fields. */
export function last(fields: Field[], no: number, wire: 0 | 2): Field | undefined {
  let found: Field | undefined;
  for (const f of fields) {
    if (f.no !== no) continue;
    if (f.wire !== wire) throw new WireError(`field ${no} has the wrong wire type`);
    found = f;
  }
  return found;
}

export function varintBytes(value: number | bigint): number[] {
  let v = BigInt.asUintN(64, BigInt(value));
  const out: number[] = [];
  while (v > 0x7fn) {
    out.push(Number(v & 0x7fn) | 0x80);
    v >>= 7n;
  }
  out.push(Number(v));
  return out;
}

/** Builds one message; proto3 defaults (0, empty) are left out as the participant's serializer does. */
export class Writer {
  private readonly parts: number[] = [];

  varint(no: number, value: number | bigint): this {
    if (BigInt(value) === 0n) return this;
    this.parts.push(...varintBytes((no << 3) | 0), ...varintBytes(value));
    return this;
  }

  bytes(no: number, value: Uint8Array, keepEmpty = false): this {
    if (value.length === 0 && !keepEmpty) return this;
    this.parts.push(...varintBytes((no << 3) | 2), ...varintBytes(value.length), ...value);
    return this;
  }

  string(no: number, value: string): this {
    return this.bytes(no, new TextEncoder().encode(value));
  }

  packed(no: number, values: number[]): this {
    if (values.length === 0) return this;
    return this.bytes(no, Uint8Array.from(values.flatMap((v) => varintBytes(v))));
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.parts);
  }
}

export function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}
