/** Shared plumbing of the sandbox's HTTP layer: context type, body decoding like tapir, error answers. */
import type { HttpBindings } from '@hono/node-server';
import type { Endpoint, Params } from '@quill/canton/ledger';
import { pathParams } from '@quill/canton/ledger';
import type { Context, Hono } from 'hono';
import type { z } from 'zod';
import type { Authenticator, Caller } from '../auth.ts';
import { BodyDecodeError, err, SandboxError, violationError } from '../errors.ts';
import type { Faults } from '../faults.ts';
import type { SandboxState } from '../state/index.ts';

export interface SandboxOptions {
  /** `http-list-max-elements-limit` (default 200). */
  maxListElements: number;
  /** `http-list-wait-time` for open-ended streams (default 500 ms). */
  listWaitMs: number;
  /**
   * How often the offset checkpoint cache takes the ledger end (the participant's
   * `index-service.offset-checkpoint-cache-update-interval`, default 15 s). Open-ended streams carry the cached
   * checkpoint once they have passed its offset; bounded ranges never carry one.
   */
  checkpointIntervalMs: number;
  /**
   * After this long without an element, an open-ended stream looks at the cache again
   * (`index-service.idle-stream-offset-checkpoint-timeout`, default 60 s); the first look is at 500 ms.
   */
  idleCheckpointTimeoutMs: number;
  /**
   * The JSON server's `http-ledger-api.request-timeout` (default 20 s): a request not answered by then gets
   * pekko-http's `503 text/plain`, while the work behind it goes on.
   */
  requestTimeoutMs: number;
  /**
   * pekko-http's `idle-timeout` (default 60 s; the JSON server sets only the request timeout): a connection without
   * traffic either way that long is closed. It applies to an upgraded websocket too, and the participant sends no
   * keep-alive pings (`periodic-keep-alive-max-idle = infinite`): a quiet stream's socket is dropped (1006).
   */
  idleTimeoutMs: number;
}

/** The participant's defaults (canton 3.5: `IndexServiceConfig`, `JsonApiConfig`, `WebsocketConfig`). */
export const DEFAULT_OPTIONS: SandboxOptions = {
  maxListElements: 200,
  listWaitMs: 500,
  checkpointIntervalMs: 15_000,
  idleCheckpointTimeoutMs: 60_000,
  requestTimeoutMs: 20_000,
  idleTimeoutMs: 60_000,
};

/** pekko-http's answer to a request past `request-timeout` (`HttpServerBluePrint.TimeoutAccessImpl`). */
export const REQUEST_TIMEOUT_TEXT =
  'The server was not able to produce a timely response to your request.\r\nPlease try again in a short while!';

/**
 * The JSON server's request timeout (`HttpService.serverBinding`: `withRequestTimeout`): the answer is a
 * `503 text/plain` once `ms` pass; the handler goes on (an execute still commits), its answer is dropped.
 */
export function requestTimeout(ms: number) {
  return async (c: Ctx, next: () => Promise<void>): Promise<Response | undefined> => {
    // pekko-http counts from the end of the request entity; reading it now also keeps it for a handler that
    // outlives the answer (the connection may have moved on by then).
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') await c.req.text();
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), ms);
    });
    const handled = next().then(
      () => 'done' as const,
      () => 'done' as const,
    );
    const first = await Promise.race([handled, expired]);
    clearTimeout(timer);
    if (first === 'timeout') {
      return new Response(REQUEST_TIMEOUT_TEXT, {
        status: 503,
        headers: { 'content-type': 'text/plain; charset=UTF-8' },
      });
    }
    return undefined;
  };
}

export interface Services {
  state: SandboxState;
  auth: Authenticator;
  faults: Faults;
  options: SandboxOptions;
  /** The participant this listener answers as (an extra host, `SandboxConfig.hosts`); default `state.participantId`. */
  participantId?: string;
}

export type Env = { Bindings: HttpBindings; Variables: { caller: Caller } };
export type Ctx = Context<Env>;
export type App = Hono<Env>;

/** A declared endpoint's request as the handler receives it: decoded, authorized and checked. */
export interface Request<P extends string, B extends z.ZodType, Q extends z.ZodType> {
  body: z.output<B>;
  query: z.output<Q>;
  params: Params<P>;
}

