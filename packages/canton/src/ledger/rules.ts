/**
 * INTERFACE.md's request rules beyond the schemas, one function per rule, referenced by the endpoint
 * declarations: the client refuses a violating request before sending it, and the sandbox answers it with the
 * participant's error for that violation (`code` names it; the sandbox owns the participant's wording).
 */

import { echo } from '../errors.ts';
import type { EventFormat, TransactionFormat, UpdateFormat } from './schemas/formats.ts';
import type { ListVettedPackagesRequest } from './schemas/packages.ts';
import type { GetActiveContractsRequest } from './schemas/state.ts';
import type {
  GetEventsByContractIdRequest,
  GetTransactionByIdRequest,
  GetTransactionByOffsetRequest,
  GetUpdateByIdRequest,
  GetUpdateByOffsetRequest,
  GetUpdatesRequest,
} from './schemas/updates.ts';
import type { CreateUserRequest, UpdateUserRequest, User } from './schemas/users.ts';

export type Violation =
  | { code: 'INVALID_ARGUMENT'; reason: string }
  | { code: 'MISSING_FIELD'; field: string }
  | { code: 'INVALID_FIELD'; field: string; reason: string }
  | { code: 'DESCENDING_ORDER_MISSING_END' }
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
    case 'INVALID_FIELD':
      return `${v.field}: ${v.reason}`;
    case 'DESCENDING_ORDER_MISSING_END':
      return 'descending order requires endInclusive';
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
  // PackageMetadataFilter.fromProto: every id a Ref.PackageId.
  for (const id of req.packageMetadataFilter?.packageIds ?? []) {
    const problem = damlLfStringProblem(id, 'Daml-LF Package ID', '-_ ', 64);
    if (problem)
      return {
        code: 'PROTO_DESERIALIZATION_FAILURE',
        reason: `Unable to convert field package_ids: ${problem}`,
      };
  }
  return req.topologyStateFilter ? topologyStateFilterProblem(req.topologyStateFilter) : undefined;
}

/** A Daml-LF party string (Ref.Party: letters, digits, `:-_ `, 1–255 characters) without the `::` delimiter. */
function uidPartProblem(s: string): string | undefined {
  if (s.length === 0) return 'Daml-LF Party is empty';
  if (s.length > 255) return 'Daml-LF Party is too long (max: 255)';
  for (const ch of s) {
    if (!/^[A-Za-z0-9:\-_ ]$/.test(ch))
      return `non expected character 0x${(ch.codePointAt(0) ?? 0).toString(16)} in Daml-LF Party "${s}"`;
  }
  return s.includes('::') ? 'String contains reserved delimiter `::`.' : undefined;
}

/**
 * Why `s` is not a unique identifier `identifier::namespace`, in the words of `UniqueIdentifier.fromProtoPrimitive_`
 * (topology/Identifier.scala): split at the first `::`, the identifier a String185 and the namespace a fingerprint
 * (String68), each a Daml-LF party string without the delimiter.
 */
export function uniqueIdentifierProblem(s: string): string | undefined {
  const pos = s.indexOf('::');
  if (pos === 0) return `Invalid unique identifier \`${s}\` with empty identifier.`;
  if (s === '') return 'Empty string is not a valid unique identifier.';
  if (pos < 0) return `Invalid unique identifier \`${s}\` with missing namespace.`;
  const id = s.slice(0, pos);
  const fp = s.slice(pos + 2);
  const idProblem =
    uidPartProblem(id) ??
    (id.length > 185
      ? `The given string has a maximum length of 185 but a string of length ${id.length}`
      : '');
  if (idProblem) return `Identifier decoding of \`${s.slice(0, 200)}\` failed with: ${idProblem}`;
  const fpProblem =
    uidPartProblem(fp) ??
    (fp.length > 68
      ? `The given Fingerprint has a maximum length of 68 but a Fingerprint of length ${fp.length}`
      : '');
  if (fpProblem) return `Fingerprint decoding of \`${s.slice(0, 200)}\` failed with: ${fpProblem}`;
  return undefined;
}

