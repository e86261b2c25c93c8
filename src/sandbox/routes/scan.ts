/**
 * The scan address: `POST /v0/activities` (also under `/api/scan`), public like the real scan. page_size
 * 1..1000 with the real server's messages, `begin_after_id` an exclusive cursor (empty = none, unknown →
 * empty page), newest first.
 */
import { Hono } from 'hono';
import { z } from 'zod';
import { listActivities } from '../activities.ts';
import type { SandboxState } from '../state/index.ts';

const Request = z.object({
  page_size: z.union([
    z.number().int(),
    z
      .string()
      .regex(/^-?\d+$/)
      .transform(Number),
  ]),
  begin_after_id: z.string().nullish(),
});

export function scanApp(state: SandboxState): Hono {
  const app = new Hono();
  const handler = async (c: import('hono').Context) => {
    const text = await c.req.text();
    let parsed: z.infer<typeof Request> | undefined;
    try {
      const r = Request.safeParse(JSON.parse(text));
      parsed = r.success ? r.data : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed)
      return c.text("The request content was malformed:\nObject is missing required member 'page_size'", 400);
    if (parsed.page_size < 1) return c.json({ error: 'Limit must be at least 1.' }, 400);
    if (parsed.page_size > 1000)
      return c.json({ error: `Exceeded limit maximum (${parsed.page_size} > 1000).` }, 400);
    return c.json({
      activities: listActivities(state, parsed.page_size, parsed.begin_after_id || undefined),
    });
  };
  app.post('/v0/activities', handler);
  app.post('/api/scan/v0/activities', handler);
  app.notFound((c) => c.json({ error: `The requested resource could not be found: ${c.req.url}` }, 404));
  return app;
}