export interface ServeOptions<P extends string, B extends z.ZodType, Q extends z.ZodType> {
  /**
   * Runs between decoding and the endpoint's rule, as the participant's authorization interceptor runs before
   * its request validation. Throws to refuse.
   */
  authorize?: (c: Ctx, req: Request<P, B, Q>) => void;
  /**
   * Runs after `authorize` and before the rule: a check the participant makes before some of the rule's (the
   * ledger end, before the range). Throws to refuse.
   */
  precheck?: (c: Ctx, req: Request<P, B, Q>) => void;
}

/**
 * Serves a declared ledger endpoint: its method and path, its body and query decoded with its schemas (the
 * participant's decoder answers 400 text on failure), `authorize`, `precheck`, then its rule (the participant's
 * error for each violation), then `handle`. A rule the participant checks after the commit (`ruleAfterCommit`)
 * is the handler's to apply.
 */
export function serve<P extends string, B extends z.ZodType, Q extends z.ZodType, R extends z.ZodType>(
  app: App,
  ep: Endpoint<P, B, Q, R>,
  handle: (c: Ctx, req: Request<P, B, Q>) => Response | Promise<Response>,
  options: ServeOptions<P, B, Q> = {},
): void {
  const names = pathParams(ep.path);
  const route = ep.path.replace(/\{([^}]+)\}/g, (_m, name: string) => `:${routeParam(name)}`);
  const method = ep.method.toLowerCase() as 'get' | 'post' | 'patch' | 'delete';
  app[method](route, async (c) => {
    const params = Object.fromEntries(names.map((n) => [n, param(c, routeParam(n))])) as Params<P>;
    const query = decodeQuery(c, ep.query);
    const body = (
      ep.method === 'GET' || ep.method === 'DELETE' ? undefined : await readJson(c, ep.body)
    ) as z.output<B>;
    const req = { body, query, params };
    options.authorize?.(c, req);
    options.precheck?.(c, req);
    const violation = ep.ruleAfterCommit ? undefined : ep.rule?.(body, params, query);
    if (violation) throw violationError(violation);
    return handle(c, req);
  });
}

/** Hono path parameters are identifiers: `user-id` is routed as `user_id`. */
function routeParam(name: string): string {
  return name.replace(/-/g, '_');
}

function decodeQuery<Q extends z.ZodType>(c: Ctx, schema: Q): z.output<Q> {
  // A repeated parameter (`parties=a&parties=b`) is a list; a single one stays a string.
  const raw = Object.fromEntries(
    Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v] as const),
  );
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const names = [...new Set(parsed.error.issues.map((i) => String(i.path[0] ?? '')))].join(' or ');
  throw new BodyDecodeError(`Invalid value for: query parameter ${names}`);
}

/** Reads a JSON body (no Content-Type needed, as the SDK sends it) and decodes it with `schema`. */
export async function readJson<T extends z.ZodType>(c: Ctx, schema: T): Promise<z.output<T>> {
  return decodeJson(await c.req.text(), schema);
}

/** Decodes a JSON text with `schema`; a failure is a `BodyDecodeError` naming what could not be read. */
export function decodeJson<T extends z.ZodType>(text: string, schema: T): z.output<T> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new BodyDecodeError(`Invalid value for: body (expected json value got '${text.slice(0, 20)}...')`);
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || 'body';
    throw new BodyDecodeError(`Invalid value for: body (${where}: ${issue?.message ?? 'invalid'})`);
  }
  return parsed.data;
}

export function errorResponse(c: Ctx, e: unknown): Response {
  if (e instanceof SandboxError) {
    return c.json(e.body(), e.status as 400);
  }
  if (e instanceof BodyDecodeError) return c.text(e.message, 400);
  const internal = err.internal();
  return c.json(internal.body(), 500);
}

export function caller(c: Ctx): Caller {
  return c.get('caller');
}

/** Path parameter, percent-decoded (the SDK encodes `::` as `%3A%3A`). */
function param(c: Ctx, name: string): string {
  const raw = c.req.param(name) ?? '';
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}
