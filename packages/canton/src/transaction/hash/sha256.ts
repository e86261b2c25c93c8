// SHA-256 through node:crypto's one-shot native hash: per node pre-image (hundreds of bytes) it is several
// times faster than a JavaScript implementation, and its call overhead is below one compression round.
import { hash } from 'node:crypto';

/** The 32-byte SHA-256 digest of `data`, as a plain Uint8Array over its own memory. */
export function sha256(data: Uint8Array): Uint8Array {
  const b = hash('sha256', data, 'buffer');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}

/**
 * The digest as a 32-character string, one character per byte ('binary', Node's name for latin1). For the node
 * hashes, which only go into other pre-images: a string costs node:crypto half the time of a Buffer, and the GC
 * no native memory.
 */
export function sha256Latin1(data: Uint8Array): string {
  return hash('sha256', data, 'binary');
}
