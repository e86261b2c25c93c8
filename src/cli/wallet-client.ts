// One HTTP call to the wallet API for the client commands (QUILL_URL, QUILL_TOKEN: config `client`), with the
// option checks they share (`--wait`, `--idempotency-key`) and the one-line errors they print.
import { loadConfig } from '../config/index.ts';
import { CommandFailure, UsageError } from '../errors.ts';
import type { CliEnv } from './support.ts';

/** `--wait [seconds]`: absent → 0, bare → 60, else a number of seconds (at most 3600, as the API takes). */
export function parseWait(wait: string | boolean | undefined): number {
  if (wait === undefined) return 0;
  if (wait === true) return 60;
  const n = Number(wait);
  if (wait === false || wait.trim() === '' || !Number.isFinite(n) || n < 0 || n > 3600)
    throw new UsageError('--wait takes a number of seconds (0 to 3600)');
  return n;
}

export function checkIdempotencyKey(key: string | undefined): void {
  if (key !== undefined && (key.trim() === '' || key.length > 200))
    throw new UsageError('--idempotency-key must be 1-200 characters');
}

export interface WalletRequest {
  method: 'GET' | 'POST';
  /** Path with its parameters already encoded. */
  path: string;
  query?: Record<string, string | undefined>;
  body?: unknown;
  /** Seconds the wallet may hold the answer (`?wait=`); the client's own timeout covers it. */
  wait?: number;
  idempotencyKey?: string | undefined;
  /** Which failed statuses are bad input (exit 2) rather than failures (exit 1); default: 400 only. */
  badInput?: (status: number) => boolean;
}

export type ApiErrorBody = { error?: { code?: string; message?: string } };

/** Calls the wallet; answers the JSON of a 2xx, or throws one sentence with the API's error code and message. */
export async function callWallet<T = unknown>(env: CliEnv, req: WalletRequest): Promise<T> {
  const { walletUrl: base, walletToken: token } = loadConfig(env, ['client']);
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(req.query ?? {})) if (v !== undefined) q.set(k, v);
  if (req.wait) q.set('wait', String(req.wait));
  const url = `${base}${req.path}${q.size > 0 ? `?${q}` : ''}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method: req.method,
      headers: {
        ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
        ...(req.idempotencyKey ? { 'idempotency-key': req.idempotencyKey } : {}),
      },
      ...(req.body !== undefined ? { body: JSON.stringify(req.body) } : {}),
      signal: AbortSignal.timeout(((req.wait ?? 0) + 30) * 1000),
    });
  } catch (err) {
    throw new CommandFailure(`cannot reach the wallet at ${base}: ${(err as Error).message}`);
  }
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  if (!res.ok) {
    const e = (json as ApiErrorBody | undefined)?.error;
    const line = e ? `${e.code}: ${e.message}` : `the wallet answered HTTP ${res.status}`;
    if ((req.badInput ?? ((s) => s === 400))(res.status)) throw new UsageError(line);
    throw new CommandFailure(line);
  }
  if (json === undefined) throw new CommandFailure(`the wallet answered HTTP ${res.status} without JSON`);
  return json as T;
}

interface RecordLike {
  id?: string;
  status?: string;
  error?: { code?: string; message?: string } | null;
}

/** A record that ended rejected or expired is a failure (exit 1) once printed: says why in one sentence. */
export function failIfUnsuccessful(record: unknown, what: string): void {
  const r = (record ?? {}) as RecordLike;
  if (r.status !== 'rejected' && r.status !== 'expired') return;
  const why = r.error ? `: ${r.error.code}: ${r.error.message}` : '';
  throw new CommandFailure(`${what}${r.id ? ` ${r.id}` : ''} ended ${r.status}${why}`);
}