/**
 * `TopologyStateFilter.fromProto` (ledger-api-core `ledger/api/package.scala`): every synchronizer id, then every
 * participant id, must parse as a UniqueIdentifier, else PROTO_DESERIALIZATION_FAILURE (a ValueConversionError).
 */
function topologyStateFilterProblem(f: {
  participantIds?: string[] | null;
  synchronizerIds?: string[] | null;
}): Violation | undefined {
  for (const [field, ids] of [
    ['synchronizer_ids', f.synchronizerIds],
    ['participant_ids', f.participantIds],
  ] as const) {
    for (const id of ids ?? []) {
      const problem = uniqueIdentifierProblem(id);
      if (problem)
        return {
          code: 'PROTO_DESERIALIZATION_FAILURE',
          reason: `Unable to convert field ${field}: ${problem}`,
        };
    }
  }
  return undefined;
}

/**
 * Why `s` is not a Daml-LF string of `description` (letters, digits and `extra`, at most `max` characters),
 * in the participant's words (IdString.scala), or undefined when it is one.
 */
function damlLfStringProblem(s: string, description: string, extra: string, max: number): string | undefined {
  if (s.length === 0) return `${description} is empty`;
  if (s.length > max) return `${description} is too long (max: ${max})`;
  for (const ch of s) {
    const c = ch.codePointAt(0) ?? 0;
    const ok = c <= 0x7f && (/[A-Za-z0-9]/.test(ch) || extra.includes(ch));
    if (!ok) return `non expected character 0x${c.toString(16)} in ${description} "${s}"`;
  }
  return undefined;
}

/** A party id as the participant's `Ref.Party.fromString` accepts it, or why not. */
function partyIdProblem(party: string): string | undefined {
  return damlLfStringProblem(party, 'Daml-LF Party', ':-_ ', 255);
}

/** A submission id as `Ref.SubmissionId` (a ledger string) accepts it, or why not. */
export function ledgerStringProblem(s: string): string | undefined {
  return damlLfStringProblem(s, 'Daml-LF Ledger String', '._:-#/ ', 255);
}

/** An update id is the hex of a multihash (SHA-256: `1220` and 32 bytes), as `UpdateId.fromLedgerString`. */
function updateIdProblem(id: string): string | undefined {
  const lf = ledgerStringProblem(id);
  if (lf) return lf;
  if (!/^([0-9a-fA-F]{2})+$/.test(id)) return `Failed to parse hex string: ${id}`;
  if (!/^1220/i.test(id) || id.length !== 68) return `Invalid hash algorithm or length in ${id}`;
  return undefined;
}

/**
 * The participant's FormatValidator on an event format: some filter, valid party ids, and template and interface
 * filters that name a package by name (validateNameTypeConRef).
 */
function checkEventFormat(
  f: Pick<EventFormat, 'filtersByParty' | 'filtersForAnyParty'>,
): Violation | undefined {
  const parties = Object.keys(f.filtersByParty ?? {});
  const anyParty = f.filtersForAnyParty != null;
  if (parties.length === 0 && !anyParty)
    return invalid('filtersByParty and filtersForAnyParty cannot be empty simultaneously');
  for (const party of parties) {
    const problem = partyIdProblem(party);
    if (problem) return invalid(problem);
  }
  for (const ref of typeRefs(f)) {
    const problem = nameTypeConRefProblem(ref.id);
    if (problem) return problem;
  }
  return undefined;
}

/** The template and interface ids an event format's filters name. */
export function typeRefs(
  f: Pick<EventFormat, 'filtersByParty' | 'filtersForAnyParty'>,
): { kind: 'template' | 'interface'; id: string }[] {
  const out: { kind: 'template' | 'interface'; id: string }[] = [];
  for (const filters of [...Object.values(f.filtersByParty ?? {}), f.filtersForAnyParty]) {
    for (const c of filters?.cumulative ?? []) {
      const id = c.identifierFilter;
      if (id && 'TemplateFilter' in id)
        out.push({ kind: 'template', id: id.TemplateFilter.value.templateId });
      if (id && 'InterfaceFilter' in id)
        out.push({ kind: 'interface', id: id.InterfaceFilter.value.interfaceId });
    }
  }
  return out;
}

