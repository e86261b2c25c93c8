/**
 * INTERFACE.md's request rules, checked before sending (the client) and usable by a server (the sandbox)
 * to answer like the participant. Each check returns a one-line reason, or undefined when the request is fine.
 * The participant reports these as INVALID_ARGUMENT (category 8, HTTP 400); the client throws
 * `invalidArgument(reason)` (status undefined, `context.source = client`).
 */
import type {
  GetTransactionByIdRequest,
  GetTransactionByOffsetRequest,
  GetUpdatesRequest,
} from './schemas/updates.ts';
import type { UpdateUserRequest } from './schemas/users.ts';

/** Every update-mask path that names a field (or subfield) of the User proto message. */
export const USER_UPDATE_PATHS: ReadonlySet<string> = new Set([
  'id',
  'primary_party',
  'is_deactivated',
  'metadata',
  'metadata.annotations',
  'metadata.resource_version',
  'identity_provider_id',
  'primary_party_authentication',
]);

function offsetProblem(name: string, value: number | undefined | null, positive = false): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Number.isSafeInteger(value)) return `${name} must be an integer`;
  if (positive && value <= 0) return `${name} must be positive`;
  if (value < 0) return `${name} must not be negative`;
  return undefined;
}

export function checkGetUpdatesRequest(req: GetUpdatesRequest): string | undefined {
  const problem =
    offsetProblem('beginExclusive', req.beginExclusive) ?? offsetProblem('endInclusive', req.endInclusive);
  if (problem) return problem;
  if (req.descendingOrder && (req.endInclusive === undefined || req.endInclusive === null)) {
    return 'descendingOrder requires endInclusive';
  }
  if (req.endInclusive !== undefined && req.endInclusive !== null && req.endInclusive < req.beginExclusive) {
    return 'endInclusive must not be before beginExclusive';
  }
  // `verbose` is a proto3 bool: false is indistinguishable from unset, so only `true` counts as legacy use
  // (the official SDK sends `verbose: false` next to `updateFormat`).
  const legacy = req.filter != null || req.verbose === true;
  if (legacy && req.updateFormat != null) {
    return 'the legacy filter/verbose fields must not be set together with updateFormat';
  }
  return undefined;
}

function checkTransactionLookup(
  req: GetTransactionByOffsetRequest | GetTransactionByIdRequest,
): string | undefined {
  const legacy = req.requestingParties != null;
  if (legacy && req.transactionFormat != null) {
    return 'requestingParties (legacy) must not be set together with transactionFormat';
  }
  if (!legacy && req.transactionFormat == null)
    return 'either transactionFormat or requestingParties is required';
  if (legacy && req.requestingParties?.length === 0) return 'requestingParties must not be empty';
  return undefined;
}

export function checkTransactionByOffsetRequest(req: GetTransactionByOffsetRequest): string | undefined {
  return offsetProblem('offset', req.offset, true) ?? checkTransactionLookup(req);
}

export function checkTransactionByIdRequest(req: GetTransactionByIdRequest): string | undefined {
  if (!req.updateId) return 'updateId must not be empty';
  return checkTransactionLookup(req);
}

export function checkUpdateByOffset(offset: number): string | undefined {
  return offsetProblem('offset', offset, true);
}

/** `userId` is the `{user-id}` path segment. */
export function checkUpdateUserRequest(userId: string, req: UpdateUserRequest): string | undefined {
  if (!userId) return 'user id must not be empty';
  if (req.user.id !== userId) return 'the user id in the path does not match user.id in the body';
  const paths = req.updateMask.paths ?? [];
  if (paths.length === 0) return 'updateMask must contain at least one path';
  const invalid = paths.find((p) => !USER_UPDATE_PATHS.has(p));
  if (invalid !== undefined)
    return `updateMask path ${JSON.stringify(invalid.slice(0, 80))} is not a User field`;
  return undefined;
}
