// The part of sodium-native (which ships no types) that src/signing/sodium.ts uses.
declare module 'sodium-native' {
  const sodium: {
    crypto_sign_BYTES: number;
    crypto_sign_PUBLICKEYBYTES: number;
    crypto_sign_verify_detached(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
  };
  export default sodium;
}
