// Party history from the watcher's index: GET /wallet/v1/parties/{party}/transactions (read role; a party
// token sees only its own party, any other looks like it does not exist). Holdings: tokens.ts.
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi';
import { HistoryError } from '../../../history/index.ts';
import { type AppDeps, type AppEnv, need } from '../../context.ts';
import { ApiError, errorResponses } from '../../errors.ts';
import { LedgerJsTransaction } from '../../schemas.ts';
import { security } from '../shared.ts';

const Offset = z.coerce.number().int().min(0).max(Number.MAX_SAFE_INTEGER);

export const HistoryQuery = z.object({
  after: Offset.optional().openapi({
    description: 'Only transactions at offsets above this one (exclusive)',
  }),
  before: Offset.optional().openapi({
    description: 'Only transactions at offsets below this one (exclusive)',
  }),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  order: z.enum(['asc', 'desc']).default('asc'),
});

export const HistoryItem = z
  .object({
    updateId: z.string(),
    offset: z.number().int(),
    recordTime: z.string(),
    commandId: z.string().optional(),
    externalTransactionHash: z.string().optional(),
    parties: z.array(z.string()),
    transaction: LedgerJsTransaction,
  })
  .openapi('HistoryTransaction');

export const HistoryPage = z
  .object({
    items: z.array(HistoryItem),
    next: z.string().optional().openapi({
      description: 'Pass as `after` (asc) or `before` (desc) for the next page; absent on the last',
    }),
  })
  .openapi('HistoryPage');

const PartyParam = z.object({ party: z.string().min(1).max(255) });

const history = createRoute({
  method: 'get',
  path: '/wallet/v1/parties/{party}/transactions',
  operationId: 'listPartyTransactions',
  tags: ['history'],
  summary: "A party's transactions in offset order, from the watcher's index, paged by offset cursors",
  security,
  request: { params: PartyParam, query: HistoryQuery },
  responses: {
    200: { description: 'A page', content: { 'application/json': { schema: HistoryPage } } },
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

export function historyRoutes(deps: AppDeps) {
  return new OpenAPIHono<AppEnv>().openapi(history, async (c) => {
    const p = need(c, 'read');
    const { party } = c.req.valid('param');
    if (p.party !== undefined && p.party !== party) throw new ApiError(404, 'NOT_FOUND', 'no such party');
    if (!deps.history) throw new ApiError(503, 'UNAVAILABLE', 'the history index is not available');
    const q = c.req.valid('query');
    try {
      const page = await deps.history.page(party, {
        limit: q.limit,
        order: q.order,
        ...(q.after !== undefined ? { after: q.after } : {}),
        ...(q.before !== undefined ? { before: q.before } : {}),
      });
      return c.json(
        {
          items: page.items,
          ...(page.next !== undefined ? { next: String(page.next) } : {}),
        },
        200,
      );
    } catch (err) {
      if (err instanceof HistoryError)
        throw new ApiError(503, 'UNAVAILABLE', 'a dependency is unavailable, try again');
      throw err;
    }
  });
}
