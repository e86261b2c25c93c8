// What every console request shares: security headers, the session and its CSRF check, the typed in-process
// client of the wallet API (as the signed-in operator), the one mapping from its answers to pages, and error
// pages that never show a stack.
import type { Context, MiddlewareHandler } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { setResponseHeader, type WalletApp } from '../api/index.ts';
import type { Principal } from '../auth/index.ts';
import { type Api, apiClient, type Ok } from './client.ts';
import type { ConsoleDeps } from './deps.ts';
import { PageError } from './errors.ts';
import { csrfMatches, type Session } from './sessions.ts';
import { type NavLink, Page, type Viewer } from './ui.tsx';

export type ConsoleEnv = {
  Variables: {
    session: Session;
    sid: string;
    viewer: Viewer;
    api: Api;
    requestId: string;
    principal: Principal;
  };
};
export type Ctx = Context<ConsoleEnv>;

export const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    setResponseHeader(c, 'Content-Security-Policy', CSP);
    setResponseHeader(c, 'X-Frame-Options', 'DENY');
    setResponseHeader(c, 'Referrer-Policy', 'no-referrer');
    setResponseHeader(c, 'X-Content-Type-Options', 'nosniff');
    setResponseHeader(c, 'Cross-Origin-Opener-Policy', 'same-origin');
    if (!c.req.path.startsWith('/console/assets/')) setResponseHeader(c, 'Cache-Control', 'no-store');
  };
}

export function cookieNames(deps: ConsoleDeps): { session: string; pre: string; secure: boolean } {
  const secure = deps.publicUrl?.startsWith('https:') ?? false;
  // __Host-: the browser refuses it without Secure and Path=/ and from any other host (no cookie tossing).
  return secure
    ? { session: '__Host-quill_console', pre: '__Host-quill_console_pre', secure }
    : { session: 'quill_console', pre: 'quill_console_pre', secure };
}

export function setSessionCookie(c: Context, deps: ConsoleDeps, sid: string): void {
  const names = cookieNames(deps);
  setCookie(c, names.session, sid, {
    path: '/',
    httpOnly: true,
    sameSite: 'Strict',
    secure: names.secure,
    maxAge: Math.floor(deps.sessions.limits.absoluteMs / 1000),
  });
}

export function clearSessionCookie(c: Context, deps: ConsoleDeps): void {
  const names = cookieNames(deps);
  setCookie(c, names.session, '', {
    path: '/',
    httpOnly: true,
    sameSite: 'Strict',
    secure: names.secure,
    maxAge: 0,
  });
}

const PUBLIC = /^\/console\/(signin|oidc\/|assets\/)/;

/**
 * The session (or the sign-in page), the CSRF check on every state change, the API client, and the viewer (with
 * `nav`: the links to the pages this operator can open).
 */
export function sessionGate(
  deps: ConsoleDeps,
  app: WalletApp,
  nav: (who: Principal, counts?: Record<string, number>) => NavLink[],
): MiddlewareHandler<ConsoleEnv> {
  return async (c, next) => {
    if (c.req.method === 'POST' && !sameOrigin(c))
      throw new PageError(403, 'This request came from another site.');
    if (PUBLIC.test(c.req.path)) return next();
    const sid = getCookie(c, cookieNames(deps).session);
    const session = await deps.sessions.get(sid);
    if (!session || !sid) {
      if (c.req.method === 'GET') {
        const back = c.req.path + (new URL(c.req.url).search || '');
        return c.redirect(`/console/signin?next=${encodeURIComponent(back)}`, 303);
      }
      throw new PageError(403, 'Your session has ended: sign in again.');
    }
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      const form = await c.req.parseBody();
      if (!csrfMatches(session, form._csrf ?? c.req.header('x-csrf-token')))
        throw new PageError(
          403,
          'This form has expired (missing or wrong CSRF token): reload the page and try again.',
        );
    }
    c.set('session', session);
    c.set('sid', sid);
    c.set('principal', session.principal);
    // The approvals badge: the overview's own count (one Redis round trip), on pages only (not fragments).
    const counts =
      c.req.method === 'GET' && !/\/(rows|status|events)$/.test(c.req.path)
        ? await deps.statusCounts(session.principal.party).catch(() => undefined)
        : undefined;
    const waiting = counts?.awaiting_approval ?? 0;
    c.set('viewer', {
      principal: session.principal,
      csrf: session.csrf,
      nav: nav(session.principal, { '/approvals': waiting }),
    });
    c.set('api', apiClient(app, session.principal, c.get('requestId')));
    return next();
  };
}

/**
 * A browser's POST says where it comes from: `Sec-Fetch-Site` (Chromium, Firefox, Safari), else `Origin` (which is
 * `null` under Referrer-Policy: no-referrer, so it cannot decide alone). One from another site is refused, on top
 * of SameSite=Strict cookies and CSRF tokens.
 */
function sameOrigin(c: Context): boolean {
  const site = c.req.header('sec-fetch-site');
  if (site !== undefined) return site === 'same-origin';
  const origin = c.req.header('origin');
  if (!origin || origin === 'null') return true;
  try {
    return new URL(origin).host === c.req.header('host');
  } catch {
    return false;
  }
}

/** The API's error message for a refused call (its ErrorBody). */
export function apiMessage(res: { status: number; body: unknown }): string {
  const b = res.body;
  const e = typeof b === 'object' && b !== null && 'error' in b ? b.error : undefined;
  const message = typeof e === 'object' && e !== null && 'message' in e ? e.message : undefined;
  return typeof message === 'string' ? message : `the wallet answered ${res.status}`;
}

/** A successful API answer's body, or the page error the answer means (404 not found, 403 not allowed, …). */
export function must<A extends { status: number; body: unknown }>(res: A, what: string): Ok<A> {
  if (res.status >= 200 && res.status < 300) return res.body as Ok<A>;
  if (res.status === 404) throw new PageError(404, `No ${what}: it does not exist or is not visible to you.`);
  if (res.status === 401 || res.status === 403) throw new PageError(403, apiMessage(res));
  if (res.status === 409) throw new PageError(409, apiMessage(res));
  if (res.status >= 500) throw new PageError(503, `${apiMessage(res)} (try again)`);
  throw new PageError(400, apiMessage(res));
}

/** Form fields as strings (files and repeated fields refused as absent). */
export async function formFields(c: Ctx): Promise<Record<string, string>> {
  const body = await c.req.parseBody();
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(body)) if (typeof v === 'string') out[k] = v;
  return out;
}

export function errorPage(c: Context, status: number, message: string, viewer?: Viewer) {
  const title =
    status === 404
      ? 'Not found'
      : status === 403
        ? 'Not allowed'
        : status === 503
          ? 'Unavailable'
          : 'Refused';
  return c.html(
    <Page title={title} {...(viewer ? { viewer } : {})}>
      <p class="error" role="alert" data-testid="page-error">
        {message}
      </p>
      <p>
        <a href="/console">Back to the overview</a>
      </p>
    </Page>,
    status as 400,
  );
}
