/**
 * INTERFACE.md's request rules beyond the schemas, one function per rule, referenced by the endpoint
 * declarations: the client refuses a violating request before sending it, and the sandbox answers it with the
 * participant's error for that violation (`code` names it; the sandbox owns the participant's wording).
 */

import type { UpdateFormat } from './schemas/formats.ts';
import type { ListVettedPackagesRequest } from './schemas/packages.ts';
import type {
  GetTransactionByIdRequest,
  GetTransactionByOffsetRequest,
  GetUpdateByIdRequest,
  GetUpdateByOffsetRequest,
  GetUpdatesRequest,
} from './schemas/updates.ts';
import type { UpdateUserRequest } from './schemas/users.ts';

export type Violation =
  | { code: 'INVALID_ARGUMENT'; reason: string }
  | { code: 'MISSING_FIELD'; field: string }
  | { code: 'NEGATIVE_OFFSET' | 'NON_POSITIVE_OFFSET'; field: string; offset: number }
  | { code: 'OFFSET_OUT_OF_RANGE' | 'PROTO_DESERIALIZATION_FAILURE'; reason: string }
  | { code: 'INVALID_USER_UPDATE_REQUEST'; userId: string; reason: string };

/** One line for a client-side refusal. */
export function describeViolation(v: Violation): string {
  switch (v.code) {
    case 'MISSING_FIELD':
      return `${v.field} is required`;
    case 'NEGATIVE_OFFSET':
      return `${v.field} must not be negative (${v.offset})`;
    case 'NON_POSITIVE_OFFSET':
      return `${v.field} must be positive (${v.offset})`;
    default:
      return v.reason;
  }
}

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

const invalid = (reason: string): Violation => ({ code: 'INVALID_ARGUMENT', reason });

const BOTH_UPDATES =
  'Please use either backwards compatible arguments (filter and verbose) or update_format, but not both.';

function negative(field: string, offset: number | null | undefined): Violation | undefined {
  return offset != null && offset < 0 ? { code: 'NEGATIVE_OFFSET', field, offset } : undefined;
}

function positive(field: string, offset: number): Violation | undefined {
  return offset <= 0 ? { code: 'NON_POSITIVE_OFFSET', field, offset } : undefined;
}

export function checkListVettedPackagesRequest(req: ListVettedPackagesRequest): Violation | undefined {
  if (req.pageSize != null && req.pageSize < 0)
    return { code: 'PROTO_DESERIALIZATION_FAILURE', reason: 'Page size must not be negative' };
  return undefined;
}

export function checkUpdateFormat(u: UpdateFormat): Violation | undefined {
  if (u.includeTransactions || u.includeReassignments || u.includeTopologyEvents) return undefined;
  return invalid(
    'The update format must specify at least one of include_transactions, include_reassignments or include_topology_events',
  );
}

export function checkGetUpdatesRequest(req: GetUpdatesRequest): Violation | undefined {
  const begin = negative('begin_exclusive', req.beginExclusive);
  if (begin) return begin;
  const end = negative('end_inclusive', req.endInclusive);
  if (end) return end;
  // `verbose` is a proto3 bool: false is indistinguishable from unset, so only `true` counts as legacy use
  // (the official SDK sends `verbose: false` next to `updateFormat`).
  if (req.updateFormat && req.filter)
    return invalid(`Both update_format and filter are set. ${BOTH_UPDATES}`);
  if (req.updateFormat && req.verbose === true)
    return invalid(`Both update_format and verbose are set. ${BOTH_UPDATES}`);
  if (!req.updateFormat && !req.filter) {
    return invalid(
      'Either filter/verbose or update_format is required. Please use either backwards compatible arguments (filter and verbose) or update_format.',
    );
  }
  if (req.updateFormat) {
    const format = checkUpdateFormat(req.updateFormat);
    if (format) return format;
  }
  if (req.descendingOrder && req.endInclusive == null)
    return invalid('descending_order requires end_inclusive to be set');
  if (req.endInclusive != null && req.endInclusive < req.beginExclusive) {
    return {
      code: 'OFFSET_OUT_OF_RANGE',
      reason: `Begin offset ${req.beginExclusive} is after end offset ${req.endInclusive}`,
    };
  }
  return undefined;
}

/** Exactly one of `transactionFormat` and (legacy, non-empty) `requestingParties`. */
function checkTransactionLookup(
  req: GetTransactionByOffsetRequest | GetTransactionByIdRequest,
): Violation | undefined {
  const legacy = (req.requestingParties ?? []).length > 0;
  if (legacy && req.transactionFormat) {
    return invalid(
      'Both transaction_format and requesting_parties are set. Please use either backwards compatible arguments (requesting_parties) or transaction_format but not both.',
    );
  }
  if (!legacy && !req.transactionFormat) {
    return invalid(
      'Either transaction_format or requesting_parties is required. Please use either backwards compatible arguments (requesting_parties) or transaction_format.',
    );
  }
  return undefined;
}

export function checkTransactionByOffsetRequest(req: GetTransactionByOffsetRequest): Violation | undefined {
  return checkTransactionLookup(req) ?? positive('offset', req.offset);
}

export function checkTransactionByIdRequest(req: GetTransactionByIdRequest): Violation | undefined {
  if (!req.updateId) return { code: 'MISSING_FIELD', field: 'update_id' };
  return checkTransactionLookup(req);
}

export function checkUpdateByOffsetRequest(req: GetUpdateByOffsetRequest): Violation | undefined {
  return checkUpdateFormat(req.updateFormat) ?? positive('offset', req.offset);
}

export function checkUpdateByIdRequest(req: GetUpdateByIdRequest): Violation | undefined {
  if (!req.updateId) return { code: 'MISSING_FIELD', field: 'update_id' };
  return checkUpdateFormat(req.updateFormat);
}

/** Grant and revoke name the user in the path; a user id in the body must be the same one. */
export function checkUserRightsRequest(userId: string, req: { userId: string }): Violation | undefined {
  if (req.userId !== '' && req.userId !== userId) return invalid(`${userId} does not match userId in body`);
  return undefined;
}

/**
 * `userId` is the `{user-id}` path segment. Paths may end in `!replace` / `!merge` (how annotations are
 * applied); each field may be named once.
 */
export function checkUpdateUserRequest(userId: string, req: UpdateUserRequest): Violation | undefined {
  if (req.user.id !== userId) return invalid(`${userId} does not match user in body`);
  const refuse = (reason: string): Violation => ({ code: 'INVALID_USER_UPDATE_REQUEST', userId, reason });
  const paths = req.updateMask.paths ?? [];
  if (paths.length === 0) return refuse('The update mask contains no entries');
  const seen = new Set<string>();
  for (const raw of paths) {
    const path = raw.replace(/!(replace|merge)$/, '');
    if (!USER_UPDATE_PATHS.has(path)) return refuse(`The update path: '${raw}' points to an unknown field.`);
    if (seen.has(path)) return refuse(`The update path: '${raw}' is duplicated.`);
    seen.add(path);
  }
  return undefined;
}
