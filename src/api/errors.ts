// The API's one error shape: every 4xx/5xx body is { error: { code, message } }, and the one table from a
// thrown value to that body and its HTTP status (`toHttpError`), used by onError and by the batch route.
import { z } from '@hono/zod-openapi';
import { AdminApiError } from '@quill/canton/admin';
import { echo, QuillError, walkCauses } from '@quill/canton/errors';
import { isLedgerError, LedgerError } from '@quill/canton/ledger';
import { TransactionError } from '@quill/canton/transaction';
import type { Context } from 'hono';
import { HTTPException } from 'hono/http-exception';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { AuthError } from '../auth/index.ts';
import { EventLogError, WebhookError } from '../events/index.ts';
import { PartyError } from '../parties/index.ts';
import { PolicyRefused } from '../policy/index.ts';
import { StoreError } from '../redis/index.ts';
import { SigningError } from '../signing/index.ts';
import { SubmissionRefused } from '../submissions/index.ts';
import { ERROR_EXAMPLES } from './examples.ts';

export const ErrorBody = z
  .object({
    error: z.object({
      code: z.string().openapi({ example: 'HASH_MISMATCH' }),
      message: z.string().openapi({ example: 'preparedTransactionHash does not match the recomputed hash' }),
    }),
  })
  .openapi('Error');
export type ErrorBody = z.infer<typeof ErrorBody>;

