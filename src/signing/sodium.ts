// Ed25519 verification before release, by libsodium (native, sodium-native's prebuilt binding): an implementation
// apart from OpenSSL, which signs, at ~50 µs a check (bench/sign.ts "per-key verify": 20,000/s), where the same
// library compiled to WebAssembly took ~113 µs. It is cofactorless, like the participant's verifier: it refuses a
// signature whose R has a torsion part, which noble's cofactored equation accepts, so it never releases what the
// participant would refuse.
import sodium from 'sodium-native';

/**
 * An Ed25519 verifier for one public key. libsodium refuses non-canonical and small-order keys and R, and a
 * non-canonical s, as RFC 8032's strict rules do.
 */
export function sodiumEd25519Verifier(
  publicKey: Uint8Array,
): (message: Uint8Array, signature: Uint8Array) => boolean {
  const key = Buffer.from(publicKey);
  if (key.length !== sodium.crypto_sign_PUBLICKEYBYTES) return () => false;
  return (message, signature) =>
    signature.length === sodium.crypto_sign_BYTES &&
    sodium.crypto_sign_verify_detached(signature, message, key);
}
