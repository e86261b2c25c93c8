// The growable byte buffer under both hot-path writers (the hash encoding and protobuf): one buffer that
// doubles when it runs out, so writing a field never allocates.
export class GrowableBytes {
  protected buf: Uint8Array;
  protected view: DataView;
  /** Bytes written so far. */
  pos = 0;

  constructor(initial: number) {
    this.buf = new Uint8Array(initial);
    this.view = new DataView(this.buf.buffer);
  }

  /** Makes room for `n` more bytes. */
  protected ensure(n: number): void {
    const need = this.pos + n;
    if (need <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < need) size *= 2;
    const next = new Uint8Array(size);
    next.set(this.buf.subarray(0, this.pos));
    this.buf = next;
    this.view = new DataView(next.buffer);
  }
}
