// Webhook administration (admin role): /wallet/v1/webhooks. A party-scoped admin creates, sees and deletes only
// webhooks filtered to its own party (another party's webhook is 404); a webhook for every party needs an
// unscoped admin. The signing secret is in the answer to create and rotate-secret only.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import type { Context } from 'hono';
import { checkTarget, EVENT_TYPES, isEventId, WEBHOOK_ID, type Webhook } from '../../events/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import { eventsDeps } from './events.ts';
import { json, security } from './shared.ts';

const WebhookView = z
  .object({
    id: z.string(),
    url: z.string(),
    types: z.array(z.enum(EVENT_TYPES)),
    party: z.string().nullable(),
    description: z.string().nullable(),
    createdAt: z.string(),
    secretRotatedAt: z.string().nullable(),
    previousSecretValidUntil: z.string().nullable(),
  })
  .openapi('Webhook');
const WithSecret = WebhookView.extend({
  secret: z.string().openapi({ description: 'the signing secret: shown only here, store it now' }),
}).openapi('WebhookWithSecret');
const NewWebhook = z
  .object({
    url: z.string().min(1).max(2048),
    types: z
      .array(z.enum(EVENT_TYPES))
      .max(EVENT_TYPES.length)
      .default([])
      .openapi({ description: 'empty: every type' }),
    party: z
      .string()
      .min(1)
      .max(512)
      .nullable()
      .optional()
      .openapi({ description: 'only this party (absent: every party)' }),
    description: z.string().max(500).nullable().optional(),
  })
  .strict()
  .openapi('NewWebhook');
const IdParam = z.object({ id: z.string().max(100) });
const DeliveryView = z
  .object({
    eventId: z.string(),
    party: z.string(),
    state: z.enum(['pending', 'delivered', 'dead']),
    attempts: z.number().int(),
    queuedAt: z.string(),
    firstAttemptAt: z.string().optional(),
    lastAttemptAt: z.string().optional(),
    nextAttemptAt: z.string().optional(),
    lastStatusCode: z.number().int().nullable().optional(),
    lastLatencyMs: z.number().optional(),
    lastError: z.string().nullable().optional(),
    attemptLog: z.array(
      z.object({
        eventId: z.string(),
        attempt: z.number().int(),
        at: z.string(),
        statusCode: z.number().int().nullable(),
        latencyMs: z.number(),
        error: z.string().nullable(),
      }),
    ),
  })
  .openapi('WebhookDelivery');

