// Health, readiness and Prometheus metrics: served by the API, and alone by a worker-only process.
import { createRoute, z } from '@hono/zod-openapi';
import { Hono } from 'hono';
import type { Redis } from 'ioredis';
import { exposition, type Registry } from '../metrics.ts';

export interface ProbeDeps {
  redis: Redis;
  /** Resolves when the ledger answers; rejects otherwise. */
  ledgerReady: () => Promise<void>;
  /** The process's metrics (src/metrics.ts). */
  registry: Registry;
  /**
   * Whether the ledger accepts the wallet's credentials (src/server/ledger-auth.ts). A 401 also fails the ledger
   * check; a 403 refuses executions, not the probe's call, so it is detail: it names what to fix.
   */
  ledgerAuth?: () => { ok: boolean; code?: string; since?: string; message?: string };
  /** The key store, where this process has one: /readyz counts key files that fail to open. */
  keys?: { survey(): Promise<{ problems: { file: string; problem: string }[] }> };
}

/** How long /readyz waits for each dependency before calling it not ready. */
const PROBE_TIMEOUT_MS = 2000;

/** `p`, or a rejection after `ms` (the timer cleared either way). */
export function within<T>(ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const Readiness = z
  .object({
    status: z.enum(['ok', 'unavailable']),
    redis: z.boolean(),
    ledger: z.boolean(),
    ledgerAuth: z
      .object({
        ok: z.boolean(),
        code: z.string().optional(),
        since: z.string().optional(),
        message: z.string().optional(),
      })
      .optional()
      .openapi({ description: "whether the ledger accepts the wallet's credentials" }),
    keys: z
      .object({ ok: z.boolean(), broken: z.number().int().nullable() })
      .optional()
      .openapi({ description: 'key files that fail to open (named to admins by GET /wallet/v1/keys)' }),
  })
  .openapi('Readiness');

/** The probes as the OpenAPI document declares them (the routes below are plain Hono: a worker serves them too). */
export const PROBE_DOCS = [
  createRoute({
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tags: ['probes'],
    summary: 'Liveness: 200 while the process runs (no token)',
    responses: {
      200: {
        description: 'Alive',
        content: { 'application/json': { schema: z.object({ status: z.literal('ok') }) } },
      },
    },
  }),
  createRoute({
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tags: ['probes'],
    summary: 'Readiness: 200 when Redis and the ledger answer within 2 s, else 503 (no token)',
    responses: {
      200: { description: 'Ready', content: { 'application/json': { schema: Readiness } } },
      503: { description: 'Not ready', content: { 'application/json': { schema: Readiness } } },
    },
  }),
  createRoute({
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tags: ['probes'],
    summary: 'Prometheus metrics, text exposition format (no token)',
    responses: {
      200: { description: 'The metrics', content: { 'text/plain': { schema: z.string() } } },
    },
  }),
];

/** Mounted by the API's app, or served alone by a worker-only process. */
export function probeRoutes(deps: ProbeDeps) {
  return new Hono()
    .get('/healthz', (c) => c.json({ status: 'ok' }))
    .get('/readyz', async (c) => {
      const [redis, ledger, keys] = await Promise.allSettled([
        // A Redis that is down would hold the ping through every reconnect attempt: the probe answers in time.
        within(PROBE_TIMEOUT_MS, deps.redis.ping()),
        within(PROBE_TIMEOUT_MS, deps.ledgerReady()),
        deps.keys?.survey(),
      ]);
      const ok = redis.status === 'fulfilled' && ledger.status === 'fulfilled';
      // Read after the ledger check, whose answer it includes.
      const ledgerAuth = deps.ledgerAuth?.();
      // Key files are detail, not readiness: one damaged key must not take every other key out of service. The
      // probe needs no token, so it gives a count; the files are named to admins by GET /wallet/v1/keys.
      const keyDetail =
        deps.keys === undefined
          ? {}
          : keys.status === 'fulfilled' && keys.value
            ? { keys: { ok: keys.value.problems.length === 0, broken: keys.value.problems.length } }
            : { keys: { ok: false, broken: null } };
      return c.json(
        {
          status: ok ? 'ok' : 'unavailable',
          redis: redis.status === 'fulfilled',
          ledger: ledger.status === 'fulfilled',
          ...(ledgerAuth ? { ledgerAuth } : {}),
          ...keyDetail,
        },
        ok ? 200 : 503,
      );
    })
    .get('/metrics', async (c) => {
      c.header('content-type', deps.registry.contentType);
      return c.body(await exposition(deps.registry));
    });
}
