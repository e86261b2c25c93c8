// A strict protobuf reader for the few messages of this folder. Every failure is a TopologyError('MALFORMED'):
// truncation, over-long varints, groups, a known field with the wrong wire type, a singular field given
// twice (proto3 would merge or keep the last; for bytes that get signed we refuse the ambiguity), bad UTF-8.
// Unknown fields are skipped, as protobuf does.
import { malformed } from './errors.ts';

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;
const WIRE_NAMES = ['varint', 'fixed64', 'length-delimited', 'group start', 'group end', 'fixed32'];

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

interface Field {
  no: number;
  wire: number;
  /** The varint (possibly above 2^53, then inexact: only compared against small ranges). */
  num: number;
  /** The payload of a length-delimited field. */
  data: Uint8Array;
}

const EMPTY = new Uint8Array(0);

/** Reads one varint at `pos`; returns [value, next position]. */
function varint(buf: Uint8Array, pos: number, what: string): [number, number] {
  let value = 0;
  let scale = 1;
  for (let i = 0; i < 10; i++) {
    if (pos >= buf.length) malformed(`${what}: truncated varint`);
    const b = buf[pos++]!;
    if (i === 9 && b > 1) malformed(`${what}: varint longer than 64 bits`);
    value += (b & 0x7f) * scale;
    if (b < 0x80) return [value, pos];
    scale *= 128;
  }
  return malformed(`${what}: varint longer than 10 bytes`);
}

/** One protobuf message, its fields parsed (not yet interpreted). */
export class Message {
  private readonly fields: Field[] = [];

  constructor(
    buf: Uint8Array,
    readonly what: string,
  ) {
    let pos = 0;
    while (pos < buf.length) {
      let key: number;
      [key, pos] = varint(buf, pos, what);
      const no = Math.floor(key / 8);
      const wire = key % 8;
      if (no === 0 || no > 0x1fffffff) malformed(`${what}: invalid field number ${no}`);
      if (wire === VARINT) {
        let num: number;
        [num, pos] = varint(buf, pos, what);
        this.fields.push({ no, wire, num, data: EMPTY });
      } else if (wire === LEN) {
        let len: number;
        [len, pos] = varint(buf, pos, what);
        if (len > buf.length - pos) malformed(`${what}: field ${no} runs past the end (truncated)`);
        this.fields.push({ no, wire, num: 0, data: buf.subarray(pos, pos + len) });
        pos += len;
      } else if (wire === I64 || wire === I32) {
        const n = wire === I64 ? 8 : 4;
        if (n > buf.length - pos) malformed(`${what}: field ${no} runs past the end (truncated)`);
        this.fields.push({ no, wire, num: 0, data: buf.subarray(pos, pos + n) });
        pos += n;
      } else {
        malformed(`${what}: field ${no} has unsupported wire type ${WIRE_NAMES[wire] ?? wire}`);
      }
    }
  }

  /** Field numbers present, in order, once each. */
  numbers(): number[] {
    return [...new Set(this.fields.map((f) => f.no))];
  }

  has(no: number): boolean {
    return this.fields.some((f) => f.no === no);
  }

  private all(no: number, wires: number[], name: string): Field[] {
    const found = this.fields.filter((f) => f.no === no);
    for (const f of found) {
      if (!wires.includes(f.wire)) {
        malformed(
          `${this.what}.${name} (field ${no}) has wire type ${WIRE_NAMES[f.wire]}, expected ${WIRE_NAMES[wires[0]!]}`,
        );
      }
    }
    return found;
  }

  private one(no: number, wire: number, name: string): Field | undefined {
    const found = this.all(no, [wire], name);
    if (found.length > 1) malformed(`${this.what}.${name} (field ${no}) appears ${found.length} times`);
    return found[0];
  }

  /** A singular uint32 (absent = 0, the proto3 default). */
  uint32(no: number, name: string): number {
    const f = this.one(no, VARINT, name);
    if (!f) return 0;
    if (f.num > 0xffffffff) malformed(`${this.what}.${name} is out of uint32 range`);
    return f.num;
  }

  /** A singular varint read raw (enums, int32; negative int32s are huge here and fail range checks). */
  varint(no: number, name: string): number {
    return this.one(no, VARINT, name)?.num ?? 0;
  }

  bool(no: number, name: string): boolean {
    const v = this.varint(no, name);
    if (v > 1) malformed(`${this.what}.${name} is not a bool`);
    return v === 1;
  }

  bytes(no: number, name: string): Uint8Array {
    return (this.one(no, LEN, name)?.data ?? EMPTY).slice();
  }

  string(no: number, name: string): string {
    const data = this.one(no, LEN, name)?.data ?? EMPTY;
    try {
      return utf8.decode(data);
    } catch {
      return malformed(`${this.what}.${name} is not valid UTF-8`);
    }
  }

  /** A singular sub-message, or undefined when absent. */
  message(no: number, name: string): Message | undefined {
    const f = this.one(no, LEN, name);
    return f ? new Message(f.data, `${this.what}.${name}`) : undefined;
  }

  messages(no: number, name: string): Message[] {
    return this.all(no, [LEN], name).map((f, i) => new Message(f.data, `${this.what}.${name}[${i}]`));
  }

  /** A repeated enum, packed (what Canton writes) or not, in wire order. */
  enums(no: number, name: string): number[] {
    const out: number[] = [];
    for (const f of this.all(no, [VARINT, LEN], name)) {
      if (f.wire === VARINT) {
        out.push(f.num);
        continue;
      }
      let pos = 0;
      while (pos < f.data.length) {
        let v: number;
        [v, pos] = varint(f.data, pos, `${this.what}.${name}`);
        out.push(v);
      }
    }
    return out;
  }
}
