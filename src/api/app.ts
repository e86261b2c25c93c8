// The wallet's Hono app: auth, routes, OpenAPI document, local docs, probes and metrics. Errors are mapped once.
import { randomUUID } from 'node:crypto';
import { OpenAPIHono } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import type { Context, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { jsonTooDeep, MAX_JSON_DEPTH } from '../json.ts';
import { type Log, noLog } from '../log.ts';
import { SubmissionRefused } from '../submissions/index.ts';
import { type AppDeps, type AppEnv, inProcessPrincipal } from './context.ts';
import { docsRoutes } from './docs.ts';
import { describeCause, errorJson, invalidRequest, toHttpError } from './errors.ts';
import { setResponseHeader } from './headers.ts';
import { PROBE_DOCS, probeRoutes } from './probes.ts';
import { approvalRoutes } from './routes/approvals.ts';
import { auditRoutes } from './routes/audit.ts';
import { eventRoutes } from './routes/events.ts';
import { intentRoutes } from './routes/intents.ts';
import { keyRoutes } from './routes/keys.ts';
import { ledgerRoutes } from './routes/ledger.ts';
import { lifecycleRoutes } from './routes/lifecycle.ts';
import { operationsRoutes } from './routes/operations.ts';
import { partyRoutes } from './routes/parties/index.ts';
import { policyRoutes } from './routes/policy.ts';
import { signatureRoutes } from './routes/signatures.ts';
import { submissionRoutes } from './routes/submissions.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { BatchItem } from './schemas.ts';
import { traceContext } from './tracing.ts';

const UTF8 = new TextDecoder();

/** A caller's own X-Request-Id is kept when it is a sane token; otherwise one is made. */
const CALLER_REQUEST_ID = /^[\w.:-]{1,128}$/;

/**
 * One line per request: method, path, status, duration, who asked, and the request id (also returned as
 * X-Request-Id). Wallet calls log at info; probes, metrics and docs at debug, as they are polled.
 */
function accessLog(log: Log): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const started = performance.now();
    const given = c.req.header('x-request-id');
    const requestId = given && CALLER_REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    await next();
    setResponseHeader(c, 'X-Request-Id', requestId);
    const status = c.res.status;
    const level = status >= 500 ? 'error' : c.req.path.startsWith('/wallet/') ? 'info' : 'debug';
    log(level, 'request', {
      requestId,
      method: c.req.method,
      path: c.req.path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      subject: c.get('principal')?.subject,
    });
  };
}

/**
 * The wallet's app. Each route module is a sub-app built by chaining `.openapi(…)`, mounted with `route`, so the
 * returned app's type carries every route (`WalletApp`: what the console's typed in-process client calls).
 */
