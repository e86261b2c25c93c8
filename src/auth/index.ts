// Public surface of src/auth: principals and roles, and the bearer tokens that carry them.

export { AuthError, type AuthErrorCode } from './errors.ts';
export {
  allows,
  idempotencyScope,
  type Principal,
  personName,
  ROLES,
  type Role,
  samePerson,
} from './principal.ts';
export {
  type AuthSettings,
  createVerifier,
  issueToken,
  parseTtl,
  previousSecretNotice,
  type Verifier,
} from './tokens.ts';
