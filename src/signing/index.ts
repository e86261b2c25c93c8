// Public surface of src/signing: the only code that touches private keys.
export {
  ALGORITHMS,
  type AlgorithmSpec,
  canonicalSignature,
  isKeyAlgorithm,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type KeySpec,
  rawPublicKeyFromSpki,
  type SignatureFormat,
  type SigningAlgorithmSpec,
  verifySignature,
} from './algorithms.ts';
export type { ConfigureContext, KeyBackendType } from './backend-type.ts';
export { backendType, KEY_BACKEND_TYPES } from './backends.ts';
export { SigningError, type SigningErrorCode } from './errors.ts';
export { algorithmOfSpec, type ExternalKey, externalKey } from './external.ts';
export { ensurePrivateDir, writeFileAtomic } from './files.ts';
export { FINGERPRINT_PATTERN, fingerprintOf, isFingerprint } from './fingerprint.ts';
export { DEFAULT_SCRYPT, type ScryptParams } from './keyfile.ts';
export { type BackendInfo, Keyring } from './keyring.ts';
export type {
  KeyBackend,
  KeyBackendName,
  KeyCatalog,
  KeyCheckResult,
  KeyFileProblem,
  KeyProblem,
  KeyStatus,
  KeySurvey,
  KeyView,
} from './keys.ts';
export { KeyStore, type KeyStoreOptions, normalizeFingerprint, type ResealResult } from './keystore.ts';
export { keyStoreMetrics } from './metrics.ts';
export { openPkcs11Backend, type Pkcs11Options } from './pkcs11/backend.ts';
export {
  messageProblem,
  partySignatures,
  type RawSigner,
  type Signer,
  signingPublicKey,
  verifyingSigner,
} from './signer.ts';
export { type PublicKeyView, parsePublicKey, signStatement, verifyStatement } from './statement.ts';
