// protobuf-ts reader (`readerFactory`) tuned for allocation: decoding a large transaction spent most of
// its time in the garbage collector. Changes from the stock reader, each returning the same values:
// - `string()` decodes ASCII (party ids, names, hex) with one native latin1 slice of the input instead of a
//   sub-view plus TextDecoder; anything else still goes through the fatal TextDecoder;
// - `tag()` returns one reused pair (the generated code destructures it at once and keeps nothing);
// - `sint64()` / `sfixed64()` return one reused PbLong (the generated code calls `.toBigInt()` at once);
// - `bytes` fields are copied, so a decoded transaction never aliases the caller's input buffer.
import { BinaryReader, PbLong, type WireType } from '@protobuf-ts/runtime';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
/** Strings up to this many bytes are looked up in the per-decode intern table (1024 slots, last one wins). */
const INTERN_MAX = 160;
const INTERN_MASK = 1023;

export class FastBinaryReader extends BinaryReader {
  /** The input (the base class keeps it private). */
  private readonly input: Uint8Array;
  /** The same memory, as a Buffer for native string slicing (no copy). */
  private readonly native: Buffer;
  private readonly pair: [number, WireType] = [0, 0];
  private readonly long = new PbLong(0, 0);
  private readonly interned: (string | undefined)[] = new Array(INTERN_MASK + 1).fill(undefined);

  constructor(buf: Uint8Array) {
    super(buf, utf8);
    this.input = buf;
    this.native = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  override tag(): [number, WireType] {
    const tag = this.uint32();
    const fieldNo = tag >>> 3;
    const wireType = tag & 7;
    if (fieldNo <= 0 || wireType > 5)
      throw new Error(`illegal tag: field no ${fieldNo} wire type ${wireType}`);
    const p = this.pair;
    p[0] = fieldNo;
    p[1] = wireType;
    return p;
  }

  override bytes(): Uint8Array {
    const len = this.uint32();
    const start = this.pos;
    this.pos += len;
    this.assertBounds();
    // A fresh Uint8Array (not a Buffer view, whatever the input was).
    const out = new Uint8Array(len);
    out.set(this.input.subarray(start, start + len));
    return out;
  }

  override string(): string {
    const len = this.uint32();
    const start = this.pos;
    const end = start + len;
    this.pos = end;
    this.assertBounds();
    const b = this.input;
    for (let i = start; i < end; i++) {
      if (b[i]! > 0x7f) return utf8.decode(b.subarray(start, end));
    }
    if (len > INTERN_MAX) return this.native.toString('latin1', start, end);
    // Transactions repeat a few strings (parties, package and template ids, labels) on every node: one
    // string per distinct byte run keeps the decoded tree, which the GC copies and marks, much smaller.
    const slot = (len * 31 + b[start]! * 7 + b[end - 1]! * 131 + b[start + (len >> 1)]! * 17) & INTERN_MASK;
    const hit = this.interned[slot];
    if (hit !== undefined && hit.length === len) {
      let i = len - 1;
      while (i >= 0 && hit.charCodeAt(i) === b[start + i]) i--;
      if (i < 0) return hit;
    }
    // All bytes < 0x80: latin1 and UTF-8 decode them to the same code units.
    const s = this.native.toString('latin1', start, end);
    this.interned[slot] = s;
    return s;
  }

  override sint64(): PbLong {
    const [lo, hi] = this.varint64();
    const s = -(lo & 1);
    return this.setLong(((lo >>> 1) | ((hi & 1) << 31)) ^ s, (hi >>> 1) ^ s);
  }

  override sfixed64(): PbLong {
    const lo = this.sfixed32();
    return this.setLong(lo, this.sfixed32());
  }

  private setLong(lo: number, hi: number): PbLong {
    const l = this.long as { lo: number; hi: number };
    l.lo = lo;
    l.hi = hi;
    return this.long;
  }
}
