/**
 * JSON-over-HTTP transport shared by the ledger and scan clients: bearer token, per-call timeout and
 * AbortSignal, W3C `traceparent`, response validation with zod, and the mapping of every failure to a
 * `LedgerError` (see errors.ts for the retryable / outcome-unknown rules).
 * It speaks node:http(s) over a keep-alive agent rather than `fetch`: the worker makes one call per
 * submission, and fetch's web streams, Request cloning and AbortSignals cost more CPU than the call itself.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
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
  /** W3C `tracestate` header sent beside `traceparent`; ignored without it, or when not printable ASCII within 512 characters. */
  tracestate?: string;
}

/** Query parameters of the list endpoints (`/v2/updates`, `/v2/updates/flats`, completions). */
export interface StreamOptions extends CallOptions {
  /** Maximum number of elements; keep it ≤ 200 (the participant answers 413 above its list limit). */
  limit?: number;
  /** For open-ended ranges: complete when no element arrives for this long. */
  streamIdleTimeoutMs?: number;
}

export interface HttpClientOptions {
  baseUrl: string;
  token?: TokenOption;
  /** Default per-call timeout (ms); default 30 000. */
  timeoutMs?: number;
  /** Refresh a provider token this long before its `exp` (default 30 s). */
  tokenRefreshBeforeMs?: number;
  /** Larger response bodies are refused (`RESPONSE_TOO_LARGE`) instead of exhausting memory; default 64 MiB. */
  maxResponseBytes?: number;
}

/** A query parameter's value. */
export type QueryValue = string | number | boolean | readonly string[];

export interface HttpRequest<T extends z.ZodType> {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE' | 'PUT';
  path: string;
  /** An array is sent as the parameter repeated (`parties=a&parties=b`). */
  query?: Record<string, QueryValue | undefined>;
  body?: unknown;
  response: T;
}

/** Maps a non-2xx JSON body that is not a JsCantonError (e.g. scan's `{error}`); undefined = not recognised. */
export type ErrorBodyMapper = (status: number, json: unknown) => LedgerError | undefined;

const TRACEPARENT = /^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$/;
/** A `tracestate` is vendor data beside the trace: one that is not a sane header value is left out, not refused. */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

export function formatIssues(error: z.ZodError, max = 5): string {
  const shown = error.issues
    .slice(0, max)
    .map((i) => `${i.path.length ? i.path.join('.') : '(root)'}: ${i.message}`);
  const more = error.issues.length > max ? ` (+${error.issues.length - max} more)` : '';
  return shown.join('; ') + more;
}

/** Why an exchange ended without an answer, when it was not the connection's fault. */
class Interrupted extends Error {
  constructor(readonly reason: 'timeout' | 'cancelled') {
    super(reason);
  }
}

interface Exchange {
  status: number;
  /** The body as text, or undefined once it grew beyond the limit (the rest is not read). */
  text: string | undefined;
}

interface ExchangeInit {
  method: string;
  headers: Record<string, string>;
  payload: string | undefined;
  agent: HttpAgent;
  timeoutMs: number;
  maxBytes: number;
  signal: AbortSignal | undefined;
}

/** One request and its whole response, bounded in time (headers and body) and in size. */
function exchange(url: URL, init: ExchangeInit): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    let settled = false;
    const finish = (settle: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      init.signal?.removeEventListener('abort', onAbort);
      settle();
    };
    const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(url, { method: init.method, headers: init.headers, agent: init.agent });
    const interrupt = (reason: 'timeout' | 'cancelled') => {
      finish(() => reject(new Interrupted(reason)));
      req.destroy();
    };
    const timer = setTimeout(() => interrupt('timeout'), init.timeoutMs);
    const onAbort = () => interrupt('cancelled');
    init.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('error', (err) => finish(() => reject(err)));
    req.on('response', (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      const tooLarge = () => {
        finish(() => resolve({ status, text: undefined }));
        res.destroy();
      };
      if (Number(res.headers['content-length'] ?? Number.NaN) > init.maxBytes) return tooLarge();
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > init.maxBytes) return tooLarge();
        chunks.push(chunk);
      });
      res.on('end', () => finish(() => resolve({ status, text: Buffer.concat(chunks).toString('utf8') })));
      res.on('error', (err) => finish(() => reject(err)));
      res.on('close', () => {
        if (!res.complete) {
          finish(() => reject(Object.assign(new Error('response cut off'), { code: 'ECONNRESET' })));
        }
      });
    });
    req.end(init.payload);
  });
}

export class HttpTransport {
  private readonly baseUrl: string;
  private readonly tokens: TokenSource;
  private readonly agent: HttpAgent;
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
    // Idle connections are closed before a Node server's default 5 s keep-alive would close them under us.
    const agentOptions = { keepAlive: true, timeout: 4_000 };
    this.agent = url.protocol === 'https:' ? new HttpsAgent(agentOptions) : new HttpAgent(agentOptions);
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
    if (opts.signal?.aborted) throw cancelledError(what, false);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (opts.traceparent) headers.traceparent = opts.traceparent;
    if (opts.traceparent && opts.tracestate && TRACESTATE.test(opts.tracestate))
      headers.tracestate = opts.tracestate;
    let payload: string | undefined;
    if (req.body !== undefined) {
      payload = JSON.stringify(req.body);
      headers['content-type'] = 'application/json';
      headers['content-length'] = String(Buffer.byteLength(payload));
    }
    const timeoutMs = opts.timeoutMs ?? this.timeoutMs;
    let status: number;
    let text: string;
    try {
      const answer = await exchange(this.url(req), {
        method: req.method,
        headers,
        payload,
        agent: this.agent,
        timeoutMs,
        maxBytes: this.maxResponseBytes,
        signal: opts.signal,
      });
      status = answer.status;
      if (answer.text === undefined) {
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
      text = answer.text;
    } catch (err) {
      if (err instanceof Interrupted) {
        return {
          ok: false,
          error: err.reason === 'timeout' ? timeoutError(what, timeoutMs) : cancelledError(what, true),
        };
      }
      return { ok: false, error: fromTransport(err, what) };
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

  private url(req: HttpRequest<z.ZodType>): URL {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(req.query ?? {})) {
      if (Array.isArray(value)) for (const v of value) params.append(key, v);
      else if (value !== undefined) params.set(key, String(value));
    }
    const qs = params.toString();
    return new URL(`${this.baseUrl}${req.path}${qs ? `?${qs}` : ''}`);
  }
}
