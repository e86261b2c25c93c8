// SHA-256 through node:crypto's one-shot native hash: per node pre-image (hundreds of bytes) it is several
// times faster than a JavaScript implementation, and its call overhead is below one compression round.
import { hash } from 'node:crypto';

/** The 32-byte SHA-256 digest of `data`, as a plain Uint8Array over its own memory. */
export function sha256(data: Uint8Array): Uint8Array {
  const b = hash('sha256', data, 'buffer');
  return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
}