/** An error the API answers with its own status and code. */
export class ApiError extends QuillError {
  override readonly name = 'ApiError';
  /** Sent as `Retry-After` (a 429 or 503 that knows when trying again makes sense). */
  readonly retryAfterSeconds?: number;
  constructor(
    readonly status: ContentfulStatusCode,
    code: string,
    message: string,
    options?: { cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(code, message, options);
    if (options?.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

export interface HttpError {
  status: ContentfulStatusCode;
  body: ErrorBody;
  /** Not an answer the API chose (a 5xx): the caller logs the cause, with the request id. */
  logCause: boolean;
  retryAfterSeconds?: number;
}

/** Longest message an error body carries; each id in it is already cut by `echo`. */
const MESSAGE_MAX = 1000;

// Every message goes through `echo` as well: a caller-supplied value that a message forgot to pass through it
// still comes out escaped and bounded.
const answer = (status: ContentfulStatusCode, code: string, message: string): HttpError => ({
  status,
  body: { error: { code, message: echo(message, MESSAGE_MAX) } },
  logCause: status >= 500,
});

/** A Redis failure anywhere under `err`, whoever wrapped it. */
function storeUnavailable(err: unknown): boolean {
  return walkCauses(err, (e) => e instanceof StoreError && e.code === 'UNAVAILABLE') !== undefined;
}

const PARTY_STATUS = {
  BAD_INPUT: 400,
  KEY_DISABLED: 422,
  MISMATCH: 422,
  NO_SYNCHRONIZER: 422,
  CONFLICT: 409,
  SIGNATURES_NEEDED: 422,
  UNKNOWN_HOST: 400,
  ALLOCATION_PENDING: 504,
  ADMIN_API_UNAVAILABLE: 409,
  NAMESPACE_KEY_OFFLINE: 409,
  TOPOLOGY_CHANGED: 409,
} as const;

/**
 * The one table from a thrown value to the API's answer. Messages are the errors' own one-line messages
 * (they hold no secret); anything not in the table is a bare 500 whose cause only the log sees.
 */
export function toHttpError(err: unknown): HttpError {
  if (err instanceof ApiError && err.retryAfterSeconds !== undefined)
    return { ...answer(err.status, err.code, err.message), retryAfterSeconds: err.retryAfterSeconds };
  if (err instanceof ApiError || err instanceof SubmissionRefused || err instanceof PolicyRefused)
    return answer(err.status, err.code, err.message);
  if (storeUnavailable(err)) return answer(503, 'UNAVAILABLE', 'a dependency is unavailable, try again');
  if (err instanceof AuthError) {
    if (err.code === 'UNAUTHENTICATED') return answer(401, 'UNAUTHENTICATED', err.message);
    if (err.code === 'FORBIDDEN') return answer(403, 'FORBIDDEN', err.message);
  }
  if (err instanceof SigningError) {
    if (err.code === 'BAD_INPUT') return answer(400, 'INVALID_REQUEST', err.message);
    if (err.code === 'NOT_FOUND') return answer(404, 'NOT_FOUND', err.message);
    if (err.code === 'DISABLED') return answer(422, 'KEY_DISABLED', err.message);
    if (err.code === 'UNSUPPORTED') return answer(422, 'UNSUPPORTED_BY_BACKEND', err.message);
    return answer(503, 'KEYSTORE_UNAVAILABLE', `the key store cannot be used: ${err.code}`);
  }
  if (err instanceof PartyError) {
    if (err.code === 'CORRUPT')
      return answer(503, 'PARTY_REGISTRY_UNAVAILABLE', 'the party registry is damaged');
    return answer(PARTY_STATUS[err.code], err.code, err.message);
  }
  if (err instanceof TransactionError) {
    return answer(400, 'INVALID_PREPARED_TRANSACTION', `preparedTransaction: ${err.message}`);
  }
  if (err instanceof AdminApiError) {
    // The participant's admin API (a key change): not reachable, Quill's credentials refused, or the change refused.
    if (err.code === 'UNAVAILABLE' || err.code === 'DEADLINE_EXCEEDED') {
      return answer(503, 'ADMIN_API_UNREACHABLE', `the participant's admin API: ${firstLine(err.message)}`);
    }
    if (err.code === 'UNAUTHENTICATED' || err.code === 'PERMISSION_DENIED') {
      return answer(502, 'ADMIN_API_REFUSED', `the participant's admin API refused Quill: ${err.code}`);
    }
    return answer(422, 'TOPOLOGY_REFUSED', `${err.cantonCode ?? err.code}: ${firstLine(err.message)}`);
  }
  if (err instanceof LedgerError) {
    // A ledger refusal (e.g. while onboarding a party): its code passed on, as a policy failure.
    if (err.status !== undefined && err.status >= 400 && err.status < 500) {
      return answer(err.status === 409 ? 409 : 422, err.code, firstLine(err.message));
    }
    if (err.status === undefined && err.context.source === 'client') {
      return answer(422, err.code, firstLine(err.message));
    }
    if (err.retryable || err.code === 'TRANSPORT_FAILURE') {
      return answer(503, 'UNAVAILABLE', 'a dependency is unavailable, try again');
    }
  }
  if (err instanceof EventLogError || err instanceof WebhookError) {
    if (err.code === 'NOT_FOUND') return answer(404, 'NOT_FOUND', err.message);
    if (err.code === 'INVALID_ID') return answer(400, 'INVALID_EVENT_ID', err.message);
    return answer(503, 'UNAVAILABLE', 'a dependency is unavailable, try again');
  }
  if (err instanceof StoreError && err.code === 'INVALID_CURSOR') {
    return answer(400, 'INVALID_CURSOR', 'cursor is not one this API returned');
  }
  if (err instanceof HTTPException && err.status >= 400 && err.status < 500) {
    // Hono throws a 400 only when a JSON body does not parse (no route takes a form).
    return err.status === 400
      ? answer(400, 'INVALID_JSON', 'the body is not valid JSON')
      : answer(err.status as ContentfulStatusCode, 'INVALID_REQUEST', err.message || 'invalid request');
  }
  return answer(500, 'INTERNAL', 'internal error');
}

/**
 * The ledger's refusal of a read the API made for its caller (GET|PATCH /wallet/v1/ledger/…, the activity feed):
 * not found (or not visible) is a 404, a pruned offset a 404 saying so, a stale user version a 409.
 */
export function ledgerReadError(err: unknown, what: string): never {
  if (isLedgerError(err)) {
    if (err.code === 'CONCURRENT_USER_UPDATE_DETECTED')
      throw new ApiError(
        409,
        'CONFLICT',
        `${what} was changed since it was read (stale resourceVersion): read it again`,
      );
    if (err.code === 'UPDATE_NOT_FOUND' || err.status === 404)
      throw new ApiError(404, 'NOT_FOUND', `${what} not found or not visible to the party`);
    if (err.code === 'PARTICIPANT_PRUNED_DATA_ACCESSED')
      throw new ApiError(404, 'PRUNED', `${what} lies in the pruned part of the ledger`);
    if (
      err.code === 'INVALID_ARGUMENT' ||
      (err.status !== undefined && err.status >= 400 && err.status < 500)
    )
      throw new ApiError(400, 'INVALID_REQUEST', err.message.split('\n')[0] ?? 'invalid request');
    throw new ApiError(503, 'UNAVAILABLE', 'the ledger is unavailable, try again');
  }
  throw err;
}

/** A request that failed its schema: 413 when a value is over its size limit, else 400 naming the first bad field. */
export function invalidRequest(error: {
  issues: readonly { code: string; origin?: string; path: PropertyKey[]; message: string }[];
}): HttpError {
  const tooBig = error.issues.find((i) => i.code === 'too_big' && i.origin === 'string');
  const issue = tooBig ?? error.issues[0];
  const path = issue?.path.map(String).join('.') ?? '';
  const message = issue ? (path ? `${path}: ${issue.message}` : issue.message) : 'invalid request';
  return tooBig ? answer(413, 'TOO_LARGE', message) : answer(400, 'INVALID_REQUEST', message);
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/**
 * What the log gets about a failure: the stack, then each cause (with its code) — for the operator only,
 * never in a response.
 */
export function describeCause(err: unknown): string {
  const lines: string[] = [];
  let current: unknown = err;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    const code = current instanceof QuillError ? ` [${current.code}]` : '';
    const text = current instanceof Error ? (current.stack ?? current.message) : String(current);
    lines.push(depth === 0 ? `${text}${code}` : `caused by${code}: ${text}`);
    current = current instanceof Error ? current.cause : undefined;
  }
  return lines.join('\n');
}

export function errorJson(c: Context, status: ContentfulStatusCode, code: string, message: string) {
  return c.json({ error: { code, message: echo(message, MESSAGE_MAX) } } satisfies ErrorBody, status);
}

const ERROR_TEXT = {
  400: 'Malformed request: the body, a parameter or the prepared transaction is invalid',
  401: 'Missing or invalid bearer token',
  403: 'The token lacks the role or party scope for this',
  404: 'Not found',
  409: 'Conflicts with an existing resource',
  410: 'Gone: the events after this id were removed by retention',
  413: 'Too large: the body, a field or a batch is over its limit',
  422: 'Well-formed but refused by policy (hash mismatch, unknown party, disabled key, expired, …)',
  429: "Over the token's accept rate (ACCEPT_RATE_LIMIT): retry after Retry-After seconds",
  502: 'A token registry answered badly or not at all (REGISTRY_UNAVAILABLE)',
  503: 'A dependency (Redis, the ledger) is unavailable',
  504: 'Still in progress when the wait ran out (a party not yet hosted everywhere, a change not yet effective): the same request again resumes',
} as const;
type ErrorStatus = keyof typeof ERROR_TEXT;

const content = (s: ErrorStatus) => ({
  'application/json': { schema: ErrorBody, example: { error: ERROR_EXAMPLES[s] } },
});
const RETRY_AFTER = {
  'Retry-After': { description: 'seconds to wait before retrying', schema: { type: 'integer' as const } },
};

/**
 * OpenAPI response entries for the errors a route may answer with, keyed by each status: the route's type (and
 * so the console's client) knows exactly which statuses carry an ErrorBody.
 */
export function errorResponses<const S extends readonly ErrorStatus[]>(...statuses: S) {
  return Object.fromEntries(
    statuses.map((s) => [
      s,
      { description: ERROR_TEXT[s], content: content(s), ...(s === 429 ? { headers: RETRY_AFTER } : {}) },
    ]),
  ) as { [K in S[number]]: { description: string; content: ReturnType<typeof content> } };
}
