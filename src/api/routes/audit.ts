// The audit chain (admin role): GET /wallet/v1/audit. A party-scoped admin sees its party's entries only.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { errorResponses } from '../errors.ts';
import { json, security } from './shared.ts';

const AuditEntryView = z
  .object({
    id: z.string().openapi({ description: 'the stream entry id (cursor for `after`)' }),
    fields: z.array(z.tuple([z.string(), z.string()])).openapi({
      description:
        'the entry as stored, in order, ending with chainPrev and chainHash (see `quill audit verify`)',
    }),
  })
  .openapi('AuditEntry');

const auditRoute = createRoute({
  method: 'get',
  path: '/wallet/v1/audit',
  operationId: 'listAuditEntries',
  tags: ['audit'],
  summary:
    'The tamper-evident audit chain (admin): signatures, approval decisions, policy changes, key generation and disable',
  security,
  request: {
    query: z.object({
      after: z
        .string()
        .regex(/^\d{1,20}-\d{1,20}$/, 'a stream entry id such as 1732000000000-0')
        .optional(),
      limit: z.coerce.number().int().min(1).max(1000).default(100),
    }),
  },
  responses: {
    200: json(z.object({ items: z.array(AuditEntryView), next: z.string().nullable() }), 'Entries in order'),
    ...errorResponses(400, 401, 403, 503),
  },
});

export function auditRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>().openapi(auditRoute, async (c) => {
    const who = need(c, 'admin');
    const { after, limit } = c.req.valid('query');
    const entries = await deps.audit.entries(after ?? '0-0', limit);
    // A party-scoped admin sees its party's entries (the chain is checked whole, by an unscoped one).
    const items =
      who.party === undefined
        ? entries
        : entries.filter((e) => e.fields.some(([k, v]) => k === 'party' && v === who.party));
    return c.json({ items, next: entries.length === limit ? (entries.at(-1)?.id ?? null) : null }, 200);
  });
}
