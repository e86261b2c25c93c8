/**
 * Proto enums, encoded as their proto names (ledger-json-api.md §1.5). The decoder also accepts
 * `UNRECOGNIZED`, so every enum here does too.
 */
import { z } from 'zod';

function protoEnum<const T extends readonly [string, ...string[]]>(values: T) {
  return z.enum([...values, 'UNRECOGNIZED'] as unknown as readonly [...T, 'UNRECOGNIZED']);
}

/** The hashing schemes a prepared transaction can name and Quill can compute (the one list of them). */
export const HASHING_SCHEME_VERSIONS = ['HASHING_SCHEME_VERSION_V2', 'HASHING_SCHEME_VERSION_V3'] as const;

export const HashingSchemeVersion = protoEnum([
  'HASHING_SCHEME_VERSION_UNSPECIFIED',
  ...HASHING_SCHEME_VERSIONS,
] as const);
export type HashingSchemeVersion = z.infer<typeof HashingSchemeVersion>;

export const TransactionShape = protoEnum([
  'TRANSACTION_SHAPE_UNSPECIFIED',
  'TRANSACTION_SHAPE_ACS_DELTA',
  'TRANSACTION_SHAPE_LEDGER_EFFECTS',
] as const);
export type TransactionShape = z.infer<typeof TransactionShape>;

export const SignatureFormat = protoEnum([
  'SIGNATURE_FORMAT_UNSPECIFIED',
  'SIGNATURE_FORMAT_RAW',
  'SIGNATURE_FORMAT_DER',
  'SIGNATURE_FORMAT_CONCAT',
  'SIGNATURE_FORMAT_SYMBOLIC',
] as const);
export type SignatureFormat = z.infer<typeof SignatureFormat>;

export const SigningAlgorithmSpec = protoEnum([
  'SIGNING_ALGORITHM_SPEC_UNSPECIFIED',
  'SIGNING_ALGORITHM_SPEC_ED25519',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_256',
  'SIGNING_ALGORITHM_SPEC_EC_DSA_SHA_384',
] as const);
export type SigningAlgorithmSpec = z.infer<typeof SigningAlgorithmSpec>;

export const SigningKeySpec = protoEnum([
  'SIGNING_KEY_SPEC_UNSPECIFIED',
  'SIGNING_KEY_SPEC_EC_CURVE25519',
  'SIGNING_KEY_SPEC_EC_P256',
  'SIGNING_KEY_SPEC_EC_P384',
  'SIGNING_KEY_SPEC_EC_SECP256K1',
] as const);
export type SigningKeySpec = z.infer<typeof SigningKeySpec>;

export const CryptoKeyFormat = protoEnum([
  'CRYPTO_KEY_FORMAT_UNSPECIFIED',
  'CRYPTO_KEY_FORMAT_DER',
  'CRYPTO_KEY_FORMAT_RAW',
  'CRYPTO_KEY_FORMAT_DER_X509_SUBJECT_PUBLIC_KEY_INFO',
] as const);
export type CryptoKeyFormat = z.infer<typeof CryptoKeyFormat>;

export const ParticipantPermission = protoEnum([
  'PARTICIPANT_PERMISSION_UNSPECIFIED',
  'PARTICIPANT_PERMISSION_SUBMISSION',
  'PARTICIPANT_PERMISSION_CONFIRMATION',
  'PARTICIPANT_PERMISSION_OBSERVATION',
] as const);
export type ParticipantPermission = z.infer<typeof ParticipantPermission>;
