// The network activity feed as one party sees it (INTERFACE.md 4.8): GET /wallet/v1/parties/{party}/activities
// (read role; a party token sees only its own party, any other looks like it does not exist).
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import type { ListActivityResponse, ListActivityResponseItem } from '@quill/canton/scan';
import { type AppDeps, type AppEnv, ledgerReadsOf, need } from '../../context.ts';
import { ApiError, errorResponses, ledgerReadError } from '../../errors.ts';
import { PartyActivities } from '../../schemas.ts';
import { security } from '../shared.ts';

const activities = createRoute({
  method: 'get',
  path: '/wallet/v1/parties/{party}/activities',
  operationId: 'listPartyActivities',
  tags: ['ledger'],
  summary: "The network activity feed (INTERFACE.md 4.8), only the party's activities",
  description:
    "One page of the feed (`page_size` activities after `begin_after_id`, in the feed's order: newest first on a deployed scan, oldest first on the sandbox) filtered to those that " +
    'concern the party (sender, receiver, transfer-instruction receiver, mint or tap owner): a page may hold fewer ' +
    'than `page_size`, even none; continue with `next_begin_after_id` until it is null (the feed is exhausted).',
  security,
  request: {
    params: z.object({ party: z.string().min(1).max(255) }),
    query: z.object({
      begin_after_id: z.string().min(1).max(1024).optional(),
      page_size: z.coerce.number().int().min(1).max(1000).default(100),
    }),
  },
  responses: {
    200: {
      description: "The party's activities on this page of the feed",
      content: { 'application/json': { schema: PartyActivities } },
    },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

/** Whether a feed activity concerns the party. */
function concerns(item: ListActivityResponseItem, party: string): boolean {
  const t = item.transfer;
  if (
    t &&
    (t.sender.party === party ||
      t.receivers.some((r) => r.party === party) ||
      t.transferInstructionReceiver === party)
  )
    return true;
  return item.mint?.coin_owner === party || item.tap?.coin_owner === party;
}

export function activityRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>().openapi(activities, async (c) => {
    const p = need(c, 'read');
    const { party } = c.req.valid('param');
    if (p.party !== undefined && p.party !== party)
      throw new ApiError(404, 'NOT_FOUND', `no party ${echo(party)}`);
    const feed = ledgerReadsOf(deps).activities;
    if (!feed) throw new ApiError(503, 'UNAVAILABLE', 'no activity feed is configured (SCAN_URL)');
    const q = c.req.valid('query');
    let page: ListActivityResponse;
    try {
      page = await feed({
        page_size: q.page_size,
        ...(q.begin_after_id ? { begin_after_id: q.begin_after_id } : {}),
      });
    } catch (err) {
      return ledgerReadError(err, 'the activity feed');
    }
    const last = page.activities.at(-1)?.event_id ?? null;
    return c.json(
      {
        activities: page.activities.filter((a) => concerns(a, party)),
        // As the feed itself: a short page is not the end, only an empty one is.
        next_begin_after_id: last,
      },
      200,
    );
  });
}
