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
export { SigningError, type SigningErrorCode } from './errors.ts';
export { ensurePrivateDir, writeFileAtomic } from './files.ts';
export { FINGERPRINT_PATTERN, fingerprintOf, isFingerprint } from './fingerprint.ts';
export { DEFAULT_SCRYPT, type ScryptParams } from './keyfile.ts';
export { Keyring } from './keyring.ts';
export {
  KEY_BACKENDS,
  type KeyBackend,
  type KeyBackendName,
  type KeyCatalog,
  type KeyCheckResult,
  type KeyFileProblem,
  type KeyProblem,
  type KeyStatus,
  type KeySurvey,
  type KeyView,
} from './keys.ts';
export { KeyStore, type KeyStoreOptions, normalizeFingerprint } from './keystore.ts';
export { passphraseFromEnv } from './passphrase.ts';
export { openPkcs11Backend, type Pkcs11Options } from './pkcs11/backend.ts';
export {
  messageProblem,
  partySignatures,
  type RawSigner,
  type Signer,
  signingPublicKey,
  verifyingSigner,
} from './signer.ts';
