/**
 * Bearer token source: a static token or an async provider. Provider tokens are cached and fetched again
 * `refreshBeforeMs` before the JWT's `exp` (decoded without verification: we only need the time); tokens
 * without `exp` are kept `fallbackTtlMs`. Concurrent callers share one provider call. The token never
 * appears in an error message.
 */
import { LedgerError, oneLine } from './errors.ts';

export type TokenOption = string | (() => Promise<string>);

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
    this.pending ??= this.fetch(option).finally(() => {
      this.pending = undefined;
    });
    return this.pending;
  }

  /** Forget the cached token (after a 401). */
  invalidate(): void {
    this.cached = undefined;
  }

  private async fetch(provider: () => Promise<string>): Promise<string> {
    let token: unknown;
    try {
      token = await provider();
    } catch (err) {
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