/**
 * `#<package name>:<module>:<entity>`, or why not: the participant resolves filters by package name only, and
 * refuses the package-id form, the form its own events carry (FormatValidator.validateNameTypeConRef).
 */
function nameTypeConRefProblem(id: string): Violation | undefined {
  const parts = id.split(':');
  if (parts.length !== 3 || parts.some((p) => p === '' || p === '#')) {
    return {
      code: 'INVALID_FIELD',
      field: 'templateId',
      reason: `Expected <package>:<moduleName>:<entityName>, got ${echo(id)}`,
    };
  }
  const pkg = parts[0] as string;
  if (!pkg.startsWith('#')) {
    return {
      code: 'INVALID_FIELD',
      field: 'packageId',
      reason: `Received an identifier with package ID ${echo(pkg)}, but expected a package name.`,
    };
  }
  return undefined;
}

export function checkTransactionFormat(f: TransactionFormat): Violation | undefined {
  if (f.transactionShape === 'TRANSACTION_SHAPE_UNSPECIFIED')
    return { code: 'MISSING_FIELD', field: 'transaction_shape' };
  if (f.transactionShape === 'UNRECOGNIZED')
    return invalid('transaction_shape is defined with invalid value -1');
  return checkEventFormat(f.eventFormat);
}

export function checkUpdateFormat(u: UpdateFormat | null | undefined): Violation | undefined {
  if (!u) return { code: 'MISSING_FIELD', field: 'update_format' };
  // An empty format is valid (FormatValidator.validate(UpdateFormat) has no "at least one of" rule): it selects
  // nothing, so streams answer [] and lookups 404 (IndexServiceImpl.memoizedInternalUpdateFormat → None).
  if (u.includeTransactions) {
    const t = checkTransactionFormat(u.includeTransactions);
    if (t) return t;
  }
  if (u.includeReassignments) {
    const r = checkEventFormat(u.includeReassignments);
    if (r) return r;
  }
  for (const party of u.includeTopologyEvents?.includeParticipantAuthorizationEvents?.parties ?? []) {
    const problem = partyIdProblem(party);
    if (problem) return { code: 'INVALID_FIELD', field: 'parties', reason: problem };
  }
  return undefined;
}

export function checkGetUpdatesRequest(req: GetUpdatesRequest): Violation | undefined {
  const begin = negative('begin_exclusive', req.beginExclusive);
  if (begin) return begin;
  if (req.descendingOrder && req.endInclusive == null) return { code: 'DESCENDING_ORDER_MISSING_END' };
  if (req.endInclusive != null) {
    const end = positive('end_inclusive', req.endInclusive);
    if (end) return end;
  }
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
  const format = req.updateFormat ? checkUpdateFormat(req.updateFormat) : checkEventFormat(req.filter!);
  if (format) return format;
  if (req.endInclusive != null && req.endInclusive < req.beginExclusive) {
    return {
      code: 'OFFSET_OUT_OF_RANGE',
      reason: `Begin offset ${req.beginExclusive} is after end offset ${req.endInclusive}`,
    };
  }
  return undefined;
}

/**
 * `/v2/updates/trees` (deprecated): INTERFACE.md 4.2 — the legacy `filter` with empty template filters (wildcards
 * only), `updateFormat` unset; then the rules of `/v2/updates`.
 */
export function checkGetUpdateTreesRequest(req: GetUpdatesRequest): Violation | undefined {
  if (req.updateFormat)
    return invalid('update_format must be unset for tree requests: use filter and verbose');
  const filters = [...Object.values(req.filter?.filtersByParty ?? {}), req.filter?.filtersForAnyParty];
  for (const f of filters) {
    for (const c of f?.cumulative ?? []) {
      const id = c.identifierFilter;
      if (id && ('TemplateFilter' in id || 'InterfaceFilter' in id))
        return invalid('tree requests take wildcard filters only: the template filters must be empty');
    }
  }
  return checkGetUpdatesRequest(req);
}

