// The ledger's query side through the wallet's own ledger client, GET|PATCH /wallet/v1/ledger/…: vetted packages
// (INTERFACE.md 4.1), updates between offsets (4.2), a transaction or update by id or offset (4.3–4.5) as the
// caller's party (read role), and the wallet's ledger user (4.6, unscoped admin). A party token reads as its
// party; an unscoped token names the party with `?party=`.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '@quill/canton/errors';
import type { Principal } from '../../auth/index.ts';
import { type AppDeps, type AppEnv, type LedgerReads, ledgerReadsOf, need } from '../context.ts';
import { ApiError, errorResponses, ledgerReadError } from '../errors.ts';
import {
  LedgerTransaction,
  LedgerUpdate,
  LedgerUpdates,
  LedgerUser,
  VettedPackagesPage,
} from '../schemas.ts';
import { security } from './shared.ts';

const PartyQuery = z.object({
  party: z.string().min(1).max(255).optional().openapi({
    description: "The requesting party (an unscoped token must name one; a party token's own by default)",
  }),
});

const byId = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/transactions/{updateId}',
  operationId: 'getLedgerTransaction',
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
  operationId: 'getLedgerTransactionByOffset',
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
  operationId: 'listVettedPackages',
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

const offset = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

const updates = createRoute({
  method: 'get',
  path: '/wallet/v1/ledger/updates',
  operationId: 'listLedgerUpdates',
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
  operationId: 'getLedgerUpdateByOffset',
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
  operationId: 'getLedgerUser',
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
  operationId: 'updateLedgerUser',
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
    ...errorResponses(400, 401, 403, 409, 422, 503),
  },
});

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

export function ledgerRoutes(deps: AppDeps) {
  const reads = () => ledgerReadsOf(deps);
  return new OpenAPIHono<AppEnv>()
    .openapi(byId, async (c) => {
      const p = need(c, 'read');
      const { updateId } = c.req.valid('param');
      const party = requester(p, c.req.valid('query').party);
      try {
        return c.json({ transaction: await reads().transactionById(updateId, party) }, 200);
      } catch (err) {
        return ledgerReadError(err, `transaction ${echo(updateId)}`);
      }
    })
    .openapi(byOffset, async (c) => {
      const p = need(c, 'read');
      const { offset } = c.req.valid('param');
      const party = requester(p, c.req.valid('query').party);
      try {
        return c.json({ transaction: await reads().transactionByOffset(offset, party) }, 200);
      } catch (err) {
        return ledgerReadError(err, `offset ${offset}`);
      }
    })
    .openapi(updates, async (c) => {
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
        return ledgerReadError(err, `updates ${q.beginExclusive}..${q.endInclusive}`);
      }
    })
    .openapi(updateAt, async (c) => {
      const p = need(c, 'read');
      const { offset: at } = c.req.valid('param');
      const party = requester(p, c.req.valid('query').party);
      try {
        return c.json({ update: await reads().updateByOffset(at, party) }, 200);
      } catch (err) {
        return ledgerReadError(err, `update at offset ${at}`);
      }
    })
    .openapi(getUser, async (c) => {
      unscopedAdmin(c.get('principal'));
      try {
        return c.json({ user: await reads().user() }, 200);
      } catch (err) {
        return ledgerReadError(err, 'the ledger user');
      }
    })
    .openapi(patchUser, async (c) => {
      const who = c.get('principal');
      unscopedAdmin(who);
      const body = c.req.valid('json');
      const primary = body.user.primaryParty?.trim();
      const known = reads().partyKnown;
      let user: Awaited<ReturnType<LedgerReads['updateUser']>>;
      try {
        // A primary party the ledger does not know would be a typo acting for nobody: refused before the change.
        if (primary && body.updateMask.paths.includes('primary_party') && known && !(await known(primary)))
          throw new ApiError(422, 'PARTY_NOT_FOUND', `the ledger knows no party ${echo(primary)}`);
        user = await reads().updateUser({ user: body.user, paths: body.updateMask.paths });
      } catch (err) {
        return ledgerReadError(err, 'the ledger user');
      }
      // Who changed the wallet's ledger user, and which fields (the values are the ledger's to show).
      await deps.audit.append({
        kind: 'ledger.user.update',
        at: new Date().toISOString(),
        actor: who.subject,
        ledgerUser: user.id,
        paths: body.updateMask.paths.join(','),
        ...(body.updateMask.paths.includes('primary_party') ? { primaryParty: user.primaryParty ?? '' } : {}),
      });
      return c.json({ user }, 200);
    })
    .openapi(vetted, async (c) => {
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
        return ledgerReadError(err, 'vetted packages');
      }
    });
}
