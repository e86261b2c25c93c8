// protobuf-ts reader (`readerFactory`) with two changes: short ASCII strings skip TextDecoder (most
// strings in a transaction are party ids, names and hex), and `bytes` fields are copied, so a decoded
// transaction never aliases (and cannot be changed through) the caller's input buffer.
import { BinaryReader } from '@protobuf-ts/runtime';

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export class FastBinaryReader extends BinaryReader {
  constructor(buf: Uint8Array) {
    super(buf, utf8);
  }

  override bytes(): Uint8Array {
    return super.bytes().slice();
  }

  override string(): string {
    const b = super.bytes();
    const n = b.length;
    if (n > 64) return utf8.decode(b);
    let s = '';
    for (let i = 0; i < n; i++) {
      const c = b[i]!;
      if (c > 0x7f) return utf8.decode(b);
      s += String.fromCharCode(c);
    }
    return s;
  }
}
