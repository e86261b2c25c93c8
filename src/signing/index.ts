// Public surface of src/signing: the only code that touches private keys.
export {
  ALGORITHMS,
  type AlgorithmSpec,
  isKeyAlgorithm,
  KEY_ALGORITHMS,
  type KeyAlgorithm,
  type KeySpec,
  type SignatureFormat,
  type SigningAlgorithmSpec,
  verifySignature,
} from './algorithms.ts';
export { KeyStoreError, type KeyStoreErrorCode } from './errors.ts';
export { ensurePrivateDir, writeFileAtomic } from './files.ts';
export { FINGERPRINT_PATTERN, fingerprintOf, isFingerprint } from './fingerprint.ts';
export { DEFAULT_SCRYPT, type ScryptParams } from './keyfile.ts';
export {
  type KeyCatalog,
  type KeyCheckResult,
  type KeyFileProblem,
  type KeyStatus,
  KeyStore,
  type KeyStoreOptions,
  type KeySurvey,
  type KeyView,
  normalizeFingerprint,
} from './keystore.ts';
export { passphraseFromEnv } from './passphrase.ts';
export { LocalSigner, messageProblem, partySignatures, type Signer, signingPublicKey } from './signer.ts';
