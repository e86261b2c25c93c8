/** The signing key algorithms Quill holds keys for (the names its API, CLI and key files use). */
export const KEY_ALGORITHMS = ['ed25519', 'p256', 'p384', 'secp256k1'] as const;
export type KeyAlgorithm = (typeof KEY_ALGORITHMS)[number];

export function isKeyAlgorithm(value: unknown): value is KeyAlgorithm {
  return typeof value === 'string' && (KEY_ALGORITHMS as readonly string[]).includes(value);
}
