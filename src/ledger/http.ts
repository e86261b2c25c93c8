/**
 * JSON-over-HTTP transport shared by the ledger and scan clients: bearer token, per-call timeout and
 * AbortSignal, W3C `traceparent`, response validation with zod, and the mapping of every failure to a
 * `LedgerError` (see errors.ts for the retryable / outcome-unknown rules).
 */
import type { z } from 'zod';
import {
  cancelledError,
  fromCantonError,
  fromHttpStatus,
  fromTransport,
  invalidArgument,
  invalidResponse,
  LedgerError,
  timeoutError,
} from './errors.ts';
import { JsCantonError } from './schemas/errors.ts';
import { type TokenOption, TokenSource } from './token.ts';

export interface CallOptions {
  /** Cancels the call; the error is `CANCELLED` (outcome unknown once sent). */
  signal?: AbortSignal;
  /** Overrides the client's default timeout for this call. */
  timeoutMs?: number;
  /** W3C trace context header passed through to the participant. */
  traceparent?: string;
}

export interface HttpClientOptions {
  baseUrl: string;
  token?: TokenOption;
  /** Default per-call timeout (ms); default 30 000. */
  timeoutMs?: number;
  fetch?: typeof fetch;
  /** Refresh a provider token this long before its `exp` (default 30 s). */
  tokenRefreshBeforeMs?: number;
  /** Larger response bodies are refused (`RESPONSE_TOO_LARGE`) instead of exhausting memory; default 64 MiB. */
  maxResponseBytes?: number;
}

export interface HttpRequest<T extends z.ZodType> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  response: T;
}

/** Maps a non-2xx JSON body that is not a JsCantonError (e.g. scan's `{error}`); undefined = not recognised. */
export type ErrorBodyMapper = (status: number, json: unknown) => LedgerError | undefined;

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;

export function formatIssues(error: z.ZodError, max = 5): string {
  const shown = error.issues
    .slice(0, max)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  const more = error.issues.length > max ? ` (+${error.issues.length - max} more)` : '';
  return shown.join('; ') + more;
}

/** The body as text, or undefined once it grows beyond `max` bytes (the rest is not read). */
async function readBounded(res: Response, max: number): Promise<string | undefined> {
  const declared = Number(res.headers.get('content-length') ?? Number.NaN);
  if (declared > max) {
    await res.body?.cancel();
    return undefined;
  }
  if (!res.body) return '';
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export class HttpTransport {
  private readonly baseUrl: string;
  private readonly tokens: TokenSource;
  private readonly fetchFn: typeof fetch;
  private readonly timeoutMs: number;
  private readonly maxResponseBytes: number;

  constructor(
    opts: HttpClientOptions,
    private readonly mapErrorBody?: ErrorBodyMapper,
  ) {
    let url: URL;
    try {
      url = new URL(opts.baseUrl);
    } catch {
      throw invalidArgument(`invalid base URL: ${String(opts.baseUrl).slice(0, 100)}`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw invalidArgument('base URL must be http(s)');
    this.baseUrl = url.toString().replace(/\/+$/, '');
    this.tokens = new TokenSource(opts.token, { refreshBeforeMs: opts.tokenRefreshBeforeMs });
    this.fetchFn = opts.fetch ?? globalThis.fetch;
    this.timeoutMs = opts.timeoutMs ?? 30_000;
    this.maxResponseBytes = opts.maxResponseBytes ?? 64 * 1024 * 1024;
  }

  async call<T extends z.ZodType>(req: HttpRequest<T>, opts: CallOptions = {}): Promise<z.output<T>> {
    const what = `${req.method} ${req.path}`;
    if (opts.traceparent !== undefined && !TRACEPARENT.test(opts.traceparent)) {
      throw invalidArgument(`${what}: traceparent is not a W3C trace context header`);
    }
    const first = await this.attempt(req, opts, what);
    if (first.ok) return first.value;
    // A 401 with a provider token: the cached token may have been revoked or expired early; retry once.
    if (first.error.status === 401 && this.tokens.refreshable) {
      this.tokens.invalidate();
      const second = await this.attempt(req, opts, what);
      if (second.ok) return second.value;
      throw second.error;
    }
    throw first.error;
  }

  private async attempt<T extends z.ZodType>(
    req: HttpRequest<T>,
    opts: CallOptions,
    what: string,
  ): Promise<{ ok: true; value: z.output<T> } | { ok: false; error: LedgerError }> {
    if (opts.signal?.aborted) throw cancelledError(what, false);
    const token = await this.tokens.get();
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.traceparent) headers.traceparent = opts.traceparent;
    let payload: string | undefined;
    if (req.body !== undefined) {
      headers['content-type'] = 'application/json';
      payload = JSON.stringify(req.body);
    }
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    const timer = new AbortController();
    const handle = setTimeout(() => timer.abort(), timeoutMs);
    const signal = opts.signal ? AbortSignal.any([opts.signal, timer.signal]) : timer.signal;
    const failure = (err: unknown): LedgerError => {
      if (timer.signal.aborted) return timeoutError(what, timeoutMs);
      if (opts.signal?.aborted) return cancelledError(what, true);
      return fromTransport(err, what);
    };
    let status: number;
    let text: string;
    try {
      const init: RequestInit = { method: req.method, headers, signal };
      if (payload !== undefined) init.body = payload;
      const res = await this.fetchFn(this.url(req), init);
      status = res.status;
      const body = await readBounded(res, this.maxResponseBytes);
      if (body === undefined) {
        return {
          ok: false,
          error: new LedgerError({
            status,
            code: 'RESPONSE_TOO_LARGE',
            message: `${what}: response body exceeds ${this.maxResponseBytes} bytes`,
            outcomeUnknown: status < 300,
          }),
        };
      }
      text = body;
    } catch (err) {
      return { ok: false, error: failure(err) };
    } finally {
      clearTimeout(handle);
    }
    if (status >= 200 && status < 300) return this.success(req, status, text, what);
    return { ok: false, error: this.failure(status, text) };
  }

  private success<T extends z.ZodType>(
    req: HttpRequest<T>,
    status: number,
    text: string,
    what: string,
  ): { ok: true; value: z.output<T> } | { ok: false; error: LedgerError } {
    let json: unknown;
    try {
      json = text.trim() === '' ? {} : JSON.parse(text);
    } catch {
      return { ok: false, error: invalidResponse(status, what, 'body is not JSON') };
    }
    const parsed = req.response.safeParse(json);
    if (!parsed.success)
      return { ok: false, error: invalidResponse(status, what, formatIssues(parsed.error)) };
    return { ok: true, value: parsed.data };
  }

  private failure(status: number, text: string): LedgerError {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return fromHttpStatus(status, text);
    }
    const canton = JsCantonError.safeParse(json);
    if (canton.success) return fromCantonError(status, canton.data);
    return this.mapErrorBody?.(status, json) ?? fromHttpStatus(status, text);
  }

  private url(req: HttpRequest<z.ZodType>): string {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (value !== undefined) params.set(key, String(value));
    }
    const qs = params.toString();
    return `${this.baseUrl}${req.path}${qs ? `?${qs}` : ''}`;
  }
}
