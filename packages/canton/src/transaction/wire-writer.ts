// A protobuf binary writer for protobuf-ts (`writerFactory`) that writes into one growable buffer.
// The stock writer builds arrays of chunks and dominated the accept path; the bytes produced are the
// same (same varint, zigzag and little-endian rules), which the round-trip tests pin down.
import type { IBinaryWriter, WireType } from '@protobuf-ts/runtime';
import { GrowableBytes } from './growable.ts';

const utf8 = new TextEncoder();
/** Bytes reserved for a forked message's length prefix. */
const RESERVED = 2;

export class FastBinaryWriter extends GrowableBytes implements IBinaryWriter {
  private readonly forks: number[] = [];

  constructor() {
    super(1024);
  }

  /** Drops anything written so far (the buffer is kept for the next message). */
  reset(): this {
    this.pos = 0;
    this.forks.length = 0;
    return this;
  }

  /** Whether the bytes written so far equal `other` (no copy). */
  equals(other: Uint8Array): boolean {
    if (this.forks.length > 0 || other.length !== this.pos) return false;
    return Buffer.compare(this.buf.subarray(0, this.pos), other) === 0;
  }

  finish(): Uint8Array {
    if (this.forks.length > 0) throw new Error('invalid state: unjoined fork');
    const out = this.buf.slice(0, this.pos);
    this.pos = 0;
    return out;
  }

  // A forked message's length prefix is only known at its join. Two bytes are reserved for it up front
  // (enough for any message under 16 KiB), so a join moves the message only when its varint length is
  // not 2 bytes: a short move for messages under 128 bytes, a rare one for the few large outer messages.
  // Moving every message at its join, as before, moved each byte once per enclosing message.
  fork(): IBinaryWriter {
    this.ensure(RESERVED);
    this.forks.push(this.pos);
    this.pos += RESERVED;
    return this;
  }

  join(): IBinaryWriter {
    const start = this.forks.pop();
    if (start === undefined) throw new Error('invalid state, fork stack empty');
    const len = this.pos - start - RESERVED;
    const n = varintSize(len);
    if (n !== RESERVED) {
      this.ensure(n - RESERVED);
      this.buf.copyWithin(start + n, start + RESERVED, this.pos);
      this.pos += n - RESERVED;
    }
    let p = start;
    let v = len;
    while (v > 0x7f) {
      this.buf[p++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[p] = v;
    return this;
  }

  tag(fieldNo: number, type: WireType): IBinaryWriter {
    const t = ((fieldNo << 3) | type) >>> 0;
    if (t < 0x80) {
      // Field numbers below 16 (all but a few): a one-byte tag.
      this.ensure(1);
      this.buf[this.pos++] = t;
      return this;
    }
    return this.uint32(t);
  }

  raw(chunk: Uint8Array): IBinaryWriter {
    this.ensure(chunk.length);
    this.buf.set(chunk, this.pos);
    this.pos += chunk.length;
    return this;
  }

  uint32(value: number): IBinaryWriter {
    if (!Number.isInteger(value) || value < 0 || value > 0xffffffff)
      throw new TypeError(`invalid uint32: ${value}`);
    this.ensure(5);
    let v = value;
    while (v > 0x7f) {
      this.buf[this.pos++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.pos++] = v;
    return this;
  }

  int32(value: number): IBinaryWriter {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
      throw new TypeError(`invalid int32: ${value}`);
    }
    return value >= 0 ? this.uint32(value) : this.varint64(BigInt.asUintN(64, BigInt(value)));
  }

  sint32(value: number): IBinaryWriter {
    if (!Number.isInteger(value) || value < -0x80000000 || value > 0x7fffffff) {
      throw new TypeError(`invalid sint32: ${value}`);
    }
    return this.uint32(((value << 1) ^ (value >> 31)) >>> 0);
  }

  bool(value: boolean): IBinaryWriter {
    this.ensure(1);
    this.buf[this.pos++] = value ? 1 : 0;
    return this;
  }

  string(value: string): IBinaryWriter {
    const n = value.length;
    if (n < 128) {
      // Short ASCII (nearly every string): length byte and characters in one pass; the first non-ASCII
      // character abandons it for the general path, which overwrites what was written.
      this.ensure(1 + n);
      const buf = this.buf;
      let p = this.pos + 1;
      for (let i = 0; i < n; i++) {
        const c = value.charCodeAt(i);
        if (c > 0x7f) {
          p = -1;
          break;
        }
        buf[p++] = c;
      }
      if (p >= 0) {
        buf[this.pos] = n;
        this.pos = p;
        return this;
      }
    }
    const bytes = utf8.encode(value);
    this.uint32(bytes.length);
    return this.raw(bytes);
  }

  bytes(value: Uint8Array): IBinaryWriter {
    this.uint32(value.length);
    return this.raw(value);
  }

  float(value: number): IBinaryWriter {
    this.ensure(4);
    this.view.setFloat32(this.pos, value, true);
    this.pos += 4;
    return this;
  }

  double(value: number): IBinaryWriter {
    this.ensure(8);
    this.view.setFloat64(this.pos, value, true);
    this.pos += 8;
    return this;
  }

  fixed32(value: number): IBinaryWriter {
    this.ensure(4);
    this.view.setUint32(this.pos, value, true);
    this.pos += 4;
    return this;
  }

  sfixed32(value: number): IBinaryWriter {
    this.ensure(4);
    this.view.setInt32(this.pos, value, true);
    this.pos += 4;
    return this;
  }

  fixed64(value: string | number | bigint): IBinaryWriter {
    this.ensure(8);
    this.view.setBigUint64(this.pos, BigInt.asUintN(64, toBigInt(value)), true);
    this.pos += 8;
    return this;
  }

  sfixed64(value: string | number | bigint): IBinaryWriter {
    this.ensure(8);
    this.view.setBigInt64(this.pos, BigInt.asIntN(64, toBigInt(value)), true);
    this.pos += 8;
    return this;
  }

  int64(value: string | number | bigint): IBinaryWriter {
    return this.varint64(BigInt.asUintN(64, toBigInt(value)));
  }

  uint64(value: string | number | bigint): IBinaryWriter {
    return this.varint64(BigInt.asUintN(64, toBigInt(value)));
  }

  sint64(value: string | number | bigint): IBinaryWriter {
    const v = BigInt.asIntN(64, toBigInt(value));
    return this.varint64(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)));
  }

  private varint64(u: bigint): IBinaryWriter {
    if (u <= 0xffffffffn) return this.uint32(Number(u));
    this.ensure(10);
    let v = u;
    while (v > 0x7fn) {
      this.buf[this.pos++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.pos++] = Number(v);
    return this;
  }
}

function toBigInt(value: string | number | bigint): bigint {
  return typeof value === 'bigint' ? value : BigInt(value);
}

function varintSize(n: number): number {
  return n < 0x80 ? 1 : n < 0x4000 ? 2 : n < 0x200000 ? 3 : n < 0x10000000 ? 4 : 5;
}
