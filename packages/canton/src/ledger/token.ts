/**
 * Bearer tokens for the ledger: `ledgerTokenOption` turns plain settings (static, file, OAuth client
 * credentials) into a `TokenOption`; `TokenSource` serves it. A static token or an async provider. Provider tokens are cached and fetched again
 * `refreshBeforeMs` before the JWT's `exp` (decoded without verification: we only need the time); tokens
 * without `exp` are kept `fallbackTtlMs`. Concurrent callers share one provider call. The token never
 * appears in an error message.
 */
import { readFile } from 'node:fs/promises';
import { LedgerError, oneLine } from './errors.ts';

/**
 * A fixed token, or a provider. `refresh: true` asks a provider that caches for a new token: the ledger has just
 * refused the one it gave (401).
 */
export type TokenOption = string | ((opts?: { refresh?: boolean }) => Promise<string>);

/** Seconds-since-epoch `exp` of a JWT, or undefined when the token is not a JWT or has none. */
export function jwtExpiry(token: string): number | undefined {
  const parts = token.split('.');
  if (parts.length !== 3 || !parts[1]) return undefined;
  try {
    const payload: unknown = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
    const exp = (payload as { exp?: unknown } | null)?.exp;
    return typeof exp === 'number' && Number.isFinite(exp) ? exp : undefined;
  } catch {
    return undefined;
  }
}

export class TokenSource {
  private cached?: { token: string; refreshAt: number };
  private pending?: Promise<string>;
  /** The ledger refused the last token: the next fetch asks the provider for a new one. */
  private stale = false;

  constructor(
    private readonly option: TokenOption | undefined,
    private readonly opts: { refreshBeforeMs?: number; fallbackTtlMs?: number; now?: () => number } = {},
  ) {}

  /** Whether a call failing with 401 may succeed with a fresh token. */
  get refreshable(): boolean {
    return typeof this.option === 'function';
  }

  async get(): Promise<string | undefined> {
    const option = this.option;
    if (option === undefined || typeof option === 'string') return option;
    const now = (this.opts.now ?? Date.now)();
    if (this.cached && now < this.cached.refreshAt) return this.cached.token;
    const refresh = this.stale;
    this.stale = false;
    this.pending ??= this.fetch(option, refresh).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forget the cached token, and have the provider's own cache skipped once (after a 401). */
  invalidate(): void {
    this.cached = undefined;
    this.stale = true;
  }

  private async fetch(
    provider: (opts?: { refresh?: boolean }) => Promise<string>,
    refresh: boolean,
  ): Promise<string> {
    let token: unknown;
    try {
      token = await (refresh ? provider({ refresh: true }) : provider());
    } catch (err) {
      if (err instanceof LedgerError && err.code === 'AUTH_TOKEN_UNAVAILABLE') throw err;
      const detail = err instanceof Error ? oneLine(err.message, 200) : 'provider failed';
      throw new LedgerError({
        code: 'AUTH_TOKEN_UNAVAILABLE',
        message: `token provider failed: ${detail}`,
        retryable: true,
        cause: err,
      });
    }
    if (typeof token !== 'string' || token.length === 0) {
      throw new LedgerError({ code: 'AUTH_TOKEN_UNAVAILABLE', message: 'token provider returned no token' });
    }
    const now = (this.opts.now ?? Date.now)();
    const exp = jwtExpiry(token);
    const refreshBefore = this.opts.refreshBeforeMs ?? 30_000;
    // Short-lived tokens (lifetime under the margin) are still reused for half of their remaining life.
    const refreshAt =
      exp === undefined
        ? now + (this.opts.fallbackTtlMs ?? 60_000)
        : Math.max(exp * 1000 - refreshBefore, now + (exp * 1000 - now) / 2);
    this.cached = { token, refreshAt };
    return token;
  }
}

/** OAuth 2 client-credentials grant (RFC 6749 §4.4) against `tokenUrl`. */
export interface OAuthClientCredentials {
  tokenUrl: string;
  clientId: string;
  clientSecret: string;
  audience?: string;
  scope?: string;
}

/** Where the ledger token comes from: fixed, re-read from a file at each fetch, or OAuth client credentials. */
export type LedgerTokenSettings = { static: string } | { file: string } | { oauth: OAuthClientCredentials };

function unavailable(message: string, cause?: unknown): LedgerError {
  return new LedgerError({ code: 'AUTH_TOKEN_UNAVAILABLE', message, retryable: true, cause });
}

/**
 * The `token` option of a `LedgerClient` for these settings (undefined: no bearer token). Providers throw
 * `LedgerError` `AUTH_TOKEN_UNAVAILABLE`; messages name the file or URL, never a token or the client secret.
 */
export function ledgerTokenOption(
  settings: Readonly<LedgerTokenSettings> | undefined,
  opts: { now?: () => number; timeoutMs?: number } = {},
): TokenOption | undefined {
  if (settings === undefined) return undefined;
  if ('static' in settings) return settings.static;
  if ('file' in settings) {
    const file = settings.file;
    return async () => {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (err) {
        throw unavailable(
          `cannot read the ledger token file ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`,
          err,
        );
      }
      const token = text.trim();
      if (!token) throw unavailable(`the ledger token file ${file} is empty`);
      return token;
    };
  }
  return oauthProvider(settings.oauth, opts);
}

/**
 * Client credentials: the token is kept until a minute before `expires_in` ends (at least 30 s), or until the
 * ledger refuses it (`refresh`: a new one is asked for at once).
 */
function oauthProvider(
  o: OAuthClientCredentials,
  opts: { now?: () => number; timeoutMs?: number },
): (call?: { refresh?: boolean }) => Promise<string> {
  const now = opts.now ?? Date.now;
  let cached: { token: string; until: number } | undefined;
  return async (call) => {
    if (cached && now() < cached.until && !call?.refresh) return cached.token;
    const form = new URLSearchParams({ grant_type: 'client_credentials', client_id: o.clientId });
    form.set('client_secret', o.clientSecret);
    if (o.audience) form.set('audience', o.audience);
    if (o.scope) form.set('scope', o.scope);
    let res: Response;
    try {
      res = await fetch(o.tokenUrl, {
        method: 'POST',
        body: form,
        signal: AbortSignal.timeout(opts.timeoutMs ?? 30_000),
      });
    } catch (err) {
      const detail = err instanceof Error ? oneLine(err.message, 200) : 'request failed';
      throw unavailable(`token endpoint ${o.tokenUrl} unreachable: ${detail}`, err);
    }
    if (!res.ok) {
      await res.body?.cancel();
      throw unavailable(`token endpoint ${o.tokenUrl} answered ${res.status}`);
    }
    let json: { access_token?: unknown; expires_in?: unknown };
    try {
      json = (await res.json()) as typeof json;
    } catch (err) {
      throw unavailable(`token endpoint ${o.tokenUrl} answered with a body that is not JSON`, err);
    }
    if (typeof json?.access_token !== 'string' || json.access_token === '') {
      throw unavailable(`token endpoint ${o.tokenUrl} gave no access_token`);
    }
    const expiresIn = typeof json.expires_in === 'number' ? json.expires_in : 300;
    cached = { token: json.access_token, until: now() + Math.max(30, expiresIn - 60) * 1000 };
    return cached.token;
  };
}
