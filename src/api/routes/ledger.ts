// Ledger reads through the wallet's own ledger client, as the caller's party (read role):
// GET /wallet/v1/ledger/transactions/{updateId} and GET /wallet/v1/ledger/offsets/{offset} (INTERFACE.md
// 4.3–4.5). A party token reads as its party; an unscoped token names the party with `?party=`.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import { isLedgerError } from '@quill/canton/ledger';
import type { ListActivityResponse, ListActivityResponseItem } from '@quill/canton/scan';
import type { Principal } from '../../auth/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';
import {
  LedgerTransaction,
  LedgerUpdate,
  LedgerUpdates,
  LedgerUser,
  PartyActivities,
  VettedPackagesPage,
} from '../schemas.ts';

const security = [{ bearer: [] }];

const PartyQuery = z.object({
  party: z.string().min(1).max(255).optional().openapi({
    description: "The requesting party (an unscoped token must name one; a party token's own by default)",
  }),
});

const byId = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/transactions/{updateId}',
  tags: ['ledger'],
  summary: 'One transaction by update id, as the party sees it',
  security,
  request: { params: z.object({ updateId: z.string().min(1).max(512) }), query: PartyQuery },
  responses: {
    200: { description: 'The transaction', content: { 'application/json': { schema: LedgerTransaction } } },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const byOffset = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/offsets/{offset}',
  tags: ['ledger'],
  summary: 'The transaction at an offset, as the party sees it',
  security,
  request: {
    params: z.object({ offset: z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER) }),
    query: PartyQuery,
  },
  responses: {
    200: { description: 'The transaction', content: { 'application/json': { schema: LedgerTransaction } } },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const list = (what: string) =>
  z
    .string()
    .max(10_000)
    .optional()
    .openapi({ description: `comma-separated ${what}` })
    .transform((v) => (v ? v.split(',').filter((x) => x.length > 0) : undefined));

const vetted = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/vetted-packages',
  tags: ['ledger'],
  summary: 'Vetted packages (INTERFACE.md 4.1): package and topology filters, page tokens',
  security,
  request: {
    query: z.object({
      packageIds: list('package ids'),
      packageNamePrefixes: list('package name prefixes'),
      participantIds: list('participant ids'),
      synchronizerIds: list('synchronizer ids'),
      pageToken: z.string().max(4096).optional(),
      pageSize: z.coerce.number().int().min(1).max(1000).optional(),
    }),
  },
  responses: {
    200: {
      description: "The ledger's answer: `vettedPackages` and `nextPageToken` (empty on the last page)",
      content: { 'application/json': { schema: VettedPackagesPage } },
    },
    ...errorResponses(400, 401, 403, 503),
  },
});

