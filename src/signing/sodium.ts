// Ed25519 verification before release, by libsodium (its C compiled to WebAssembly): an implementation apart from
// OpenSSL, which signs, at a quarter of noble's cost (bench/sign.ts). It is cofactorless, like the participant's
// verifier: it refuses a signature whose R has a torsion part, which noble's cofactored equation accepts, so it
// never releases what the participant would refuse. Loaded on the first Ed25519 signature (~80 ms, once).
import sodium from 'libsodium-wrappers';

let ready: Promise<void> | undefined;

/** Resolves once libsodium is loaded; every later call is free. */
export function sodiumReady(): Promise<void> {
  ready ??= sodium.ready;
  return ready;
}

/**
 * An Ed25519 verifier for one public key (call `sodiumReady` first). libsodium refuses non-canonical and
 * small-order keys and R, and a non-canonical s, as RFC 8032's strict rules do.
 */
export function sodiumEd25519Verifier(
  publicKey: Uint8Array,
): (message: Uint8Array, signature: Uint8Array) => boolean {
  if (!ready) throw new Error('sodiumReady() must resolve before an Ed25519 verifier is made');
  const key = Uint8Array.from(publicKey);
  return (message, signature) =>
    signature.length === 64 && sodium.crypto_sign_verify_detached(signature, message, key);
}
