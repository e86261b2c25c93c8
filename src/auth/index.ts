// Public surface of src/auth: principals and roles, and the bearer tokens that carry them.
export { allows, idempotencyScope, type Principal, ROLES, type Role } from './principal.ts';
export {
  AuthError,
  type AuthErrorCode,
  type AuthSettings,
  createVerifier,
  issueToken,
  parseTtl,
  type Verifier,
} from './tokens.ts';
