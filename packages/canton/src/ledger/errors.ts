/**
 * `LedgerError`: the one error type of the ledger (and scan) clients. Every failure — a JsCantonError body,
 * the participant's text/plain 400/503 bodies, an unreadable response, a transport failure, a client-side
 * check — becomes one, so callers decide on `retryable` / `outcomeUnknown` without parsing messages.
 *
 * Choices (the reference leaves them open):
 * - `retryable`: categories 1, 2, 3, 12; text 503/502/504/429; transport failures and timeouts. A 413 is
 *   never retryable (the same request overflows again: use a smaller `limit`).
 * - `outcomeUnknown`: the request may have reached the server and had an effect — category 3 (deadline,
 *   state unknown) and 4 (internal), an uncategorised 5xx, any text 5xx (the JSON server's 20 s timeout keeps
 *   the command running), a reset/timeout/abort after the request was sent, and a 2xx whose body we cannot
 *   read. Connection refused / DNS failures happened before sending: `outcomeUnknown = false`.
 * - Client-side checks: `code = INVALID_ARGUMENT`, `status` undefined, category 8, `context.source = client`.
 */
import { QuillError } from '../errors.ts';
import type { JsCantonError } from './schemas/errors.ts';

export interface LedgerErrorInit {
  status?: number;
  code: string;
  message: string;
  errorCategory?: number;
  retryable?: boolean;
  definiteAnswer?: boolean;
  outcomeUnknown?: boolean;
  context?: Record<string, string>;
  correlationId?: string;
  body?: JsCantonError;
  cause?: unknown;
}

export class LedgerError extends QuillError {
  override readonly name = 'LedgerError';
  /** HTTP status; undefined for transport failures and client-side checks. */
  readonly status?: number;
  /** Canton error category (1–14); -1 when unknown. */
  readonly errorCategory: number;
  readonly retryable: boolean;
  readonly definiteAnswer?: boolean;
  /** The request may have reached the server and had an effect. */
  readonly outcomeUnknown: boolean;
  readonly context: Record<string, string>;
  readonly correlationId?: string;
  readonly body?: JsCantonError;

  constructor(init: LedgerErrorInit) {
    // code: the JsCantonError code, or TRANSPORT_FAILURE / TIMEOUT / CANCELLED / HTTP_<status> / INVALID_RESPONSE / …
    super(init.code, init.message, init.cause === undefined ? undefined : { cause: init.cause });
    if (init.status !== undefined) this.status = init.status;
    this.errorCategory = init.errorCategory ?? -1;
    this.retryable = init.retryable ?? false;
    if (init.definiteAnswer !== undefined) this.definiteAnswer = init.definiteAnswer;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
    this.context = init.context ?? {};
    if (init.correlationId !== undefined) this.correlationId = init.correlationId;
    if (init.body !== undefined) this.body = init.body;
  }

  /** A JSON-safe view (no stack, no cause) for logs and API errors. */
  toJSON(): Record<string, unknown> {
    return {
      name: this.name,
      message: this.message,
      status: this.status,
      code: this.code,
      errorCategory: this.errorCategory,
      retryable: this.retryable,
      definiteAnswer: this.definiteAnswer,
      outcomeUnknown: this.outcomeUnknown,
      context: this.context,
      correlationId: this.correlationId,
    };
  }
}

export function isLedgerError(err: unknown): err is LedgerError {
  return err instanceof LedgerError;
}

const RETRYABLE_CATEGORIES = new Set([1, 2, 3, 12]);
const UNKNOWN_OUTCOME_CATEGORIES = new Set([3, 4]);

/** One line, bounded: bodies are remote data and end up in logs. */
export function oneLine(text: string, max = 300): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

function parseBool(text: string | undefined): boolean | undefined {
  if (text === 'true') return true;
  if (text === 'false') return false;
  return undefined;
}

/** A JsCantonError body answered with `status`. */
export function fromCantonError(status: number, body: JsCantonError): LedgerError {
  const category = body.errorCategory;
  const definiteAnswer = body.definiteAnswer ?? parseBool(body.context.definite_answer);
  const init: LedgerErrorInit = {
    status,
    code: body.code,
    message: `${body.code}: ${oneLine(body.cause, 1000)}`,
    errorCategory: category,
    retryable: status !== 413 && RETRYABLE_CATEGORIES.has(category),
    outcomeUnknown: UNKNOWN_OUTCOME_CATEGORIES.has(category) || (category === -1 && status >= 500),
    context: { ...body.context },
    body,
  };
  if (definiteAnswer !== undefined) init.definiteAnswer = definiteAnswer;
  if (body.correlationId) init.correlationId = body.correlationId;
  return new LedgerError(init);
}

/** A non-JSON (or non-JsCantonError) error body, e.g. the participant's text/plain 400 and 503. */
export function fromHttpStatus(status: number, text: string): LedgerError {
  const transient = status === 429 || status === 502 || status === 503 || status === 504;
  const detail = oneLine(text);
  return new LedgerError({
    status,
    code: `HTTP_${status}`,
    message: detail ? `HTTP ${status}: ${detail}` : `HTTP ${status}`,
    retryable: transient,
    // 400 text/plain is a body decode failure: nothing happened. A text 5xx may hide a running command.
    outcomeUnknown: status >= 500,
    ...(status >= 400 && status < 500 ? { definiteAnswer: true } : {}),
  });
}

/** A 2xx whose body is not JSON or fails validation. */
export function invalidResponse(status: number, what: string, issues: string): LedgerError {
  return new LedgerError({
    status,
    code: 'INVALID_RESPONSE',
    message: `${what}: the participant's ${status} response is not valid: ${oneLine(issues, 500)}`,
    // The call succeeded on the server; we just cannot read the answer.
    outcomeUnknown: true,
  });
}

/** A client-side check refused the request before sending. */
export function invalidArgument(message: string): LedgerError {
  return new LedgerError({
    code: 'INVALID_ARGUMENT',
    message,
    errorCategory: 8,
    definiteAnswer: true,
    context: { source: 'client' },
  });
}

const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

function causeCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** A fetch failure: refused/DNS = not sent; anything else may have reached the server. */
export function fromTransport(err: unknown, what: string): LedgerError {
  const code = causeCode(err) ?? 'UNKNOWN';
  const notSent = NOT_SENT_CODES.has(code);
  return new LedgerError({
    code: 'TRANSPORT_FAILURE',
    message: `${what}: ${notSent ? 'could not connect' : 'connection failed'} (${code})`,
    retryable: true,
    outcomeUnknown: !notSent,
    context: { transport: code },
    cause: err,
  });
}

export function timeoutError(what: string, timeoutMs: number): LedgerError {
  return new LedgerError({
    code: 'TIMEOUT',
    message: `${what}: no answer within ${timeoutMs} ms`,
    retryable: true,
    outcomeUnknown: true,
  });
}

export function cancelledError(what: string, sent: boolean): LedgerError {
  return new LedgerError({
    code: 'CANCELLED',
    message: `${what}: cancelled by the caller`,
    outcomeUnknown: sent,
  });
}
