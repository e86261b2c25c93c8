/**
 * The scan address: `POST /v0/activities` (also under `/api/scan`), public like the real scan. page_size
 * 1..1000 with the real server's messages; the page holds the activities whose event id is greater than
 * `begin_after_id` (empty = none), oldest first (INTERFACE.md 4.8; ../activities.ts).
 */

import { checkListActivityRequest, ListActivityRequest } from '@quill/canton/scan';
import { Hono } from 'hono';
import { listActivities } from '../activities.ts';
import type { SandboxState } from '../state/index.ts';

export function scanApp(state: SandboxState): Hono {
  const app = new Hono();
  const handler = async (c: import('hono').Context) => {
    const text = await c.req.text();
    let parsed: ListActivityRequest | undefined;
    try {
      const r = ListActivityRequest.safeParse(JSON.parse(text));
      parsed = r.success ? r.data : undefined;
    } catch {
      parsed = undefined;
    }
    if (!parsed)
      return c.text("The request content was malformed:\nObject is missing required member 'page_size'", 400);
    const problem = checkListActivityRequest(parsed);
    if (problem) return c.json({ error: problem }, 400);
    return c.json({
      activities: listActivities(state, parsed.page_size, parsed.begin_after_id || undefined),
    });
  };
  app.post('/v0/activities', handler);
  app.post('/api/scan/v0/activities', handler);
  app.notFound((c) => c.json({ error: `The requested resource could not be found: ${c.req.url}` }, 404));
  return app;
}