const tags = ['webhooks'];
const create = createRoute({
  method: 'post',
  path: '/wallet/v1/webhooks',
  operationId: 'createWebhook',
  tags,
  summary: 'Subscribe a URL to events (admin); the answer holds the signing secret, shown once',
  security,
  request: { body: { required: true, content: { 'application/json': { schema: NewWebhook } } } },
  responses: {
    201: json(WithSecret, 'The webhook and its secret'),
    ...errorResponses(400, 401, 403, 422, 503),
  },
});
const list = createRoute({
  method: 'get',
  path: '/wallet/v1/webhooks',
  operationId: 'listWebhooks',
  tags,
  summary: 'Webhooks (admin)',
  security,
  responses: {
    200: json(z.object({ items: z.array(WebhookView) }), 'Webhooks'),
    ...errorResponses(401, 403, 503),
  },
});
const get = createRoute({
  method: 'get',
  path: '/wallet/v1/webhooks/{id}',
  operationId: 'getWebhook',
  tags,
  summary: 'One webhook (admin)',
  security,
  request: { params: IdParam },
  responses: { 200: json(WebhookView, 'The webhook'), ...errorResponses(400, 401, 403, 404, 503) },
});
const del = createRoute({
  method: 'delete',
  path: '/wallet/v1/webhooks/{id}',
  operationId: 'deleteWebhook',
  tags,
  summary: 'Delete a webhook and its pending deliveries (admin)',
  security,
  request: { params: IdParam },
  responses: { 204: { description: 'Deleted' }, ...errorResponses(400, 401, 403, 404, 503) },
});
const rotate = createRoute({
  method: 'post',
  path: '/wallet/v1/webhooks/{id}/rotate-secret',
  operationId: 'rotateWebhookSecret',
  tags,
  summary: 'New signing secret; the old one also signs until WEBHOOK_SECRET_GRACE_SECONDS pass (admin)',
  security,
  request: { params: IdParam },
  responses: {
    200: json(WithSecret, 'The webhook and its new secret'),
    ...errorResponses(400, 401, 403, 404, 503),
  },
});
const deliveries = createRoute({
  method: 'get',
  path: '/wallet/v1/webhooks/{id}/deliveries',
  operationId: 'listWebhookDeliveries',
  tags,
  summary: 'Delivery log, newest event first: state, attempts, status codes, latency, errors (admin)',
  security,
  request: {
    params: IdParam,
    query: z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) }),
  },
  responses: {
    200: json(z.object({ items: z.array(DeliveryView) }), 'Deliveries'),
    ...errorResponses(400, 401, 403, 404, 503),
  },
});
const redeliver = createRoute({
  method: 'post',
  path: '/wallet/v1/webhooks/{id}/deliveries/{eventId}/redeliver',
  operationId: 'redeliverWebhookEvent',
  tags,
  summary: 'Send an event to the webhook again, after the events already queued for its party (admin)',
  security,
  request: { params: IdParam.extend({ eventId: z.string().max(50) }) },
  responses: {
    202: json(DeliveryView.omit({ attemptLog: true }), 'Queued'),
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

export function webhookRoutes(deps: AppDeps) {
  /** The webhook if this admin may see it; otherwise 404 (it is not revealed). */
  const visible = async (c: Context<AppEnv>, id: string): Promise<Webhook> => {
    const who = need(c, 'admin');
    if (!WEBHOOK_ID.test(id)) throw new ApiError(400, 'INVALID_REQUEST', 'id: not a webhook id');
    const h = await eventsDeps(deps).hooks.get(id);
    if (!h || (who.party !== undefined && h.party !== who.party))
      throw new ApiError(404, 'NOT_FOUND', `no webhook ${echo(id)}`);
    return h;
  };

  return new OpenAPIHono<AppEnv>()
    .openapi(create, async (c) => {
      const who = need(c, 'admin');
      const ev = eventsDeps(deps);
      const body = c.req.valid('json');
      const party = body.party ?? null;
      if (who.party !== undefined && party !== who.party)
        throw new ApiError(403, 'FORBIDDEN', 'a party-scoped token may only subscribe to its own party');
      const problem = await checkTarget(body.url, ev.allowPrivateTargets);
      if (problem === 'INVALID_URL')
        throw new ApiError(400, 'INVALID_REQUEST', 'url: must be an http or https URL without credentials');
      if (problem === 'PRIVATE_TARGET')
        throw new ApiError(
          422,
          'PRIVATE_TARGET',
          'url: the host resolves to a loopback or private address (WEBHOOK_ALLOW_PRIVATE_TARGETS=true allows it)',
        );
      if (problem === 'UNRESOLVABLE')
        throw new ApiError(422, 'UNRESOLVABLE_TARGET', 'url: the host does not resolve');
      const { webhook, secret } = await ev.hooks.create({
        url: body.url,
        types: body.types,
        party,
        description: body.description ?? null,
      });
      return c.json({ ...webhook, secret }, 201);
    })
    .openapi(list, async (c) => {
      const who = need(c, 'admin');
      const all = await eventsDeps(deps).hooks.list();
      return c.json({ items: who.party === undefined ? all : all.filter((h) => h.party === who.party) }, 200);
    })
    .openapi(get, async (c) => c.json(await visible(c, c.req.valid('param').id), 200))
    .openapi(del, async (c) => {
      const h = await visible(c, c.req.valid('param').id);
      const ev = eventsDeps(deps);
      await ev.hooks.delete(h.id);
      await ev.deliveries.forget(h.id);
      return c.body(null, 204);
    })
    .openapi(rotate, async (c) => {
      const h = await visible(c, c.req.valid('param').id);
      const ev = eventsDeps(deps);
      const { webhook, secret } = await ev.hooks.rotate(h.id, ev.secretGraceMs);
      return c.json({ ...webhook, secret }, 200);
    })
    .openapi(deliveries, async (c) => {
      const h = await visible(c, c.req.valid('param').id);
      const items = await eventsDeps(deps).deliveries.list(h.id, c.req.valid('query').limit);
      return c.json({ items }, 200);
    })
    .openapi(redeliver, async (c) => {
      const { id, eventId } = c.req.valid('param');
      const h = await visible(c, id);
      if (!isEventId(eventId))
        throw new ApiError(400, 'INVALID_EVENT_ID', 'eventId: not an event id (<ms>-<seq>)');
      const ev = eventsDeps(deps);
      const e = await ev.log.get(eventId);
      // Only events this webhook could have received: its party filter (and the caller's scope) applies.
      if (!e || (h.party !== null && e.party !== h.party))
        throw new ApiError(
          404,
          'NOT_FOUND',
          `no event ${echo(eventId)} for this webhook (unknown or past retention)`,
        );
      const s = await ev.deliveries.redeliver(h.id, eventId);
      if (!s) throw new ApiError(404, 'NOT_FOUND', `no event ${echo(eventId)}`);
      return c.json(s, 202);
    });
}
