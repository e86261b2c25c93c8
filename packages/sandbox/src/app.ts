/** The ledger HTTP app: fault injection, authentication, routes, and the participant's error answers. */
import { Hono } from 'hono';
import { WILDCARD } from './auth.ts';
import { err } from './errors.ts';
import { UNAVAILABLE_TEXT } from './faults.ts';
import { activeContractRoutes } from './routes/active-contracts.ts';
import { adminRoutes } from './routes/admin.ts';
import { completionRoutes } from './routes/completions.ts';
import { type Env, errorResponse, requestTimeout, type Services } from './routes/http.ts';
import { packageRoutes } from './routes/packages.ts';
import { partyRoutes } from './routes/parties.ts';
import { isRegistryPath, registryRoutes } from './routes/registry.ts';
import { stateRoutes } from './routes/state.ts';
import type { StreamForms } from './routes/stream.ts';
import { EXECUTE_PATHS, submissionRoutes } from './routes/submission.ts';
import { updateRoutes } from './routes/updates.ts';
import { userRoutes } from './routes/users.ts';
import { EXPECTED_UPGRADE_TEXT, streamPath, wsCaller } from './routes/websocket.ts';

const OPEN = new Set(['/livez', '/readyz']);

/** `streams` receives the streams served in both forms, for the websocket upgrade (`routes/websocket.ts`). */
export function ledgerApp(services: Services, streams: StreamForms = new Map()): Hono<Env> {
  const { faults, auth } = services;
  const app = new Hono<Env>();
  app.onError((e, c) => errorResponse(c, e));
  app.notFound((c) => c.text('The requested resource could not be found.', 404));
  const timeout = requestTimeout(services.options.requestTimeoutMs);
  app.use('*', (c, next) => (c.req.path.startsWith('/admin/') ? next() : timeout(c, next)));

  app.use('*', async (c, next) => {
    const path = c.req.path;
    if (!path.startsWith('/admin/') && !OPEN.has(path)) {
      await faults.whileUnpaused();
      if (faults.pick('drop', path)) {
        c.env.incoming.socket.destroy();
        return new Response(null, { status: 500 });
      }
      if (!EXECUTE_PATHS.has(path)) {
        const latency = faults.pick('latency', path);
        if (latency) await new Promise((r) => setTimeout(r, latency.latencyMs ?? 100));
      }
      if (faults.pick('unavailable', path)) return c.text(UNAVAILABLE_TEXT, 503);
      if (faults.pick('timeout', path)) return c.json(err.requestTimeout().body(), 504);
    }
    if (c.req.method === 'GET' && streams.has(streamPath(c.req.url))) {
      // A websocket route asked without the upgrade: authenticated as the upgrade is, then pekko-http's 400.
      await wsCaller(auth, c.req.header());
      return c.text(EXPECTED_UPGRADE_TEXT, 400);
    }
    // The registries' API is public, as Scan's is (routes/registry.ts).
    const open = OPEN.has(path) || isRegistryPath(path);
    c.set('caller', open ? WILDCARD : await auth.authenticate(c.req.header('authorization')));
    await next();
  });

  stateRoutes(app, services);
  activeContractRoutes(app, services);
  userRoutes(app, services);
  partyRoutes(app, services);
  packageRoutes(app, services);
  updateRoutes(app, services, streams);
  submissionRoutes(app, services);
  completionRoutes(app, services, streams);
  adminRoutes(app, services);
  registryRoutes(app, services.state);
  return app;
}
