// A growable big-endian byte writer for the hashing encoding: one buffer reused for every node, no
// per-field allocations (the hasher is on the accept hot path).

import { GrowableBytes } from '../growable.ts';

const utf8 = new TextEncoder();

export class ByteWriter extends GrowableBytes {
  constructor(initial = 4096) {
    super(initial);
  }

  reset(): this {
    this.pos = 0;
    return this;
  }

  /** The bytes written so far (a view, valid until the next write). */
  bytes(): Uint8Array {
    return this.buf.subarray(0, this.pos);
  }

  byte(b: number): void {
    this.ensure(1);
    this.buf[this.pos++] = b;
  }

  bool(b: boolean): void {
    this.byte(b ? 1 : 0);
  }

  int32(n: number): void {
    this.ensure(4);
    this.view.setInt32(this.pos, n, false);
    this.pos += 4;
  }

  /** 8 bytes big-endian, two's complement (uint64 fields are written as their signed bit pattern). */
  int64(n: bigint): void {
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, n), false);
    this.pos += 8;
  }

  /** Raw bytes with no length prefix (hashes, seeds). */
  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  /** Raw bytes given as a latin1 string, one character per byte (`sha256Latin1` digests). */
  latin1(s: string): void {
    const n = s.length;
    this.ensure(n);
    const b = this.buf;
    const p = this.pos;
    for (let i = 0; i < n; i++) b[p + i] = s.charCodeAt(i);
    this.pos = p + n;
  }

  /** int32 length || bytes. */
  bytesWithLength(b: Uint8Array): void {
    this.int32(b.length);
    this.raw(b);
  }

  /** int32 UTF-8 byte length || UTF-8 bytes. */
  string(s: string): void {
    const n = s.length;
    if (n <= 256) {
      // ASCII (parties, names, ids) copied in one pass; the first other character falls back to encodeInto
      this.ensure(4 + n);
      const b = this.buf;
      const p = this.pos + 4;
      let i = 0;
      for (; i < n; i++) {
        const c = s.charCodeAt(i);
        if (c > 0x7f) break;
        b[p + i] = c;
      }
      if (i === n) {
        this.view.setInt32(this.pos, n, false);
        this.pos = p + n;
        return;
      }
    }
    this.ensure(4 + n * 3);
    const start = this.pos + 4;
    const { written } = utf8.encodeInto(s, this.buf.subarray(start));
    this.view.setInt32(this.pos, written, false);
    this.pos = start + written;
  }

  /** int32 byte length || bytes of a lowercase hex string (contract ids). */
  hex(s: string): void {
    const n = s.length >> 1;
    this.ensure(4 + n);
    this.view.setInt32(this.pos, n, false);
    let p = this.pos + 4;
    for (let i = 0; i < s.length; i += 2)
      this.buf[p++] = (nibble(s.charCodeAt(i)) << 4) | nibble(s.charCodeAt(i + 1));
    this.pos = p;
  }
}

function nibble(c: number): number {
  // Callers validated the string as lowercase hex.
  return c <= 57 ? c - 48 : c - 87;
}