/** The tree lookups: a positive offset or a well-formed update id, and the requesting parties. */
export function checkTreeLookup(
  key: { offset: string } | { updateId: string },
  parties: readonly string[] | null | undefined,
): Violation | undefined {
  if ('offset' in key) {
    if (!/^-?\d{1,19}$/.test(key.offset))
      return invalid(`offset must be an integer, got ${key.offset.slice(0, 40)}`);
    const offset = positive('offset', Number(key.offset));
    if (offset) return offset;
  } else {
    const id = checkUpdateId(key.updateId);
    if (id) return id;
  }
  return checkEventFormat({ filtersByParty: Object.fromEntries((parties ?? []).map((p) => [p, {}])) });
}

/**
 * Exactly one of `transactionFormat` and (legacy, non-empty) `requestingParties`: the JSON layer's check, made
 * before the participant validates the request it builds.
 */
function checkLegacyLookup(
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

/** The format a lookup asks for, as FormatValidator checks the one the JSON layer builds. */
function checkLookupFormat(
  req: GetTransactionByOffsetRequest | GetTransactionByIdRequest,
): Violation | undefined {
  if (req.transactionFormat) return checkTransactionFormat(req.transactionFormat);
  for (const party of req.requestingParties ?? []) {
    const problem = partyIdProblem(party);
    if (problem) return invalid(problem);
  }
  return undefined;
}

/** Present and well-formed (UpdateServiceRequestValidator.validateUpdateById). */
function checkUpdateId(updateId: string): Violation | undefined {
  if (!updateId) return { code: 'MISSING_FIELD', field: 'update_id' };
  const problem = updateIdProblem(updateId);
  return problem ? invalid(problem) : undefined;
}

export function checkTransactionByOffsetRequest(req: GetTransactionByOffsetRequest): Violation | undefined {
  return checkLegacyLookup(req) ?? positive('offset', req.offset) ?? checkLookupFormat(req);
}

export function checkTransactionByIdRequest(req: GetTransactionByIdRequest): Violation | undefined {
  return checkLegacyLookup(req) ?? checkUpdateId(req.updateId) ?? checkLookupFormat(req);
}

export function checkUpdateByOffsetRequest(req: GetUpdateByOffsetRequest): Violation | undefined {
  return positive('offset', req.offset) ?? checkUpdateFormat(req.updateFormat);
}

export function checkUpdateByIdRequest(req: GetUpdateByIdRequest): Violation | undefined {
  return checkUpdateId(req.updateId) ?? checkUpdateFormat(req.updateFormat);
}

const BOTH_ACS =
  'Please use either backwards compatible arguments (filter and verbose) or event_format, but not both.';

/**
 * `POST /v2/state/active-contracts`: the JSON layer's choice between `eventFormat` and the legacy `filter`/`verbose`
 * (JsStateService), then StateServiceRequestValidator: a non-negative `active_at_offset` and the event format.
 */
export function checkGetActiveContractsRequest(req: GetActiveContractsRequest): Violation | undefined {
  if (req.eventFormat && req.filter) return invalid(`Both event_format and filter are set. ${BOTH_ACS}`);
  if (req.eventFormat && req.verbose === true)
    return invalid(`Both event_format and verbose are set. ${BOTH_ACS}`);
  if (!req.eventFormat && !req.filter)
    return invalid(
      'Either filter/verbose or event_format is required. Please use either backwards compatible arguments (filter and verbose) or event_format.',
    );
  const format = checkEventFormat(req.eventFormat ?? req.filter!);
  if (format) return format;
  return negative('active_at_offset', req.activeAtOffset);
}

/** `POST /v2/events/events-by-contract-id`: the event format as FormatValidator checks it. */
export function checkEventsByContractIdRequest(req: GetEventsByContractIdRequest): Violation | undefined {
  if (!req.contractId) return { code: 'MISSING_FIELD', field: 'contract_id' };
  return checkEventFormat(req.eventFormat);
}

/** Annotation keys as Kubernetes has them (ResourceAnnotationValidator): `[prefix/]name`. */
const KEY_NAME = /^([a-zA-Z0-9]+[a-zA-Z0-9._-]*)?[a-zA-Z0-9]+$/;
const DNS_LABEL = '([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+';
const KEY_PREFIX = new RegExp(`^(${DNS_LABEL}[.])*${DNS_LABEL}$`);
const MAX_ANNOTATIONS_BYTES = 256 * 1024;

const shorten = (s: string) => (s.length > 53 ? `${s.slice(0, 50)}...` : s);

/** Why an annotation map is refused, in the participant's words, or undefined. */
function annotationsProblem(annotations: Record<string, string>, field: string): string | undefined {
  let size = 0;
  for (const [k, v] of Object.entries(annotations))
    if (v !== '') size += Buffer.byteLength(k) + Buffer.byteLength(v);
  if (size > MAX_ANNOTATIONS_BYTES)
    return `annotations from field '${field}' are larger than the limit of 256kb`;
  for (const key of Object.keys(annotations)) {
    const parts = key.split('/');
    if (parts.length > 2) return `Key '${shorten(key)}' contains more than one forward slash ('/') character`;
    const [prefix, name] = parts.length === 2 ? parts : [undefined, parts[0]!];
    if (prefix !== undefined) {
      if (prefix.length > 253)
        return `Key prefix segment '${shorten(prefix)}' exceeds maximum length of 253 characters`;
      if (!KEY_PREFIX.test(prefix)) return `Key prefix segment '${shorten(prefix)}' has invalid syntax`;
    }
    if (name!.length > 63)
      return `Key name segment '${shorten(name!)}' exceeds maximum length of 63 characters`;
    if (!KEY_NAME.test(name!)) return `Key name segment '${shorten(name!)}' has invalid syntax`;
  }
  return undefined;
}

/** The user fields UserManagementService validates: primary party, resource version, annotation keys. */
function checkUserFields(user: User): Violation | undefined {
  if (user.primaryParty) {
    const problem = partyIdProblem(user.primaryParty);
    if (problem) return invalid(problem);
  }
  const version = user.metadata?.resourceVersion;
  if (version && !/^[+-]?\d{1,19}$/.test(version))
    return {
      code: 'INVALID_FIELD',
      field: 'user.metadata.resource_version',
      reason: 'Invalid resource version number',
    };
  const annotations = annotationsProblem(user.metadata?.annotations ?? {}, 'user.metadata.annotations');
  return annotations ? invalid(annotations) : undefined;
}

export function checkCreateUserRequest(req: CreateUserRequest): Violation | undefined {
  return checkUserFields(req.user);
}

/** Grant and revoke name the user in the path; a user id in the body must be the same one. */
export function checkUserRightsRequest(userId: string, req: { userId: string }): Violation | undefined {
  if (req.userId !== '' && req.userId !== userId) return invalid(`${userId} does not match userId in body`);
  return undefined;
}

/**
 * `userId` is the `{user-id}` path segment. Each path names a field of User, split on `.` as the participant's
 * `UpdatePath.parseSingle` does (there is no `!replace` / `!merge` suffix: annotations are always merged), and
 * each field may be named once.
 */
export function checkUpdateUserRequest(userId: string, req: UpdateUserRequest): Violation | undefined {
  if (!req.user) return { code: 'MISSING_FIELD', field: 'user' };
  if (!req.updateMask) return { code: 'MISSING_FIELD', field: 'update_mask' };
  if (req.user.id !== userId) return invalid(`${userId} does not match user in body`);
  const fields = checkUserFields(req.user);
  if (fields) return fields;
  const refuse = (reason: string): Violation => ({ code: 'INVALID_USER_UPDATE_REQUEST', userId, reason });
  const paths = req.updateMask.paths ?? [];
  if (paths.length === 0) return refuse('The update mask contains no entries');
  const seen = new Set<string>();
  for (const path of paths) {
    if (!USER_UPDATE_PATHS.has(path)) return refuse(`The update path: '${path}' points to an unknown field.`);
    if (seen.has(path)) return refuse(`The update path: '${path}' is duplicated.`);
    seen.add(path);
  }
  return undefined;
}