const activities = createRoute({
  method: 'get',
  path: '/wallet/v1/parties/{party}/activities',
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

const offset = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const updates = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/updates',
  tags: ['ledger'],
  summary: 'Updates between two offsets, in either order, as the party sees them (INTERFACE.md 4.2)',
  security,
  request: {
    query: PartyQuery.extend({
      beginExclusive: z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      endInclusive: offset,
      descendingOrder: z.enum(['true', 'false']).default('false'),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
  },
  responses: {
    200: { description: 'The updates', content: { 'application/json': { schema: LedgerUpdates } } },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const updateAt = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/updates/offsets/{offset}',
  tags: ['ledger'],
  summary: 'The update at an offset, as the party sees it (INTERFACE.md 4.5)',
  security,
  request: { params: z.object({ offset }), query: PartyQuery },
  responses: {
    200: { description: 'The update', content: { 'application/json': { schema: LedgerUpdate } } },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const getUser = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/user',
  tags: ['ledger'],
  summary: "The wallet's own ledger user (unscoped admin)",
  security,
  responses: {
    200: { description: 'The user', content: { 'application/json': { schema: LedgerUser } } },
    ...errorResponses(401, 403, 503),
  },
});

const patchUser = createRoute({
  method: 'patch',
  path: '/wallet/v1/ledger/user',
  tags: ['ledger'],
  summary: "Changes the wallet's ledger user through an update mask (INTERFACE.md 4.6; unscoped admin)",
  description:
    'Pass `metadata.resourceVersion` from the last read: a stale version is a 409 CONFLICT (someone changed the user ' +
    'since), nothing is changed.',
  security,
  request: {
    body: {
      required: true,
      content: {
        'application/json': {
          schema: z
            .object({
              user: z.object({
                primaryParty: z.string().max(512).optional(),
                isDeactivated: z.boolean().optional(),
                metadata: z
                  .object({
                    resourceVersion: z.string().max(64).optional(),
                    annotations: z.record(z.string().max(317), z.string().max(256 * 1024)).optional(),
                  })
                  .optional(),
              }),
              updateMask: z.object({ paths: z.array(z.string().min(1).max(200)).min(1).max(20) }),
            })
            .strict()
            .openapi('LedgerUserUpdate'),
        },
      },
    },
  },
  responses: {
    200: { description: 'The updated user', content: { 'application/json': { schema: LedgerUser } } },
    ...errorResponses(400, 401, 403, 409, 503),
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

/** The wallet's ledger user acts for every party: only an admin without party scope reads or changes it. */
function unscopedAdmin(p: Principal): void {
  if (p.role !== 'admin' || p.party !== undefined)
    throw new ApiError(403, 'FORBIDDEN', "the wallet's ledger user needs an admin token without party scope");
}

/** The party the read is made as. */
function requester(p: Principal, asked: string | undefined): string {
  if (p.party !== undefined) {
    if (asked !== undefined && asked !== p.party) throw new ApiError(404, 'NOT_FOUND', 'no such transaction');
    return p.party;
  }
  if (asked === undefined)
    throw new ApiError(400, 'INVALID_REQUEST', 'party: required with an unscoped token');
  return asked;
}

/** Ledger refusals of a read: not found (or not visible) is a 404, a pruned offset a 404 saying so. */
function ledgerRead(err: unknown, what: string): never {
  if (isLedgerError(err)) {
    if (err.code === 'CONCURRENT_USER_UPDATE_DETECTED')
      throw new ApiError(
        409,
        'CONFLICT',
        `${what} was changed since it was read (stale resourceVersion): read it again`,
      );
    if (err.code === 'UPDATE_NOT_FOUND' || err.status === 404)
      throw new ApiError(404, 'NOT_FOUND', `${what} not found or not visible to the party`);
    if (err.code === 'PARTICIPANT_PRUNED_DATA_ACCESSED')
      throw new ApiError(404, 'PRUNED', `${what} lies in the pruned part of the ledger`);
    if (
      err.code === 'INVALID_ARGUMENT' ||
      (err.status !== undefined && err.status >= 400 && err.status < 500)
    )
      throw new ApiError(400, 'INVALID_REQUEST', err.message.split('\n')[0] ?? 'invalid request');
    throw new ApiError(503, 'UNAVAILABLE', 'the ledger is unavailable, try again');
  }
  throw err;
}

export function ledgerRoutes(app: OpenAPIHono<AppEnv>, deps: AppDeps): void {
  const reads = () => {
    if (!deps.ledgerReads)
      throw new ApiError(503, 'UNAVAILABLE', 'ledger reads are not available in this process');
    return deps.ledgerReads;
  };
  app.openapi(byId, async (c) => {
    const p = need(c, 'read');
    const { updateId } = c.req.valid('param');
    const party = requester(p, c.req.valid('query').party);
    try {
      return c.json({ transaction: await reads().transactionById(updateId, party) }, 200);
    } catch (err) {
      return ledgerRead(err, `transaction ${echo(updateId)}`);
    }
  });
  app.openapi(byOffset, async (c) => {
    const p = need(c, 'read');
    const { offset } = c.req.valid('param');
    const party = requester(p, c.req.valid('query').party);
    try {
      return c.json({ transaction: await reads().transactionByOffset(offset, party) }, 200);
    } catch (err) {
      return ledgerRead(err, `offset ${offset}`);
    }
  });
  app.openapi(updates, async (c) => {
    const p = need(c, 'read');
    const q = c.req.valid('query');
    const party = requester(p, q.party);
    const descendingOrder = q.descendingOrder === 'true';
    if (q.beginExclusive >= q.endInclusive)
      throw new ApiError(400, 'INVALID_REQUEST', 'beginExclusive must be less than endInclusive');
    try {
      const items = await reads().updates(
        { beginExclusive: q.beginExclusive, endInclusive: q.endInclusive, descendingOrder, limit: q.limit },
        party,
      );
      return c.json({ updates: items }, 200);
    } catch (err) {
      return ledgerRead(err, `updates ${q.beginExclusive}..${q.endInclusive}`);
    }
  });
  app.openapi(updateAt, async (c) => {
    const p = need(c, 'read');
    const { offset: at } = c.req.valid('param');
    const party = requester(p, c.req.valid('query').party);
    try {
      return c.json({ update: await reads().updateByOffset(at, party) }, 200);
    } catch (err) {
      return ledgerRead(err, `update at offset ${at}`);
    }
  });
  app.openapi(getUser, async (c) => {
    unscopedAdmin(c.get('principal'));
    try {
      return c.json({ user: await reads().user() }, 200);
    } catch (err) {
      return ledgerRead(err, 'the ledger user');
    }
  });
  app.openapi(patchUser, async (c) => {
    unscopedAdmin(c.get('principal'));
    const body = c.req.valid('json');
    try {
      return c.json(
        { user: await reads().updateUser({ user: body.user, paths: body.updateMask.paths }) },
        200,
      );
    } catch (err) {
      return ledgerRead(err, 'the ledger user');
    }
  });
  app.openapi(vetted, async (c) => {
    need(c, 'read'); // vetting is the same for every party: any reader may see it
    const q = c.req.valid('query');
    try {
      const page = await reads().vettedPackages({
        ...(q.packageIds || q.packageNamePrefixes
          ? {
              packageMetadataFilter: {
                ...(q.packageIds ? { packageIds: q.packageIds } : {}),
                ...(q.packageNamePrefixes ? { packageNamePrefixes: q.packageNamePrefixes } : {}),
              },
            }
          : {}),
        ...(q.participantIds || q.synchronizerIds
          ? {
              topologyStateFilter: {
                ...(q.participantIds ? { participantIds: q.participantIds } : {}),
                ...(q.synchronizerIds ? { synchronizerIds: q.synchronizerIds } : {}),
              },
            }
          : {}),
        ...(q.pageToken ? { pageToken: q.pageToken } : {}),
        ...(q.pageSize ? { pageSize: q.pageSize } : {}),
      });
      return c.json(page, 200);
    } catch (err) {
      return ledgerRead(err, 'vetted packages');
    }
  });
  app.openapi(activities, async (c) => {
    const p = need(c, 'read');
    const { party } = c.req.valid('param');
    if (p.party !== undefined && p.party !== party)
      throw new ApiError(404, 'NOT_FOUND', `no party ${echo(party)}`);
    const feed = reads().activities;
    if (!feed) throw new ApiError(503, 'UNAVAILABLE', 'no activity feed is configured (SCAN_URL)');
    const q = c.req.valid('query');
    let page: ListActivityResponse;
    try {
      page = await feed({
        page_size: q.page_size,
        ...(q.begin_after_id ? { begin_after_id: q.begin_after_id } : {}),
      });
    } catch (err) {
      return ledgerRead(err, 'the activity feed');
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
