// Sign-in: a one-time link (`quill console link`, or the one `quill serve` prints) or OIDC; sign-out.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import type { Principal } from '../../auth/index.ts';
import type { ConsoleDeps } from '../deps.ts';
import { LinkError, OidcError, PageError } from '../errors.ts';
import { type Ctx, clearSessionCookie, cookieNames, setSessionCookie } from '../http.tsx';
import { redeemLink } from '../links.ts';
import { type OidcSignIn, STATE_TTL_SECONDS } from '../oidc.ts';
import { FormError, Page } from '../ui.tsx';

const OIDC_STATE_COOKIE = 'quill_console_oidc';

/**
 * Where an operator lands after signing in: an approver on its approvals (its work; the overview stays one click
 * away), everyone else where it asked to go.
 */
export function landing(who: Principal, next: string): string {
  return next === '/console' && who.role === 'approve' ? '/console/approvals' : next;
}

/** Only a path inside the console: never another site (`//host`) or a scheme. */
export function safeNext(next: string | undefined): string {
  return next && /^\/console(\/|\?|$)/.test(next) && !/[\\]|\/\//.test(next) ? next : '/console';
}

export function signinPage(c: Context, deps: ConsoleDeps, error?: string) {
  const token = c.req.query('t');
  const next = safeNext(c.req.query('next'));
  // Sign-in CSRF: the form must come from a page this browser loaded (double-submit of a random value).
  const pre = randomBytes(18).toString('base64url');
  const names = cookieNames(deps);
  setCookie(c, names.pre, pre, {
    path: '/', // __Host- cookies must be Path=/
    httpOnly: true,
    sameSite: 'Strict',
    secure: names.secure,
    maxAge: 900,
  });
  return c.html(
    <Page title="Sign in">
      {token && deps.linkSecret ? (
        <form method="post" action="/console/signin" data-testid="signin-form">
          <input type="hidden" name="t" value={token} />
          <input type="hidden" name="next" value={next} />
          <input type="hidden" name="_pre" value={pre} />
          <p>This one-time link signs you in to the Quill console. It works once.</p>
          <button type="submit">Sign in</button>
        </form>
      ) : (
        <p>
          Ask an administrator for a one-time sign-in link (<code>quill console link --role read</code>)
          {deps.oidc ? ', or sign in with your identity provider.' : '.'}
        </p>
      )}
      <FormError message={error} />
      {deps.oidc && (
        <p>
          <a
            class="button"
            href={`/console/oidc/start?next=${encodeURIComponent(next)}`}
            data-testid="oidc-signin"
          >
            Sign in with your identity provider
          </a>
        </p>
      )}
    </Page>,
    error ? 400 : 200,
  );
}

export async function redeem(c: Context, deps: ConsoleDeps) {
  const form = await c.req.parseBody();
  const pre = getCookie(c, cookieNames(deps).pre);
  const given = typeof form._pre === 'string' ? form._pre : '';
  if (!pre || pre.length !== given.length || !timingSafeEqual(Buffer.from(pre), Buffer.from(given)))
    return signinPage(c, deps, 'This sign-in form has expired: open the link again.');
  if (!deps.linkSecret) throw new PageError(403, 'Sign-in links are off (no AUTH_JWT_SECRET).');
  const token = typeof form.t === 'string' ? form.t : '';
  try {
    const principal = await redeemLink(deps.linkSecret, token, deps.redis, deps.prefix);
    setSessionCookie(c, deps, await deps.sessions.create(principal, 'link'));
    return c.redirect(
      landing(principal, safeNext(typeof form.next === 'string' ? form.next : undefined)),
      303,
    );
  } catch (err) {
    if (err instanceof LinkError) return signinPage(c, deps, err.message);
    throw err;
  }
}

export async function signout(c: Ctx, deps: ConsoleDeps) {
  await deps.sessions.destroy(c.get('sid'));
  clearSessionCookie(c, deps);
  return c.redirect('/console/signin', 303);
}

export async function oidcStart(c: Context, deps: ConsoleDeps, oidc: OidcSignIn | undefined) {
  if (!oidc) throw new PageError(404, 'OIDC sign-in is not configured.');
  try {
    const { url, cookie } = await oidc.start(safeNext(c.req.query('next')));
    // Lax: the provider's redirect back is a cross-site top-level navigation, which Strict cookies miss.
    setCookie(c, OIDC_STATE_COOKIE, cookie, {
      path: '/console/oidc',
      httpOnly: true,
      sameSite: 'Lax',
      secure: cookieNames(deps).secure,
      maxAge: STATE_TTL_SECONDS,
    });
    return c.redirect(url, 302);
  } catch (err) {
    if (err instanceof OidcError) throw new PageError(503, err.message);
    throw err;
  }
}

export async function oidcCallback(c: Context, deps: ConsoleDeps, oidc: OidcSignIn | undefined) {
  if (!oidc) throw new PageError(404, 'OIDC sign-in is not configured.');
  const url = new URL(c.req.url);
  if (url.searchParams.get('error'))
    throw new PageError(403, `The identity provider refused: ${url.searchParams.get('error')}`.slice(0, 300));
  try {
    const cookie = getCookie(c, OIDC_STATE_COOKIE);
    // One try per state: cleared whatever the outcome (a refused sign-in starts again).
    setCookie(c, OIDC_STATE_COOKIE, '', { path: '/console/oidc', maxAge: 0 });
    const { principal, next } = await oidc.finish(url, cookie);
    setSessionCookie(c, deps, await deps.sessions.create(principal, 'oidc'));
    // A page, not a redirect: after the provider's cross-site redirect, a SameSite=Strict cookie is only sent
    // on a navigation this site starts.
    const to = landing(principal, safeNext(next));
    c.header('Refresh', `0; url=${to}`);
    return c.html(
      <Page title="Signed in">
        <p>
          Signed in. <a href={to}>Continue to the console</a>.
        </p>
      </Page>,
    );
  } catch (err) {
    if (err instanceof OidcError)
      throw new PageError(err.code === 'OIDC_UNAVAILABLE' ? 503 : 403, err.message);
    throw err;
  }
}
