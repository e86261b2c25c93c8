// What every key backend exposes, and what the rest of Quill sees of a key: public metadata only.
import type { KeyAlgorithm, KeySpec } from './algorithms.ts';

export type KeyStatus = 'active' | 'disabled';

/** Where a key's private half lives: an encrypted file in KEYS_DIR, or a PKCS#11 token. */
export const KEY_BACKENDS = ['file', 'pkcs11'] as const;
export type KeyBackendName = (typeof KEY_BACKENDS)[number];

/** What anyone may see of a key. */
export interface KeyView {
  fingerprint: string;
  algorithm: KeyAlgorithm;
  keySpec: KeySpec;
  /** DER SubjectPublicKeyInfo, standard base64. */
  publicKey: string;
  label: string | null;
  status: KeyStatus;
  createdAt: string;
  backend: KeyBackendName;
}

/** What a backend implements to sign: the signature bytes of an active key, unverified. */
export interface RawSigner {
  /**
   * Ed25519: the 64-byte signature of `message`. ECDSA: a DER signature (either S) over the algorithm's digest of
   * `message` (SHA-256 for P-256 and secp256k1, SHA-384 for P-384), as the participant verifies it.
   * Throws DISABLED for a disabled key, NOT_FOUND for one it does not hold.
   */
  signBytes(keyFingerprint: string, message: Uint8Array): Promise<{ view: KeyView; signature: Uint8Array }>;
}

/** Read access to key metadata (what onboarding needs next to a `Signer`). */
export interface KeyCatalog {
  get(fingerprint: string): Promise<KeyView>;
  list(): Promise<KeyView[]>;
}

export type KeyProblem =
  | 'wrong-passphrase'
  | 'tampered'
  | 'unreadable'
  /** PKCS#11: the token does not hold the key (any more). */
  | 'missing'
  /** PKCS#11: the token is not there or refused the PIN. */
  | 'unavailable';

export interface KeyCheckResult {
  /** The key file (file backend) or the key's metadata file (PKCS#11). */
  file: string;
  fingerprint?: string;
  ok: boolean;
  problem?: KeyProblem;
  message?: string;
}

/** A key that failed to open: its file's base name (never the directory path) and why. */
export interface KeyFileProblem {
  file: string;
  problem: KeyProblem;
}

/** The healthy keys, and each key that could not be opened (one bad key never hides the others). */
export interface KeySurvey {
  keys: KeyView[];
  problems: KeyFileProblem[];
}

/**
 * A key backend: creates keys, keeps their public metadata and status, signs with them. Disabling never destroys
 * key material (a file is re-sealed as disabled; a token key is left in the token). The conformance suite
 * `test/signing/conformance.test.ts` is what a new backend must pass.
 */
export interface KeyBackend extends KeyCatalog, RawSigner {
  readonly name: KeyBackendName;
  generate(algorithm: KeyAlgorithm, label?: string | null): Promise<KeyView>;
  survey(): Promise<KeySurvey>;
  disable(fingerprint: string): Promise<KeyView>;
  check(): Promise<KeyCheckResult[]>;
  close?(): Promise<void>;
}
