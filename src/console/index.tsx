// The operator console (issue 17), mounted by the composition root at /console on the wallet's own app. Pages are
// server-rendered (Hono JSX); every read and action goes through the wallet API in process as the signed-in
// operator, so the console has exactly the API's roles and party scope.
import { readFileSync } from 'node:fs';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { WalletApp } from '../api/index.ts';
import type { ConsoleDeps } from './deps.ts';
import { PageError } from './errors.ts';
import { type ConsoleEnv, errorPage, securityHeaders, sessionGate } from './http.tsx';
import { liveEvents } from './live.ts';
import { OidcSignIn } from './oidc.ts';
import { navFor, PAGES } from './pages/index.ts';
import { oidcCallback, oidcStart, redeem, signinPage, signout } from './pages/signin.tsx';

export { entriesFromCsv } from './csv.ts';
export type { ConsoleDeps, OidcSettings } from './deps.ts';
export { consoleBaseUrl, type LinkRequest, mintLink, signInLink } from './links.ts';
export { SessionStore } from './sessions.ts';

const ASSETS: Record<string, { type: string; body: string }> = {
  'console.css': { type: 'text/css; charset=utf-8', body: asset('console.css') },
  'console.js': { type: 'text/javascript; charset=utf-8', body: asset('console.js') },
};

function asset(name: string): string {
  return readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');
}

export function mountConsole(app: WalletApp, deps: ConsoleDeps): void {
  const ui = new Hono<ConsoleEnv>();
  const oidc = deps.oidc
    ? new OidcSignIn(deps.oidc, `${(deps.publicUrl ?? '').replace(/\/$/, '')}/console/oidc/callback`)
    : undefined;
  ui.use('*', securityHeaders());
  ui.use(
    '*',
    bodyLimit({ maxSize: 256 * 1024, onError: (c) => errorPage(c, 400, 'This form is too large.') }),
  );
  ui.use('*', sessionGate(deps, app, navFor));

  ui.get('/assets/:file', (c) => {
    const a = ASSETS[c.req.param('file')];
    if (!a) throw new PageError(404, 'No such file.');
    c.header('Content-Type', a.type);
    c.header('Cache-Control', 'public, max-age=300');
    return c.body(a.body);
  });
  ui.get('/signin', (c) => signinPage(c, deps));
  ui.post('/signin', (c) => redeem(c, deps));
  ui.get('/oidc/start', (c) => oidcStart(c, deps, oidc));
  ui.get('/oidc/callback', (c) => oidcCallback(c, deps, oidc));
  ui.post('/signout', (c) => signout(c, deps));
  // Not a page of the table: a stream that never ends (live.ts).
  ui.get('/events', (c) => liveEvents(c));

  // Only the pages of the table are routed (pages/index.ts).
  for (const page of PAGES) {
    const path = page.path || '/';
    const { get, post } = page;
    if (get) ui.get(path, (c) => get(c, deps));
    if (post) ui.post(path, (c) => post(c, deps));
  }
  ui.all('*', (c) => errorPage(c, 404, 'There is no such page.', c.get('viewer')));

  ui.onError((err, c) => {
    const viewer = c.get('viewer');
    if (err instanceof PageError) return errorPage(c, err.status, err.message, viewer);
    // Nothing an operator types gets here; the log has the cause, the page only the request id.
    const requestId = c.get('requestId');
    deps.log?.('error', 'console error', {
      requestId,
      path: c.req.path,
      error: err instanceof Error ? `${err.name}: ${err.message}` : String(err),
    });
    return errorPage(
      c,
      503,
      `Something failed on our side (request ${requestId ?? '?'}): try again.`,
      viewer,
    );
  });
  app.route('/console', ui);
}
