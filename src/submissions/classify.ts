// Classifies every answer of executeAndWaitForTransaction (reference/ledger-json-api.md §5, §1.7).
import { LedgerError } from '@quill/canton/ledger';
import type { ErrorInfo } from './record.ts';

export type Classification =
  /** An earlier attempt of this command committed (or is committing): find it, never submit it again. */
  | { kind: 'duplicate'; error: ErrorInfo; completionOffset?: number }
  /** The ledger refused it, in an answer it gives only when nothing was committed: final. */
  | { kind: 'rejected'; error: ErrorInfo }
  /**
   * The ledger refused the request, but with an answer that can follow a commit (executeAndWaitForTransaction
   * reads the transaction only after it committed, and refuses a format it cannot read with): final only once
   * reconciliation has not found the transaction.
   */
  | { kind: 'refused'; error: ErrorInfo }
  /** Definitely not applied, safe to try again. */
  | { kind: 'retryable'; error: ErrorInfo }
  /** May or may not have been applied: retry within the dedup window and reconcile. */
  | { kind: 'ambiguous'; error: ErrorInfo };

function oneLine(text: string, max = 500): string {
  const t = text.replace(/\s+/g, ' ').trim();
  return t.length > max ? `${t.slice(0, max)}…` : t;
}

const RETRY_LATER_CODES = new Set(['SUBMISSION_ALREADY_IN_FLIGHT']);
/**
 * Contention codes (category 2, "retryable") that cannot heal for a prepared transaction: its inputs are
 * archived for good, and its bytes can never change. Retrying would only burn attempts.
 */
const NEVER_HEALS = new Set(['LOCAL_VERDICT_INACTIVE_CONTRACTS', 'CONTRACT_NOT_FOUND']);

/**
 * The participant's rejections of the transaction itself (the failed completion's status): it did not commit.
 * Every other refusal may have been answered for a transaction that did.
 */
const NOT_COMMITTED = new Set([
  'FAILED_TO_EXECUTE_TRANSACTION',
  'INVALID_DEDUPLICATION_PERIOD',
  'NOT_SEQUENCED_TIMEOUT',
  'CONTRACT_NOT_FOUND',
  'DAML_AUTHORIZATION_ERROR',
  'INVALID_PRESCRIBED_SYNCHRONIZER_ID',
]);

function notCommitted(err: LedgerError): boolean {
  return (
    NOT_COMMITTED.has(err.code) || err.code.startsWith('LOCAL_VERDICT_') || err.code.startsWith('MEDIATOR_')
  );
}

/** The ledger client refused the request before sending it (its own schema or INTERFACE.md checks). */
function refusedByClient(err: LedgerError): boolean {
  return err.status === undefined && err.context.source === 'client' && err.code === 'INVALID_ARGUMENT';
}

const CONTRACT_ID = /^[0-9a-f]{2,512}$/i;

/** The contracts a refusal names (its CONTRACT_ID resources: an input already spent, one not found), at most 20. */
function namedContracts(err: LedgerError): string[] {
  const ids = (err.body?.resources ?? []).flatMap(([kind, id]) =>
    kind === 'CONTRACT_ID' && CONTRACT_ID.test(id) ? [id] : [],
  );
  return [...new Set(ids)].slice(0, 20);
}

export function classifyError(err: unknown): Classification {
  // Anything else may have been thrown after the request left: assume it could have been applied.
  if (!(err instanceof LedgerError)) {
    const message = err instanceof Error ? err.message : 'unexpected failure';
    return { kind: 'ambiguous', error: { code: 'UNEXPECTED_ERROR', message: oneLine(String(message)) } };
  }
  const contractIds = namedContracts(err);
  const error: ErrorInfo = {
    code: err.code,
    message: oneLine(err.message || err.code),
    ...(contractIds.length > 0 ? { contractIds } : {}),
  };
  if (err.code === 'DUPLICATE_COMMAND') {
    const ctx = err.context;
    const raw = ctx.completion_offset ?? ctx.completionOffset;
    const n = typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : undefined;
    return n !== undefined && Number.isSafeInteger(n) && n > 0
      ? { kind: 'duplicate', error, completionOffset: n }
      : { kind: 'duplicate', error };
  }
  // Nothing was sent, and the same bytes would be refused again: final, not "unknown".
  if (refusedByClient(err)) return { kind: 'rejected', error };
  // Already in flight: an earlier attempt may still land; same handling as an unknown outcome.
  if (RETRY_LATER_CODES.has(err.code)) return { kind: 'ambiguous', error };
  if (err.outcomeUnknown || err.errorCategory === 3) return { kind: 'ambiguous', error };
  if (NEVER_HEALS.has(err.code)) return { kind: 'rejected', error };
  if (err.retryable) return { kind: 'retryable', error };
  // Our own credentials, refused by the authorizer before anything was submitted (a provider token was already
  // refreshed once): retrying cannot help, so stop at once with a code that says so. A throttle heals: retry.
  if (err.status === 401) return { kind: 'rejected', error: { ...error, code: 'LEDGER_UNAUTHENTICATED' } };
  if (err.status === 403) return { kind: 'rejected', error: { ...error, code: 'LEDGER_PERMISSION_DENIED' } };
  if (err.status === 429) return { kind: 'retryable', error };
  // The ledger says for sure that it did not apply it (a definite answer), and trying again would not help.
  if (err.definiteAnswer === true) return { kind: 'rejected', error };
  if (err.status !== undefined && err.status >= 500 && err.errorCategory === -1) {
    return { kind: 'ambiguous', error };
  }
  if (err.status === undefined) return { kind: 'ambiguous', error };
  return notCommitted(err) ? { kind: 'rejected', error } : { kind: 'refused', error };
}

/** Exponential backoff with full jitter, capped. `attempt` counts from 1. */
export function backoffDelay(attempt: number, baseMs: number, maxMs: number, random = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.min(30, Math.max(0, attempt - 1)));
  return Math.max(1, Math.round(exp / 2 + random() * (exp / 2)));
}

/**
 * Deduplication period for an attempt: it must cover every earlier attempt of the command, so it reaches
 * back to the first attempt's start plus a margin; never shorter than what the caller asked for; capped.
 */
export function deduplicationSeconds(opts: {
  firstAttemptAt?: string;
  now: number;
  marginSeconds: number;
  maxSeconds: number;
  requestedSeconds?: number;
}): number {
  const first = opts.firstAttemptAt ? Date.parse(opts.firstAttemptAt) : opts.now;
  const elapsed = Math.max(0, Math.ceil((opts.now - first) / 1000));
  const want = Math.max(elapsed + opts.marginSeconds, opts.requestedSeconds ?? 0);
  return Math.min(opts.maxSeconds, want);
}