export function createApp(deps: AppDeps) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        const { status, body } = invalidRequest(result.error);
        return c.json(body, status);
      }
    },
  });

  app.onError((err, c) => {
    if (err instanceof SubmissionRefused) deps.metrics.refused.inc({ code: err.code });
    const { status, body, logCause, retryAfterSeconds } = toHttpError(err);
    if (retryAfterSeconds !== undefined) c.header('Retry-After', String(retryAfterSeconds));
    if (logCause) {
      // The caller learns nothing about it; the operator gets the whole error, with the request id.
      deps.log?.('error', status === 500 ? 'unexpected error' : 'dependency unavailable', {
        requestId: c.get('requestId'),
        method: c.req.method,
        path: c.req.path,
        code: body.error.code,
        error: describeCause(err),
      });
    }
    return c.json(body, status);
  });
  app.notFound((c) => errorJson(c, 404, 'NOT_FOUND', `no route ${echo(c.req.method)} ${echo(c.req.path)}`));

  app.use('*', accessLog(deps.log ?? noLog));
  const withProbes = app.route('/', probeRoutes(deps)).route('/', docsRoutes());
  app.use('/wallet/*', traceContext());

  const MAX_BODY = 32 * 1024 * 1024;
  const tooLarge = (c: Context) => errorJson(c, 413, 'TOO_LARGE', 'body too large');
  const streamedLimit = bodyLimit({ maxSize: MAX_BODY, onError: tooLarge });
  app.use('/wallet/*', async (c, next) => {
    // A declared length is enough (Node's parser holds the body to it). Only a chunked body goes through
    // hono's counting stream: touching the body stream makes @hono/node-server build a full web Request.
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      return Number(declared) > MAX_BODY ? tooLarge(c) : next();
    }
    return streamedLimit(c, next);
  });
  app.use('/wallet/*', async (c, next) => {
    const operator = inProcessPrincipal(c.env);
    if (operator) {
      c.set('principal', operator);
      return next();
    }
    if (deps.auth === 'none') {
      c.set('principal', { subject: 'anonymous', role: 'admin', party: undefined });
      return next();
    }
    const header = c.req.header('authorization') ?? '';
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    if (!m) {
      c.header('WWW-Authenticate', 'Bearer');
      return errorJson(c, 401, 'UNAUTHENTICATED', 'a bearer token is required');
    }
    c.set('principal', await deps.auth(m[1] as string));
    return next();
  });
  const tooDeep = (c: Context) =>
    errorJson(c, 400, 'INVALID_REQUEST', `the body nests deeper than ${MAX_JSON_DEPTH} levels`);
  app.use('/wallet/*', async (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    // A large body is decoded, depth-checked and parsed on the inspection pool: megabytes of text scanned and
    // parsed here would stall every other request (issue 29 item 10). The route's validator reads that value.
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    if (deps.inspector?.parsesOffThread(bytes.length)) {
      const parsed = await deps.inspector.parseBody(bytes);
      if ('tooDeep' in parsed) return tooDeep(c);
      const json =
        'value' in parsed ? Promise.resolve(parsed.value) : Promise.reject(new SyntaxError('not JSON'));
      json.catch(() => {}); // read only by a route that wants JSON; the validator answers 400 then
      c.req.json = <T>() => json as Promise<T>;
      return next();
    }
    // Decoded once here, as Request.text() decodes (UTF-8, a BOM dropped, bad bytes replaced), and kept for the
    // route's own parsing, before anything recurses on it. (Asked for the text after the bytes, hono would rebuild
    // the body as a web Response to decode it: a stream per request.)
    const text = UTF8.decode(bytes);
    // hono keeps each body form as a promise (its type says otherwise).
    (c.req.bodyCache as Record<string, unknown>).text = Promise.resolve(text);
    if (jsonTooDeep(text)) return tooDeep(c);
    return next();
  });
  // After the /wallet/* middleware: Hono runs what matches in the order it was added.
  const wallet = withProbes
    .route('/', submissionRoutes(deps))
    .route('/', lifecycleRoutes(deps))
    .route('/', intentRoutes(deps))
    .route('/', keyRoutes(deps))
    .route('/', partyRoutes(deps))
    .route('/', auditRoutes(deps))
    // events, stream and webhooks (issue 14 part B)
    .route('/', eventRoutes(deps))
    .route('/', webhookRoutes(deps))
    .route('/', approvalRoutes(deps))
    .route('/', signatureRoutes(deps))
    .route('/', policyRoutes(deps))
    .route('/', ledgerRoutes(deps))
    .route('/', operationsRoutes(deps));

  app.openAPIRegistry.register('BatchSubmissionItem', BatchItem);
  for (const probe of PROBE_DOCS) app.openAPIRegistry.registerPath(probe);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description:
      'A JWT whose role is a scope: `scope: quill:read | quill:submit | quill:approve | quill:admin` (space-separated ' +
      'OAuth 2 scopes; the highest counts; `role` or `roles` claims grant nothing). `sub` is required (it names the ' +
      'caller and scopes its Idempotency-Keys) and so is `exp`; an optional `party` claim scopes the token to one party.',
  });
  app.doc31('/openapi.json', {
    openapi: '3.1.0',
    // Relative: the document is served by the wallet it describes, whatever its public address.
    servers: [{ url: '/', description: 'this wallet' }],
    info: {
      title: 'Quill wallet API',
      version: '1',
      description:
        'Checks, signs and submits prepared transactions exactly once. Every error body is {"error":{"code","message"}}.',
    },
  });
  return wallet;
}

/** The wallet API with every route's types: what `hc<WalletApp>` calls. */
export type WalletApp = ReturnType<typeof createApp>;
