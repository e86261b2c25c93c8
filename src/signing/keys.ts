// What every key backend exposes, and what the rest of Quill sees of a key: public metadata only.
import type { KeyAlgorithm, KeySpec } from './algorithms.ts';

export type KeyStatus = 'active' | 'disabled';

/**
 * Where a key's private half lives: the name of a backend of the backend table (src/signing/backends.ts), such as
 * `file` (an encrypted file in KEYS_DIR) or `pkcs11` (a token).
 */
export type KeyBackendName = string;

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
  /** Where the key is kept: its file (file backend), its metadata file (PKCS#11), or the backend's own name for it. */
  location: string;
  fingerprint?: string;
  ok: boolean;
  problem?: KeyProblem;
  message?: string;
}

/** A key that failed to open: where it is kept, relative to KEYS_DIR (never the directory path), and why. */
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
 * A key backend: keeps keys' public metadata and status and signs with them; makes keys (`generate`) where it can,
 * and takes over keys made outside Quill (`adopt`: a KMS key, an HSM key made by its own tools) where it can.
 * Disabling never destroys key material (a file is re-sealed as disabled; a token key is left in the token). The
 * conformance suite `test/integration/signing/conformance.test.ts` is what a new backend must pass.
 */
export interface KeyBackend extends KeyCatalog, RawSigner {
  readonly name: KeyBackendName;
  generate?(algorithm: KeyAlgorithm, label?: string | null): Promise<KeyView>;
  /** Registers a key that already exists in the backend, named by `ref` (its own form, e.g. `label:treasury`). */
  adopt?(ref: string, label?: string | null): Promise<KeyView>;
  survey(): Promise<KeySurvey>;
  disable(fingerprint: string): Promise<KeyView>;
  check(): Promise<KeyCheckResult[]>;
  close?(): Promise<void>;
}
