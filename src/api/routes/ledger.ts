// Ledger reads through the wallet's own ledger client, as the caller's party (read role):
// GET /wallet/v1/ledger/transactions/{updateId} and GET /wallet/v1/ledger/offsets/{offset} (INTERFACE.md
// 4.3–4.5). A party token reads as its party; an unscoped token names the party with `?party=`.
import { createRoute, type OpenAPIHono, z } from '@hono/zod-openapi';
import { echo } from '../../errors.ts';
import { isLedgerError } from '../../ledger/index.ts';
import type { Principal } from '../../submissions/index.ts';
import { type AppDeps, type AppEnv, need } from '../context.ts';
import { ApiError, errorResponses } from '../errors.ts';

const security = [{ bearer: [] }];

const PartyQuery = z.object({
  party: z.string().min(1).max(255).optional().openapi({
    description: "The requesting party (an unscoped token must name one; a party token's own by default)",
  }),
});

const LedgerTransaction = z
  .object({ transaction: z.record(z.string(), z.unknown()) })
  .openapi('LedgerTransaction', { description: 'The JsTransaction as the party sees it (ledger effects)' });

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
}
